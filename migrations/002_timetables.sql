-- Up Migration

-- Timetable contents, stored once per distinct content (content_hash = sha256 of the canonical
-- content JSON, validFrom excluded). `id` is the API's timetableId. Offsets are seconds from
-- the service day's midnight and may pass 86400 (a train that runs past midnight).
CREATE TABLE timetables (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  content_hash bytea NOT NULL UNIQUE,
  train_code text NOT NULL,
  all_codes text[] NOT NULL,
  internal_code text NOT NULL DEFAULT '',
  bureau_code text NOT NULL DEFAULT '',
  bureau_name text NOT NULL DEFAULT '',
  train_department text NOT NULL DEFAULT '',
  passenger_department text NOT NULL DEFAULT '',
  start_station text NOT NULL,
  end_station text NOT NULL,
  start_offset integer NOT NULL,
  end_offset integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The stops of a timetable, in running order (station_no from 1).
CREATE TABLE timetable_stops (
  timetable_id integer NOT NULL REFERENCES timetables (id),
  station_no integer NOT NULL,
  station_name text NOT NULL,
  arrive_offset integer,
  depart_offset integer,
  station_train_code text,
  wicket text NOT NULL DEFAULT '',
  platform_no integer,
  distance numeric,
  PRIMARY KEY (timetable_id, station_no)
);
CREATE INDEX timetable_stops_station ON timetable_stops (station_name, timetable_id);

-- Every version declared for a train number: (number, validFrom) -> timetable, as ingested (a
-- later ingestion with the same validFrom replaces the content). timetable_coverage is derived
-- from these (src/timetables/coverage-versions.ts), so the history does not depend on the order
-- timetables arrive in.
CREATE TABLE timetable_versions (
  train_code text NOT NULL,
  valid_from integer NOT NULL,
  timetable_id integer NOT NULL REFERENCES timetables (id),
  ingested_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (train_code, valid_from)
);
CREATE INDEX timetable_versions_timetable ON timetable_versions (timetable_id);

-- Which timetable was in force for a train number on which service days: one row per
-- (train number, version), [service_day_start, service_day_end_exclusive). An open coverage has
-- service_day_end_exclusive NULL. Every number of a paired run (allCodes) has its own rows.
CREATE TABLE timetable_coverage (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  train_code text NOT NULL,
  timetable_id integer NOT NULL REFERENCES timetables (id),
  service_day_start integer NOT NULL,
  service_day_end_exclusive integer,
  CHECK (service_day_end_exclusive IS NULL OR service_day_end_exclusive > service_day_start)
);
CREATE INDEX timetable_coverage_train ON timetable_coverage (train_code, service_day_start DESC);
CREATE INDEX timetable_coverage_timetable ON timetable_coverage (timetable_id);
CREATE UNIQUE INDEX timetable_coverage_one_open ON timetable_coverage (train_code)
  WHERE service_day_end_exclusive IS NULL;

ALTER TABLE daily_records
  ADD CONSTRAINT daily_records_timetable FOREIGN KEY (timetable_id) REFERENCES timetables (id);

-- The build of day D also reads the sightings of day D+1's first hours (cross-midnight
-- attribution, src/records/day-sightings.ts): a range on observed_at within a day.
DROP INDEX observations_service_day;
CREATE INDEX observations_service_day_time ON observations (service_day, observed_at);

-- History pages, newest first, by EMU and by train.
CREATE INDEX daily_records_emu_history ON daily_records (emu_id, service_day DESC, id DESC);
CREATE INDEX daily_records_train_history ON daily_records (train_code, service_day DESC, id DESC);

-- Model shares of the EMUs that ran a train over the last days (referenceModels), refreshed
-- nightly; one row per (train number, model).
CREATE TABLE train_reference_models (
  train_code text NOT NULL,
  model text NOT NULL,
  weighted_share double precision NOT NULL,
  window_start integer NOT NULL,
  window_end integer NOT NULL,
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (train_code, model)
);

-- Coach layouts of an EMU (EmuAllocationCoachLayout).
CREATE TABLE emu_coach_layouts (
  emu_id integer NOT NULL REFERENCES emus (id),
  coach_no integer NOT NULL,
  coach_type_code text NOT NULL DEFAULT '',
  coach_type_name text NOT NULL DEFAULT '',
  capacity integer NOT NULL DEFAULT 0,
  has_power boolean NOT NULL DEFAULT false,
  has_pantograph boolean NOT NULL DEFAULT false,
  has_large_luggage_area boolean NOT NULL DEFAULT false,
  has_accessible_facility boolean NOT NULL DEFAULT false,
  PRIMARY KEY (emu_id, coach_no)
);

-- Down Migration
DROP TABLE emu_coach_layouts;
DROP TABLE train_reference_models;
DROP INDEX daily_records_train_history;
DROP INDEX daily_records_emu_history;
DROP INDEX observations_service_day_time;
CREATE INDEX observations_service_day ON observations (service_day);
ALTER TABLE daily_records DROP CONSTRAINT daily_records_timetable;
DROP TABLE timetable_coverage;
DROP TABLE timetable_versions;
DROP TABLE timetable_stops;
DROP TABLE timetables;
