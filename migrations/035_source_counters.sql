-- Up Migration

-- What each source's pulls asked of it, counted by the pulls themselves (each an atomic
-- increment, so that concurrent pulls and every process reading /metrics agree): requests sent,
-- 429s answered, and pulls that stopped short with an error.
ALTER TABLE sources
  ADD COLUMN requests bigint NOT NULL DEFAULT 0,
  ADD COLUMN refusals bigint NOT NULL DEFAULT 0,
  ADD COLUMN errors bigint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE sources DROP COLUMN errors, DROP COLUMN refusals, DROP COLUMN requests;
