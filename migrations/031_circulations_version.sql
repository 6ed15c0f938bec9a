-- Up Migration

-- ('circulations', 0): what a train's current circulation is read from besides timetables and
-- records: the current inference run (the pointer moves when a run is swapped in), the official
-- tables, and their checks against the run (rewritten with every swap). Pages that show a
-- circulation keep it under this version (the web app's train page); one number for all trains,
-- moved once per transaction (bump_data_version, migration 028).
CREATE CONSTRAINT TRIGGER circulations_version_current AFTER INSERT OR UPDATE OR DELETE
  ON circulation_current DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
CREATE CONSTRAINT TRIGGER circulations_version_official AFTER INSERT OR UPDATE OR DELETE
  ON official_circulations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
CREATE CONSTRAINT TRIGGER circulations_version_checks AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_checks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
CREATE CONSTRAINT TRIGGER circulations_version_segments AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_segments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
CREATE TRIGGER circulations_version_current_truncated AFTER TRUNCATE ON circulation_current
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('circulations');
CREATE TRIGGER circulations_version_official_truncated AFTER TRUNCATE ON official_circulations
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('circulations');
CREATE TRIGGER circulations_version_checks_truncated AFTER TRUNCATE ON official_circulation_checks
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('circulations');
CREATE TRIGGER circulations_version_segments_truncated AFTER TRUNCATE ON official_circulation_segments
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('circulations');

-- Down Migration
DROP TRIGGER circulations_version_segments_truncated ON official_circulation_segments;
DROP TRIGGER circulations_version_checks_truncated ON official_circulation_checks;
DROP TRIGGER circulations_version_official_truncated ON official_circulations;
DROP TRIGGER circulations_version_current_truncated ON circulation_current;
DROP TRIGGER circulations_version_segments ON official_circulation_segments;
DROP TRIGGER circulations_version_checks ON official_circulation_checks;
DROP TRIGGER circulations_version_official ON official_circulations;
DROP TRIGGER circulations_version_current ON circulation_current;
DELETE FROM data_versions WHERE name = 'circulations';
