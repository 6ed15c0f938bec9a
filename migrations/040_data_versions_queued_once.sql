-- Up Migration

-- The deferred row triggers of migrations 028, 029 and 031 queue one event per row written, and
-- each event runs bump_data_version at commit only to find its version bumped already: about
-- 5 microseconds a row, 60 ms of commit for a pull that registers 4,000 units and their 8,000
-- aliases, for one version move. A trigger's WHEN is evaluated as the row is written, not
-- deferred (CREATE TRIGGER: "the WHEN condition is not deferred"), and an event it refuses is
-- never queued. So each unkeyed version trigger now asks data_version_unqueued first, which
-- says yes once per transaction and version name: the first row queues the bump, the rest queue
-- nothing. The mark is a transaction-local setting, so it is undone with a rolled-back savepoint
-- exactly as the event it stood for is: a write after the rollback queues the bump again.
-- Written in SQL so that it is inlined into the WHEN (no function call per row).
-- The keyed triggers (a day's records on daily_record_builds, one row per day) stay as they are.
CREATE FUNCTION data_version_unqueued(name text) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN current_setting('emutrack.data_version_queued_' || name, true) = '1' THEN false
              ELSE set_config('emutrack.data_version_queued_' || name, '1', true) = '1' END
$$;

DROP TRIGGER exports_version ON daily_exports;
CREATE CONSTRAINT TRIGGER exports_version AFTER INSERT OR DELETE ON daily_exports
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('exports'))
  EXECUTE FUNCTION bump_data_version('exports');
DROP TRIGGER timetables_version ON timetable_coverage;
CREATE CONSTRAINT TRIGGER timetables_version AFTER INSERT OR UPDATE OR DELETE ON timetable_coverage
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('timetables'))
  EXECUTE FUNCTION bump_data_version('timetables');
DROP TRIGGER reference_models_version ON train_reference_models;
CREATE CONSTRAINT TRIGGER reference_models_version
  AFTER INSERT OR UPDATE OR DELETE ON train_reference_models
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('reference_models'))
  EXECUTE FUNCTION bump_data_version('reference_models');
DROP TRIGGER emus_version ON emus;
CREATE CONSTRAINT TRIGGER emus_version AFTER INSERT OR UPDATE OR DELETE ON emus
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('emus'))
  EXECUTE FUNCTION bump_data_version('emus');
DROP TRIGGER emu_aliases_version ON emu_aliases;
CREATE CONSTRAINT TRIGGER emu_aliases_version AFTER INSERT OR DELETE ON emu_aliases
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('emus'))
  EXECUTE FUNCTION bump_data_version('emus');
DROP TRIGGER histories_version_merges ON emu_merges;
CREATE CONSTRAINT TRIGGER histories_version_merges AFTER INSERT OR UPDATE OR DELETE ON emu_merges
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('histories'))
  EXECUTE FUNCTION bump_data_version('histories');
DROP TRIGGER circulations_version_current ON circulation_current;
CREATE CONSTRAINT TRIGGER circulations_version_current AFTER INSERT OR UPDATE OR DELETE
  ON circulation_current DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (data_version_unqueued('circulations'))
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_official ON official_circulations;
CREATE CONSTRAINT TRIGGER circulations_version_official AFTER INSERT OR UPDATE OR DELETE
  ON official_circulations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (data_version_unqueued('circulations'))
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_checks ON official_circulation_checks;
CREATE CONSTRAINT TRIGGER circulations_version_checks AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_checks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (data_version_unqueued('circulations'))
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_segments ON official_circulation_segments;
CREATE CONSTRAINT TRIGGER circulations_version_segments AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_segments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (data_version_unqueued('circulations'))
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER site_content_version ON site_posts;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_posts
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_terms;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_terms
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_term_relationships;
CREATE CONSTRAINT TRIGGER site_content_version
  AFTER INSERT OR UPDATE OR DELETE ON site_term_relationships
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_roles;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_roles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_options;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_options
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON users;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON users
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_user_profiles;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_user_profiles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (data_version_unqueued('site_content'))
  EXECUTE FUNCTION bump_data_version('site_content');

-- Down Migration
DROP TRIGGER site_content_version ON site_user_profiles;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_user_profiles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON users;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON users
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_options;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_options
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_roles;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_roles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_term_relationships;
CREATE CONSTRAINT TRIGGER site_content_version
  AFTER INSERT OR UPDATE OR DELETE ON site_term_relationships
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_terms;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_terms
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER site_content_version ON site_posts;
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_posts
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
DROP TRIGGER circulations_version_segments ON official_circulation_segments;
CREATE CONSTRAINT TRIGGER circulations_version_segments AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_segments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_checks ON official_circulation_checks;
CREATE CONSTRAINT TRIGGER circulations_version_checks AFTER INSERT OR UPDATE OR DELETE
  ON official_circulation_checks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_official ON official_circulations;
CREATE CONSTRAINT TRIGGER circulations_version_official AFTER INSERT OR UPDATE OR DELETE
  ON official_circulations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER circulations_version_current ON circulation_current;
CREATE CONSTRAINT TRIGGER circulations_version_current AFTER INSERT OR UPDATE OR DELETE
  ON circulation_current DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION bump_data_version('circulations');
DROP TRIGGER histories_version_merges ON emu_merges;
CREATE CONSTRAINT TRIGGER histories_version_merges AFTER INSERT OR UPDATE OR DELETE ON emu_merges
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('histories');
DROP TRIGGER emu_aliases_version ON emu_aliases;
CREATE CONSTRAINT TRIGGER emu_aliases_version AFTER INSERT OR DELETE ON emu_aliases
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('emus');
DROP TRIGGER emus_version ON emus;
CREATE CONSTRAINT TRIGGER emus_version AFTER INSERT OR UPDATE OR DELETE ON emus
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('emus');
DROP TRIGGER reference_models_version ON train_reference_models;
CREATE CONSTRAINT TRIGGER reference_models_version
  AFTER INSERT OR UPDATE OR DELETE ON train_reference_models
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('reference_models');
DROP TRIGGER timetables_version ON timetable_coverage;
CREATE CONSTRAINT TRIGGER timetables_version AFTER INSERT OR UPDATE OR DELETE ON timetable_coverage
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('timetables');
DROP TRIGGER exports_version ON daily_exports;
CREATE CONSTRAINT TRIGGER exports_version AFTER INSERT OR DELETE ON daily_exports
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('exports');
DROP FUNCTION data_version_unqueued(text);
