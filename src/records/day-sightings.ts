import { midnightOfServiceDay } from '../time/service-day.js';
import { coverageInForceSql } from '../timetables/timetable-lookup.js';

/**
 * Which sightings a service day's build counts: cross-midnight attribution.
 *
 * At ingest a sighting gets the service day its serviceDate names, or else the Shanghai
 * calendar day of observedAt (observations.service_day; observations are append-only and
 * timetables may arrive later, so the decision that needs timetables is made here, at build
 * time, and a rebuild applies the timetables known then).
 *
 * The rule. Let a sighting without serviceDate fall on calendar day C. For a number N of the
 * sighting, take the timetable in force for N on day C-1: when its run ends after midnight
 * (midnight(C-1) + endOffset > midnight(C)) and the sighting is no later than that arrival plus
 * LATE_ARRIVAL_SLACK_SECONDS, and N's own run of day C has not begun yet (no timetable in force
 * for N on C, or the sighting is before midnight(C) + its startOffset), the sighting belongs to
 * service day C-1. One such number of a paired run is enough. Every other sighting belongs to
 * its stored day; a sighting with serviceDate stays where it says.
 *
 * So the build of day D counts the sightings stored for D, less those that belong to D-1 by the
 * rule, plus those stored for D+1 that belong to D by it. Examples: a train 23:50 -> 01:10 seen
 * at 00:20 counts for the day it left; a train whose timetable starts at 00:05 seen at 00:20
 * counts for that day (its run of the day before did not cross midnight).
 */

/**
 * How late after its timetabled arrival a cross-midnight train may still be seen and counted
 * for the day it left: 2 hours, well beyond a normal night delay. Later sightings count for the
 * calendar day.
 */
export const LATE_ARRIVAL_SLACK_SECONDS = 2 * 3600;

/**
 * The WITH clause (no trailing comma) that defines, for the service day $1:
 *   in_force(day, train_code, timetable_id, ...) - timetables in force on D-1, D and D+1;
 *   sighting(id, train_codes, emu_id, source, observed_at) - the sightings that count for D.
 * Parameters: $1 the day; `midnights` (int8[]: midnight of D-1, D, D+1, D+2) and `slack` are
 * the numbers of two further parameters, as returned by daySightingsParams.
 */
export function daySightingsSql(midnights: number, slack: number): string {
  const m = (i: number) => `($${midnights}::bigint[])[${i}]`;
  return `
  WITH days AS (
    SELECT * FROM (VALUES ($1::int - 1, ${m(1)}, ${m(2)}), ($1::int, ${m(2)}, ${m(3)}),
                          ($1::int + 1, ${m(3)}, ${m(4)})) AS d(day, midnight, next_midnight)
  ), in_force AS MATERIALIZED (
    SELECT d.day, d.midnight, d.next_midnight, c.train_code, c.timetable_id,
           t.start_offset, t.end_offset
      FROM days d
      JOIN timetable_coverage c ON ${coverageInForceSql('c', 'd.day')}
      JOIN timetables t ON t.id = c.timetable_id
  ), late AS MATERIALIZED (
    -- Runs of D-1 and D that end after their day's midnight, and how late they may be seen.
    SELECT day, train_code, midnight + end_offset + $${slack}::int AS window_end
      FROM in_force
     WHERE day <= $1::int AND midnight + end_offset > next_midnight
  ), own_start AS MATERIALIZED (
    SELECT day, train_code, midnight + start_offset AS run_start
      FROM in_force WHERE day >= $1::int
  ), moved_out AS (
    -- Sightings stored for D that belong to D-1.
    SELECT DISTINCT o.id
      FROM observations o
      CROSS JOIN LATERAL unnest(o.train_codes) AS n(code)
      JOIN late l ON l.day = $1::int - 1 AND l.train_code = n.code
      LEFT JOIN own_start s ON s.day = $1::int AND s.train_code = n.code
     WHERE o.service_day = $1::int AND NOT o.service_date_given
       AND o.observed_at <= (SELECT max(window_end) FROM late WHERE day = $1::int - 1)
       AND o.observed_at <= l.window_end
       AND (s.run_start IS NULL OR o.observed_at < s.run_start)
  ), moved_in AS (
    -- Sightings stored for D+1 that belong to D.
    SELECT DISTINCT ON (o.id) o.id, o.train_codes, o.emu_id, o.source, o.observed_at
      FROM observations o
      CROSS JOIN LATERAL unnest(o.train_codes) AS n(code)
      JOIN late l ON l.day = $1::int AND l.train_code = n.code
      LEFT JOIN own_start s ON s.day = $1::int + 1 AND s.train_code = n.code
     WHERE o.service_day = $1::int + 1 AND NOT o.service_date_given
       AND o.observed_at <= (SELECT max(window_end) FROM late WHERE day = $1::int)
       AND o.observed_at <= l.window_end
       AND (s.run_start IS NULL OR o.observed_at < s.run_start)
     ORDER BY o.id
  ), sighting AS (
    SELECT o.id, o.train_codes, o.emu_id, o.source, o.observed_at
      FROM observations o
     WHERE o.service_day = $1::int AND NOT EXISTS (SELECT 1 FROM moved_out m WHERE m.id = o.id)
    UNION ALL
    SELECT id, train_codes, emu_id, source, observed_at FROM moved_in
  )`;
}

/** The values of daySightingsSql's two parameters for a service day. */
export function daySightingsParams(serviceDay: number): [number[], number] {
  return [
    [-1, 0, 1, 2].map((k) => midnightOfServiceDay(serviceDay + k)),
    LATE_ARRIVAL_SLACK_SECONDS,
  ];
}
