-- Up Migration

-- One version per versioned thing, by (name, key): a number that moves in the transaction that
-- changes what it versions, so a reader sees the new number exactly when it sees the new data,
-- in any process and on PGlite. Readers (src/records/data-versions.ts) read it per request and
-- keep rendered answers under it (src/records/byte-cache.ts). Replaces the five counters of
-- migrations 004, 011, 014, 016 and 022 (their current values move here):
--   ('records', service day)   a day's records: moves when a build changes them
--                              (daily_record_builds.version moves with it);
--   ('exports', 0)             the days daily_exports lists;
--   ('timetables', 0)          timetable coverage;
--   ('reference_models', 0)    trains' reference models;
--   ('emus', 0)                the EMU register (units and aliases);
--   ('site_content', 0)        the documentation site's content.
-- A thing with no row is at version 0.
CREATE TABLE data_versions (
  name text NOT NULL,
  key bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL,
  PRIMARY KEY (name, key)
);

-- The one trigger function: bump_data_version(name [, key column]). Once per transaction and
-- (name, key) (a transaction-local list of what it bumped, undone with a rolled-back
-- savepoint): one committed transaction is one new version, however many rows it wrote.
-- Row changes fire it as deferred constraint triggers, so the version row is locked only while
-- the writer commits: writers of different rows never wait on each other for it before then,
-- and cannot deadlock over it (what migration 014's per-transaction rows were for).
CREATE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys bigint[] := ARRAY[]::bigint[];
  k bigint;
  bumped text := coalesce(current_setting('emutrack.data_versions_bumped', true), '');
  tag text;
BEGIN
  IF TG_NARGS > 1 AND TG_LEVEL = 'ROW' THEN
    IF TG_OP <> 'INSERT' THEN keys := keys || (to_jsonb(OLD) ->> TG_ARGV[1])::bigint; END IF;
    IF TG_OP <> 'DELETE' THEN keys := keys || (to_jsonb(NEW) ->> TG_ARGV[1])::bigint; END IF;
  ELSE
    keys := ARRAY[0::bigint];
  END IF;
  FOREACH k IN ARRAY keys LOOP
    tag := '|' || TG_ARGV[0] || ':' || k || '|';
    CONTINUE WHEN position(tag IN bumped) > 0;
    INSERT INTO data_versions AS v (name, key, version) VALUES (TG_ARGV[0], k, 1)
      ON CONFLICT (name, key) DO UPDATE SET version = v.version + 1;
    bumped := bumped || tag;
  END LOOP;
  PERFORM set_config('emutrack.data_versions_bumped', bumped, true);
  RETURN NULL;
END;
$$;

-- The counters' current values.
INSERT INTO data_versions (name, key, version)
  SELECT 'records', service_day, version FROM daily_record_builds WHERE version > 0;
INSERT INTO data_versions (name, key, version)
  SELECT name, 0, version FROM page_versions WHERE name IN ('exports', 'emus');
INSERT INTO data_versions (name, key, version) SELECT 'timetables', 0, version FROM timetable_changes;
INSERT INTO data_versions (name, key, version)
  SELECT 'reference_models', 0, version FROM reference_model_changes;
INSERT INTO data_versions (name, key, version)
  SELECT 'site_content', 0, base + (SELECT count(*) FROM site_content_changes) FROM site_content_version;

-- The old counters go.
DROP TRIGGER timetable_coverage_changed ON timetable_coverage;
DROP FUNCTION timetable_coverage_changed();
DROP TABLE timetable_changes;
DROP TRIGGER reference_models_changed ON train_reference_models;
DROP FUNCTION reference_models_changed();
DROP TABLE reference_model_changes;
DROP TRIGGER daily_exports_truncated ON daily_exports;
DROP TRIGGER daily_exports_listed ON daily_exports;
DROP FUNCTION daily_exports_listed();
DROP TRIGGER emu_aliases_deleted ON emu_aliases;
DROP TRIGGER emu_aliases_inserted ON emu_aliases;
DROP TRIGGER emus_deleted ON emus;
DROP TRIGGER emus_updated ON emus;
DROP TRIGGER emus_inserted ON emus;
DROP FUNCTION emus_changed();
DROP FUNCTION emus_rows_changed();
DROP TABLE page_versions;
DROP TRIGGER users_site_content_truncated ON users;
DROP TRIGGER users_site_content_changed ON users;
DROP TRIGGER site_options_content_truncated ON site_options;
DROP TRIGGER site_options_content_changed ON site_options;
DROP TRIGGER site_roles_content_truncated ON site_roles;
DROP TRIGGER site_roles_content_changed ON site_roles;
DROP TRIGGER site_term_relationships_content_truncated ON site_term_relationships;
DROP TRIGGER site_term_relationships_content_changed ON site_term_relationships;
DROP TRIGGER site_terms_content_truncated ON site_terms;
DROP TRIGGER site_terms_content_changed ON site_terms;
DROP TRIGGER site_posts_content_truncated ON site_posts;
DROP TRIGGER site_posts_content_changed ON site_posts;
DROP TRIGGER site_user_profiles_content_truncated ON site_user_profiles;
DROP TRIGGER site_user_profiles_content_changed ON site_user_profiles;
DROP FUNCTION site_content_changed();
DROP TABLE site_content_changes;
DROP TABLE site_content_version;

-- Every versioned table: one deferred row trigger, and one for TRUNCATE where it can happen.
-- A day's records: only a build that changed them moves daily_record_builds.version.
CREATE CONSTRAINT TRIGGER records_version AFTER INSERT ON daily_record_builds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.version > 0)
  EXECUTE FUNCTION bump_data_version('records', 'service_day');
