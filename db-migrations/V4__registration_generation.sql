-- Every registration (and every replacement of one) gets a new generation from one sequence. A
-- refresh writes with the generation of the registration it computed; deleting a registration
-- leaves its generation as a tombstone beside the key in Redis, and the write script refuses a
-- write of that generation or an older one. So a refresh that was already running when its key
-- was deleted cannot bring the value back, while a key registered again (a newer generation) is
-- written at once. Templates take generations from the same sequence.
CREATE SEQUENCE refresher_generation;
ALTER TABLE refresher_key ADD COLUMN generation BIGINT NOT NULL DEFAULT nextval('refresher_generation');
