-- Up Migration

-- The change feed of daily records (GET /api/v2/records/changes, src/records/record-changes.ts):
-- every insert, update and delete of daily_records, written by statement triggers in the
-- writer's own transaction, so a change is in the feed exactly when it is in the table.
--
-- Order. Each captured statement takes the next `position` from the one row of
-- record_change_clock. The UPDATE holds that row's lock until the writer commits, so the
-- transaction that takes position p+1 can only do so once the one holding p has committed (or
-- rolled back: p is then never seen). Positions therefore become visible in commit order: a
-- reader that sees position p sees every lower one, and a cursor (position, record id) never
-- skips or repeats a change, whatever order transactions began or took ids in. Identity values
-- or timestamps alone would not do: a transaction can take a lower one and commit later. The
-- cost: two writers of records wait for each other from the first record either writes to the
-- commit, a build's last few statements. A statement changes a record once, so (position,
-- record id) is a change's key; what is the same for all of a statement's changes (its cause,
-- its time) is kept once per position. Each capture also notifies channel emutrack_webhooks: a
-- hint that wakes the webhook dispatcher early; it reads the feed for what is there.
CREATE TABLE record_change_clock (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  position bigint NOT NULL,
  -- Retention (pruneRecordChanges): every change up to and including (position, record id)
  -- below has been deleted; a cursor before it is expired (410 cursor_expired).
  pruned_position bigint NOT NULL,
  pruned_record_id bigint NOT NULL
);
INSERT INTO record_change_clock (position, pruned_position, pruned_record_id) VALUES (0, 0, 0);

-- One row per captured statement.
CREATE TABLE record_change_positions (
  position bigint PRIMARY KEY,
  -- What wrote it: 'build' (a scheduled or asked-for build), 'late-data' (a rebuild of a stale
  -- day after late sightings or timetables), 'correction', or what else the writer set in
  -- emutrack.change_cause (set_config(..., true) in its transaction).
  cause text NOT NULL,
  -- The writing transaction's start (now()): what retention measures age by.
  changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE record_changes (
  position bigint NOT NULL,
  record_id bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('added', 'changed', 'removed')),
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
  PRIMARY KEY (position, record_id)
);

-- The next position, with its cause and time; the notice is sent when the writer commits.
CREATE FUNCTION record_change_position() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  UPDATE record_change_clock SET position = position + 1 RETURNING position INTO p;
  INSERT INTO record_change_positions (position, cause)
  VALUES (p, coalesce(nullif(current_setting('emutrack.change_cause', true), ''), 'build'));
  PERFORM pg_notify('emutrack_webhooks', '');
  RETURN p;
END;
$$;

CREATE FUNCTION record_changes_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
  p := record_change_position();
  INSERT INTO record_changes (position, record_id, kind, service_day, train_code, emu_id,
                              support, sources, first_observed_at, last_observed_at, status,
                              timetable_id)
  SELECT p, n.id, 'added', n.service_day, n.train_code, n.emu_id, n.support, n.sources,
         n.first_observed_at, n.last_observed_at, n.status, n.timetable_id
    FROM new_rows n;
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
  p := record_change_position();
  INSERT INTO record_changes (position, record_id, kind, service_day, train_code, emu_id,
                              support, sources, first_observed_at, last_observed_at, status,
                              timetable_id)
  SELECT p, n.id, 'changed', n.service_day, n.train_code, n.emu_id, n.support, n.sources,
         n.first_observed_at, n.last_observed_at, n.status, n.timetable_id
    FROM new_rows n JOIN old_rows o ON o.id = n.id
   WHERE (o.service_day, o.train_code, o.emu_id, o.support, o.sources, o.first_observed_at,
          o.last_observed_at, o.status, o.timetable_id)
         IS DISTINCT FROM
         (n.service_day, n.train_code, n.emu_id, n.support, n.sources, n.first_observed_at,
          n.last_observed_at, n.status, n.timetable_id);
  RETURN NULL;
END;
$$;

CREATE FUNCTION record_changes_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  p bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  p := record_change_position();
  INSERT INTO record_changes (position, record_id, kind, service_day, train_code, emu_id)
  SELECT p, o.id, 'removed', o.service_day, o.train_code, o.emu_id FROM old_rows o;
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
DROP FUNCTION record_change_position();
DROP TABLE record_changes;
DROP TABLE record_change_positions;
DROP TABLE record_change_clock;