CREATE CONSTRAINT TRIGGER records_version_moved AFTER UPDATE ON daily_record_builds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.version <> OLD.version)
  EXECUTE FUNCTION bump_data_version('records', 'service_day');
-- The export index lists days, not bytes: a day's bytes rendered again leave it alone.
CREATE CONSTRAINT TRIGGER exports_version AFTER INSERT OR DELETE ON daily_exports
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('exports');
CREATE TRIGGER exports_version_truncated AFTER TRUNCATE ON daily_exports
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('exports');
CREATE CONSTRAINT TRIGGER timetables_version AFTER INSERT OR UPDATE OR DELETE ON timetable_coverage
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('timetables');
CREATE TRIGGER timetables_version_truncated AFTER TRUNCATE ON timetable_coverage
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('timetables');
CREATE CONSTRAINT TRIGGER reference_models_version
  AFTER INSERT OR UPDATE OR DELETE ON train_reference_models
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('reference_models');
CREATE TRIGGER reference_models_version_truncated AFTER TRUNCATE ON train_reference_models
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('reference_models');
-- Registrations are INSERT ... ON CONFLICT DO NOTHING: a row trigger fires only for a new one.
CREATE CONSTRAINT TRIGGER emus_version AFTER INSERT OR UPDATE OR DELETE ON emus
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('emus');
CREATE CONSTRAINT TRIGGER emu_aliases_version AFTER INSERT OR DELETE ON emu_aliases
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('emus');
-- The site's content (and the authors' names and slugs it shows, from users).
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_posts
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_posts
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_terms
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_terms
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');
CREATE CONSTRAINT TRIGGER site_content_version
  AFTER INSERT OR UPDATE OR DELETE ON site_term_relationships
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_term_relationships
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_roles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_roles
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_options
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_options
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');
CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON users
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');

CREATE CONSTRAINT TRIGGER site_content_version AFTER INSERT OR UPDATE OR DELETE ON site_user_profiles
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version('site_content');
CREATE TRIGGER site_content_version_truncated AFTER TRUNCATE ON site_user_profiles
  FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version('site_content');

-- Down Migration
-- The old counters are not rebuilt: migrate down past 028 from a fresh database only.
DROP TRIGGER site_content_version_truncated ON site_user_profiles;
DROP TRIGGER site_content_version ON site_user_profiles;
DROP TRIGGER site_content_version_truncated ON users;
DROP TRIGGER site_content_version ON users;
DROP TRIGGER site_content_version_truncated ON site_options;
DROP TRIGGER site_content_version ON site_options;
DROP TRIGGER site_content_version_truncated ON site_roles;
DROP TRIGGER site_content_version ON site_roles;
DROP TRIGGER site_content_version_truncated ON site_term_relationships;
DROP TRIGGER site_content_version ON site_term_relationships;
DROP TRIGGER site_content_version_truncated ON site_terms;
DROP TRIGGER site_content_version ON site_terms;
DROP TRIGGER site_content_version_truncated ON site_posts;
DROP TRIGGER site_content_version ON site_posts;
DROP TRIGGER emu_aliases_version ON emu_aliases;
DROP TRIGGER emus_version ON emus;
DROP TRIGGER reference_models_version_truncated ON train_reference_models;
DROP TRIGGER reference_models_version ON train_reference_models;
DROP TRIGGER timetables_version_truncated ON timetable_coverage;
DROP TRIGGER timetables_version ON timetable_coverage;
DROP TRIGGER exports_version_truncated ON daily_exports;
DROP TRIGGER exports_version ON daily_exports;
DROP TRIGGER records_version_moved ON daily_record_builds;
DROP TRIGGER records_version ON daily_record_builds;
DROP FUNCTION bump_data_version();
DROP TABLE data_versions;
