-- Up Migration

-- The station timetable (src/timetables/station-board.ts) needs the coverage rows in force on
-- one day. A btree on (service_day_start) or (service_day_end_exclusive) can bound only one side
-- of "start <= day < end", so the planner read the whole table; as a range the condition is one
-- containment test a GiST index answers directly. int4range(start, NULL) is unbounded above (an
-- open coverage), and the CHECK on the table keeps end > start, so the range never fails to build.
-- The histories by train and by EMU are served by the indexes of 002 (test/history/query-plans.test.ts).
CREATE INDEX timetable_coverage_in_force ON timetable_coverage
  USING gist (int4range(service_day_start, service_day_end_exclusive));

-- Down Migration
DROP INDEX timetable_coverage_in_force;
