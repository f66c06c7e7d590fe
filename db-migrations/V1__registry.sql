-- The key registry: what the service keeps fresh. PostgreSQL is its source of truth; the due index
-- in Redis is rebuilt from this table whenever Redis loses its data.
CREATE TABLE refresher_key (
    key         TEXT COLLATE "C" PRIMARY KEY,  -- byte order, so paging by key is stable
    source      TEXT        NOT NULL,
    params      JSONB       NOT NULL DEFAULT '{}'::jsonb,
    ttl_ms      BIGINT      NOT NULL CHECK (ttl_ms > 0),
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- High-water mark of Redis data epochs: fences are (epoch, lock token), and the lock token counter
-- lives in Redis and restarts from zero when Redis loses its data.
CREATE TABLE refresher_epoch (
    id     SMALLINT PRIMARY KEY CHECK (id = 1),
    epoch  BIGINT   NOT NULL
);
INSERT INTO refresher_epoch (id, epoch) VALUES (1, 0);

-- Who changed which registration and when.
CREATE TABLE refresher_audit (
    id      BIGSERIAL   PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    action  TEXT        NOT NULL,
    key     TEXT        NOT NULL,
    detail  JSONB
);
CREATE INDEX refresher_audit_key_at ON refresher_audit (key, at);
