-- Up Migration

-- Favourites: the trains, units and stations a user follows on the home page. `code` is the
-- canonical form (a train number as normalised at ingest, a unit's canonical code, a station's
-- name as the timetables write it), so one thing is one row however it was written. The limit
-- per user is kept by the writer under a per-user lock (src/domain/favourites), not here.
CREATE TABLE favourites (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('train', 'emu', 'station')),
  code text NOT NULL CHECK (length(code) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind, code)
);

-- Down Migration

DROP TABLE favourites;
