-- Who made each change through the admin API (issue 22): the role of the token the request
-- presented, the token's id (the first 8 hex digits of its SHA-256, never the token) and the
-- request's id, as its log lines carry it. NULL in rows written before this migration, or by a
-- replica of an older version during a rolling upgrade; 'service' for changes the service made
-- by itself.
ALTER TABLE refresher_audit
  ADD COLUMN actor_role TEXT,
  ADD COLUMN actor_token_id TEXT,
  ADD COLUMN request_id TEXT;

-- GET /v1/changes pages the log newest first, whole or for one key.
CREATE INDEX refresher_audit_id_desc ON refresher_audit (id DESC);
