-- Up Migration

-- The change feed of daily records (GET /api/v2/records/changes, src/records/record-changes.ts):
-- every insert, update and delete of daily_records, written by statement triggers in the
-- writer's own transaction, so a change is in the feed exactly when it is in the table.
--
-- Order. Each captured statement takes the next `position` from the one row of
-- record_change_clock. The UPDATE holds that row's lock until the writer commits, so the
-- transaction that takes position p+1 can only do so once the one holding p has committed (or
-- rolled back: p is then never seen). Positions therefore become visible in commit order: a
-- reader that sees position p sees every lower one, and a cursor (position, seq) never skips or
-- repeats a change, whatever order transactions began or took ids in. Identity values or
-- timestamps alone would not do: a transaction can take a lower one and commit later. The cost:
-- two writers of records wait for each other from the first record either writes to the
-- commit, a build's last few statements. Each capture also notifies channel emutrack_webhooks:
-- a hint that wakes the webhook dispatcher early; it reads the feed for what is there.
CREATE TABLE record_change_clock (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position bigint NOT NULL,
  -- Retention (pruneRecordChanges): every change up to and including (position, seq) below
  -- has been deleted; a cursor before it is expired (410 cursor_expired).
  pruned_position bigint NOT NULL,
  pruned_seq bigint NOT NULL
);
INSERT INTO record_change_clock (position, pruned_position, pruned_seq) VALUES (0, 0, 0);

CREATE TABLE record_changes (
  position bigint NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  kind text NOT NULL CHECK (kind IN ('added', 'changed', 'removed')),
  -- What wrote it: 'build' (a scheduled or asked-for build), 'late-data' (a rebuild of a stale
  -- day after late sightings or timetables), 'correction', or what else the writer set in
  -- emutrack.change_cause (set_config(..., true) in its transaction).
  cause text NOT NULL,
  record_id bigint NOT NULL,
  service_day integer NOT NULL,
  train_code text NOT NULL,
  emu_id integer NOT NULL,
  -- The record as the change left it; null for 'removed'.
  support integer,
  sources text[],
  first_observed_at bigint,
  last_observed_at bigint,
  status integer,
  timetable_id bigint,
  -- The writing transaction's start (now()): what retention measures age by.
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (position, seq)
);
CREATE INDEX record_changes_changed_at ON record_changes (changed_at);

CREATE FUNCTION record_change_cause() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('emutrack.change_cause', true), ''), 'build')
$$;

CREATE FUNCTION record_changes_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
  UPDATE record_change_clock SET position = position + 1 RETURNING position INTO p;
  INSERT INTO record_changes (position, kind, cause, record_id, service_day, train_code, emu_id,
                              support, sources, first_observed_at, last_observed_at, status,
                              timetable_id)
  SELECT p, 'added', record_change_cause(), n.id, n.service_day, n.train_code, n.emu_id,
         n.support, n.sources, n.first_observed_at, n.last_observed_at, n.status, n.timetable_id
    FROM new_rows n ORDER BY n.id;
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN NULL;
END;
$$;

-- An update that changes nothing a reader sees (built_at alone) is not a change.
CREATE FUNCTION record_changes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (o.service_day, o.train_code, o.emu_id, o.support, o.sources, o.first_observed_at,
            o.last_observed_at, o.status, o.timetable_id)
           IS DISTINCT FROM
           (n.service_day, n.train_code, n.emu_id, n.support, n.sources, n.first_observed_at,
            n.last_observed_at, n.status, n.timetable_id)
  ) THEN
    RETURN NULL;
  END IF;
  UPDATE record_change_clock SET position = position + 1 RETURNING position INTO p;
  INSERT INTO record_changes (position, kind, cause, record_id, service_day, train_code, emu_id,
                              support, sources, first_observed_at, last_observed_at, status,
                              timetable_id)
  SELECT p, 'changed', record_change_cause(), n.id, n.service_day, n.train_code, n.emu_id,
         n.support, n.sources, n.first_observed_at, n.last_observed_at, n.status, n.timetable_id
    FROM new_rows n JOIN old_rows o ON o.id = n.id
   WHERE (o.service_day, o.train_code, o.emu_id, o.support, o.sources, o.first_observed_at,
          o.last_observed_at, o.status, o.timetable_id)
         IS DISTINCT FROM
         (n.service_day, n.train_code, n.emu_id, n.support, n.sources, n.first_observed_at,
          n.last_observed_at, n.status, n.timetable_id)
   ORDER BY n.id;
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN NULL;
END;
$$;

CREATE FUNCTION record_changes_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  UPDATE record_change_clock SET position = position + 1 RETURNING position INTO p;
  INSERT INTO record_changes (position, kind, cause, record_id, service_day, train_code, emu_id)
  SELECT p, 'removed', record_change_cause(), o.id, o.service_day, o.train_code, o.emu_id
    FROM old_rows o ORDER BY o.id;
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER record_changes_added AFTER INSERT ON daily_records
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes_added();
CREATE TRIGGER record_changes_changed AFTER UPDATE ON daily_records
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes_changed();
CREATE TRIGGER record_changes_removed AFTER DELETE ON daily_records
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes_removed();

-- Down Migration
DROP TRIGGER record_changes_removed ON daily_records;
DROP TRIGGER record_changes_changed ON daily_records;
DROP TRIGGER record_changes_added ON daily_records;
DROP FUNCTION record_changes_removed();
DROP FUNCTION record_changes_changed();
DROP FUNCTION record_changes_added();
DROP FUNCTION record_change_cause();
DROP TABLE record_changes;
DROP TABLE record_change_clock;
