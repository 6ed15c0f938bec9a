import { countedEmuIdSql, notRetractedSql } from '../corrections/counted-sightings.js';
import type { Queryable } from '../../shared/db/db.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';
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
 * rule, plus those stored for D+1 that belong to D by it: movedSightings finds the two small
 * sets (only the first hours of D and D+1 are read), and daySightingsSql is the day's sightings
 * with them applied, a plain scan the planner can run in parallel. Examples: a train 23:50 ->
 * 01:10 seen at 00:20 counts for the day it left; a train whose timetable starts at 00:05 seen
 * at 00:20 counts for that day (its run of the day before did not cross midnight).
 */

/**
 * How late after its timetabled arrival a cross-midnight train may still be seen and counted
 * for the day it left: 2 hours, well beyond a normal night delay. Later sightings count for the
 * calendar day.
 */
export const LATE_ARRIVAL_SLACK_SECONDS = 2 * 3600;

/**
 * The sightings stored for day + 1 that the rule gives to `day` (an SQL expression), given the
 * late and own_start sets. Only the first hours of day + 1 are read (an index range).
 */
function movedFrom(day: string): string {
  // The first hours of day + 1 are read once (one index range up to the latest window) and
  // joined to the late numbers by hash, rather than read again for each late number.
  return `(
       WITH early AS MATERIALIZED (
         SELECT o.id, o.observed_at, n.code
           FROM observations o
           CROSS JOIN LATERAL unnest(o.train_codes) AS n(code)
          WHERE o.service_day = ${day} + 1
            AND o.observed_at <= (SELECT max(window_end) FROM late WHERE day = ${day})
            AND NOT o.service_date_given
       )
       SELECT DISTINCT ${day} AS day, e.id
         FROM early e
         JOIN late l ON l.day = ${day} AND l.train_code = e.code
         LEFT JOIN own_start s ON s.day = ${day} + 1 AND s.train_code = e.code
        WHERE e.observed_at <= l.window_end
          AND (s.run_start IS NULL OR e.observed_at < s.run_start))`;
}

/** Sightings stored for a day that another day counts, and stored for another that it counts. */
export interface MovedSightings {
  /** Observation ids stored for D that belong to D-1. */
  out: number[];
  /** Observation ids stored for D+1 that belong to D. */
  in: number[];
}

/**
 * The sightings the rule moves across the ends of service day `serviceDay`, from the timetables
 * in force now. Only timetables that can cross midnight are looked at (an arrival offset over 23
 * hours, the shortest day a summer-time change makes) and only the first hours of a day are read,
 * so the cost stays with the few late trains.
 */
export async function movedSightings(db: Queryable, serviceDay: number): Promise<MovedSightings> {
  const midnights = [-1, 0, 1, 2].map((k) => midnightOfServiceDay(serviceDay + k));
  const r = await db.query<{ direction: 'out' | 'in'; ids: number[] }>(
    `WITH days AS (
       SELECT * FROM (VALUES ($1::int - 1, $2::bigint, $3::bigint), ($1::int, $3, $4),
                             ($1::int + 1, $4, $5)) AS d(day, midnight, next_midnight)
     ), late_run AS MATERIALIZED (
       -- Coverage rows of timetables that can cross midnight, read once for both days: a join
       -- of the few such timetables to the coverage, not of every coverage row to both days.
       SELECT c.train_code, c.service_day_start, c.service_day_end_exclusive, t.end_offset
         FROM timetables t
         JOIN timetable_coverage c ON c.timetable_id = t.id
        WHERE t.end_offset > 23 * 3600
     ), late AS MATERIALIZED (
       -- Numbers whose run of D-1 or of D ends after that day's midnight, and how late they may be seen.
       SELECT d.day, c.train_code, d.midnight + c.end_offset + $6::int AS window_end
         FROM late_run c
         JOIN days d ON d.day <= $1::int AND ${coverageInForceSql('c', 'd.day')}
        WHERE d.midnight + c.end_offset > d.next_midnight
     ), own_start AS MATERIALIZED (
       -- When those numbers' own runs of the next day begin.
       SELECT d.day, c.train_code, d.midnight + t.start_offset AS run_start
         FROM late l
         JOIN days d ON d.day = l.day + 1
         JOIN timetable_coverage c ON c.train_code = l.train_code AND ${coverageInForceSql('c', 'd.day')}
         JOIN timetables t ON t.id = c.timetable_id
     ), moved AS (
       -- Sightings without serviceDate stored for day + 1 that belong to day (day = D-1, D).
       ${[-1, 0].map((k) => movedFrom(`$1::int + ${k}`)).join(' UNION ALL ')}
     )
     SELECT CASE WHEN day = $1::int THEN 'in' ELSE 'out' END AS direction,
            array_agg(id ORDER BY id) AS ids
       FROM moved GROUP BY day`,
    [serviceDay, ...midnights, LATE_ARRIVAL_SLACK_SECONDS],
  );
  const moved: MovedSightings = { out: [], in: [] };
  for (const row of r.rows) moved[row.direction] = row.ids.map(Number);
  return moved;
}

/**
 * Which corrections a day's sightings are read through: whether any retraction of a sighting
 * stored for the day or the next one is in force, and whether any merge is. A build reads them
 * with its inputs (day-build-inputs.ts) and leaves out the joins that cannot match: a correction
 * committed after that read marks the day stale in its own transaction (apply-corrections.ts),
 * later than the mark the build read, so the day is built again with it.
 */
export interface CorrectionsInForce {
  retractions: boolean;
  merges: boolean;
}

/** Both joins: what a reader that did not look for corrections must use. */
export const ANY_CORRECTIONS: CorrectionsInForce = { retractions: true, merges: true };

/**
 * The sightings that count for service day $1, as a subquery (id, train_codes, emu_id, source,
 * observed_at, position, fault, spare): those stored for it but not in `out`, and those in `in`
 * (movedSightings), read through the corrections in force (src/domain/corrections): a retracted sighting
 * counts nowhere, and one of a unit merged into another counts for that unit (emu_id is the unit
 * it counts for).
 * `out` and `in` are the numbers of two int8[] parameters. With `corrections` saying there is no
 * retraction or no merge, the anti-join or the join is left out: on a day's 60,000 sightings each
 * costs a hash probe per row for tables that are nearly always empty.
 */
export function daySightingsSql(
  out: number,
  into: number,
  corrections: CorrectionsInForce = ANY_CORRECTIONS,
): string {
  const branch = (where: string) => `
    SELECT o.id, o.train_codes, ${corrections.merges ? countedEmuIdSql('o', 'm') : 'o.emu_id'} AS emu_id,
           o.source, o.observed_at, o.position, o.fault, o.spare
      FROM observations o${corrections.merges ? '\n      LEFT JOIN emu_merges m ON m.from_emu_id = o.emu_id' : ''}
     WHERE ${where}${corrections.retractions ? ` AND ${notRetractedSql('o')}` : ''}`;
  return `(${branch(`o.service_day = $1::int AND o.id <> ALL ($${out}::bigint[])`)}
    UNION ALL${branch(`o.id = ANY ($${into}::bigint[])`)}
  )`;
}
