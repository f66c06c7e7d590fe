-- Where each deployment's change capture stands in a datasource's write-ahead log: the reader's
-- offsets (Debezium's, as the bytes its converter wrote), saved only after the changes before them
-- were applied to Redis. The next reader (another replica, or this one after a restart) resumes
-- there. The replication slot's confirmed_flush_lsn follows a moment later; it never passes this.
CREATE TABLE refresher_capture_offset (
  deployment TEXT NOT NULL,
  datasource TEXT NOT NULL,
  offset_key BYTEA NOT NULL,
  offset_value BYTEA,
  saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (deployment, datasource, offset_key)
);
