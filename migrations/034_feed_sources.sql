-- Up Migration

-- A third kind of source: another emutrack's change feed (GET /api/v2/records/changes,
-- docs/sources.md), followed by its cursor. The cursor is kept per source and moved in the
-- transaction that stores a page's effects, so a pull cut half-way resumes at the page it did
-- not store.
ALTER TABLE sources DROP CONSTRAINT sources_kind_check;
ALTER TABLE sources ADD CONSTRAINT sources_kind_check CHECK (kind IN ('v2', 'railre', 'v2-feed'));

CREATE TABLE source_feed_cursors (
  source_id bigint PRIMARY KEY REFERENCES sources (id) ON DELETE CASCADE,
  -- The upstream's nextCursor after the last page stored; '' = from the first change it keeps.
  cursor text NOT NULL DEFAULT '' CHECK (cursor ~ '^([0-9]{1,19}\.[0-9]{1,19})?$'),
  pages bigint NOT NULL DEFAULT 0,
  changes bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A record removed upstream retracts what it brought here: a correction made by the source
-- itself (actor_via 'source', actor_name its name), not by an operator or an administrator.
ALTER TABLE corrections DROP CONSTRAINT corrections_actor_via_check;
ALTER TABLE corrections ADD CONSTRAINT corrections_actor_via_check
  CHECK (actor_via IN ('cli', 'api', 'source'));
CREATE INDEX corrections_source_ref ON corrections (source, ref) WHERE actor_via = 'source';

-- Down Migration
DROP INDEX corrections_source_ref;
-- Kept as corrections of an operator named after the source (retractions stay in force).
UPDATE corrections SET actor_via = 'cli' WHERE actor_via = 'source';
ALTER TABLE corrections DROP CONSTRAINT corrections_actor_via_check;
ALTER TABLE corrections ADD CONSTRAINT corrections_actor_via_check
  CHECK (actor_via IN ('cli', 'api'));
DROP TABLE source_feed_cursors;
DELETE FROM sources WHERE kind = 'v2-feed';
ALTER TABLE sources DROP CONSTRAINT sources_kind_check;
ALTER TABLE sources ADD CONSTRAINT sources_kind_check CHECK (kind IN ('v2', 'railre'));
