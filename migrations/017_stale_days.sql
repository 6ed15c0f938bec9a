-- Up Migration

-- Service days whose records may no longer match their inputs: a late sighting, a correction or
-- a timetable change arrived after the day was built. A row is written in the same transaction
-- as whatever made the day stale, so a committed sighting never goes unnoticed; the worker
-- rebuilds the day once it has been quiet for STALE_REBUILD_DELAY_MS and deletes the row in the
-- build's transaction, unless the day was marked again after the build read its mark
-- (`mark` moved on), in which case the row stays for the next round. `mark` comes from a
-- sequence, not the clock: a build reads it before its inputs, so any mark with a higher number
-- may belong to sightings the build did not see, and any lower one committed before it looked.
CREATE SEQUENCE stale_day_marks;
CREATE TABLE stale_days (
  service_day integer PRIMARY KEY,
  -- Why: any of 'late-data', 'correction', 'timetable' (a set, in the order first seen).
  causes text[] NOT NULL,
  first_marked_at timestamptz NOT NULL DEFAULT now(),
  last_marked_at timestamptz NOT NULL DEFAULT now(),
  mark bigint NOT NULL DEFAULT nextval('stale_day_marks')
);
CREATE INDEX stale_days_last_marked ON stale_days (last_marked_at);

-- Down Migration
DROP TABLE stale_days;
DROP SEQUENCE stale_day_marks;
