-- Up Migration

-- ('histories', 0): every train's and every EMU's history (src/http/api/kept-histories.ts keeps
-- whole histories under it). A history spans every service day, so it moves with any day's
-- records (a build that changes them, as ('records', day) does) and with the merges that decide
-- which unit an EMU's history follows (corrections). One number for all histories: exact, and
-- a build moves it once per transaction (bump_data_version, migration 028).
CREATE CONSTRAINT TRIGGER histories_version AFTER INSERT ON daily_record_builds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.version > 0)
  EXECUTE FUNCTION bump_data_version('histories');
CREATE CONSTRAINT TRIGGER histories_version_moved AFTER UPDATE ON daily_record_builds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.version <> OLD.version)
  EXECUTE FUNCTION bump_data_version('histories');
CREATE CONSTRAINT TRIGGER histories_version_merges AFTER INSERT OR UPDATE OR DELETE ON emu_merges
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('histories');
CREATE TRIGGER histories_version_merges_truncated AFTER TRUNCATE ON emu_merges
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('histories');

-- Down Migration
DROP TRIGGER histories_version_merges_truncated ON emu_merges;
DROP TRIGGER histories_version_merges ON emu_merges;
DROP TRIGGER histories_version_moved ON daily_record_builds;
DROP TRIGGER histories_version ON daily_record_builds;
DELETE FROM data_versions WHERE name = 'histories';
