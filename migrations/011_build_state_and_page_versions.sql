-- Up Migration

-- One row per service day that has been built: what the last build read (`inputs`, a digest of
-- the day's sightings, the sightings moved across its midnights, the timetable version and the
-- rule) so that a build whose inputs did not change can skip the day, and a version bumped in
-- the build's own transaction whenever the day's records changed, so that a page rendered from
-- the records is kept while the version it was rendered under is the day's version
-- (src/records/build-daily-records.ts, src/api/page-cache.ts). An unchanged build keeps it.
CREATE TABLE daily_record_builds (
  service_day integer PRIMARY KEY,
  version bigint NOT NULL,
  inputs text NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now(),
  changed_at timestamptz NOT NULL DEFAULT now()
);

-- Versions of other things pages are rendered from, by name. 'exports' moves with every day
-- added to or removed from daily_exports (the export index lists days, not bytes), bumped by a
-- row trigger in the writer's transaction: readers see the new number exactly when they see the
-- new row. A render that replaces a day's bytes leaves the index, and so this number, alone.
CREATE TABLE page_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL
);
INSERT INTO page_versions (name, version) VALUES ('exports', 0);

CREATE FUNCTION daily_exports_listed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE page_versions SET version = version + 1 WHERE name = 'exports';
  RETURN NULL;
END;
$$;
CREATE TRIGGER daily_exports_listed
  AFTER INSERT OR DELETE ON daily_exports
  FOR EACH ROW EXECUTE FUNCTION daily_exports_listed();
CREATE TRIGGER daily_exports_truncated
  AFTER TRUNCATE ON daily_exports
  FOR EACH STATEMENT EXECUTE FUNCTION daily_exports_listed();

-- Down Migration
DROP TRIGGER daily_exports_truncated ON daily_exports;
DROP TRIGGER daily_exports_listed ON daily_exports;
DROP FUNCTION daily_exports_listed();
DROP TABLE page_versions;
DROP TABLE daily_record_builds;
