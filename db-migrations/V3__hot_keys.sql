-- Hot keys: a registered key is refreshed either while it is hot ('hot', the default from now on)
-- or always ('always'). Keys registered before this migration were registered under the promise
-- "refreshed forever", so they keep it.
ALTER TABLE refresher_key ADD COLUMN policy TEXT NOT NULL DEFAULT 'always'
    CHECK (policy IN ('hot', 'always'));
ALTER TABLE refresher_key ALTER COLUMN policy SET DEFAULT 'hot';
CREATE INDEX refresher_key_always ON refresher_key (key) WHERE policy = 'always';

-- Key templates: a family of keys (pattern 'product:{id}') computed by one source, the
-- placeholders giving its parameters. Its keys are refreshed only while hot.
CREATE TABLE refresher_template (
    name        TEXT COLLATE "C" PRIMARY KEY,
    pattern     TEXT        NOT NULL UNIQUE,
    source      TEXT        NOT NULL,
    params      JSONB       NOT NULL DEFAULT '{}'::jsonb,  -- fixed parameters, not taken from the key
    ttl_ms      BIGINT      NOT NULL CHECK (ttl_ms > 0),
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- Popularity, saved periodically: Redis counters and rates die with Redis, and the refill after a
-- data loss starts from the most popular keys.
CREATE TABLE refresher_popularity (
    key         TEXT COLLATE "C" PRIMARY KEY,
    rate        DOUBLE PRECISION NOT NULL,  -- reads per second, decaying average
    sampled_at  TIMESTAMPTZ      NOT NULL
);
CREATE INDEX refresher_popularity_rate ON refresher_popularity (rate DESC);
