import type { Queryable } from '../db/db.js';
import { midnightOfServiceDay } from '../time/service-day.js';
import type { ObservedLink } from './inference-rule.js';

export interface ObservedWindow {
  links: ObservedLink[];
  /** Runs in the window (one train, paired numbers counted once, by one EMU on one day). */
  runs: number;
  /** Runs placed by their first sighting's time of day because they had no timetable. */
  runsOrderedBySighting: number;
}

/**
 * Paired numbers learnt from the window's sightings, for runs without a timetable: a sighting
 * written G4340/37 names both numbers of one run. Each number takes the pair it was seen in most
 * often, and a pair counts only when every number in it chose it.
 */
const LEARN_PAIRS = `
  INSERT INTO circulation_pairs (code, node_key)
  WITH votes AS (
    SELECT train_codes AS codes, count(*) AS n
      FROM observations
     WHERE service_day BETWEEN $1 AND $2 AND cardinality(train_codes) > 1
     GROUP BY train_codes
  ), choice AS (
    SELECT DISTINCT ON (code) code, codes
      FROM votes, unnest(codes) AS code
     ORDER BY code, n DESC, codes
  )
  SELECT c.code, array_to_string(c.codes, '/')
    FROM choice c
   WHERE NOT EXISTS (SELECT 1 FROM choice o WHERE o.code = ANY (c.codes) AND o.codes <> c.codes)`;

/**
 * One row per run. Its node key is every number it carries, in running order, joined by '/':
 * the timetable's all_codes, else a learnt pair, else the record's number; records of one EMU
 * and day with the same key are one run. `at` orders the runs of a day: the timetable's start in
 * seconds from the day's midnight, else the first sighting's. A record whose sightings all fall
 * in the small hours before its timetable's after-midnight arrival is the evening train of the
 * day before, seen after midnight: it goes first (start - 1 day) and merges with that train.
 */
const BUILD_RUNS = `
  INSERT INTO circulation_run_rows (emu_id, service_day, node_key, at, by_sighting)
  SELECT d.emu_id, d.service_day, k.node_key, min(k.at), bool_and(k.by_sighting)
    FROM daily_records d
    JOIN unnest($3::int[], $4::bigint[]) AS m(day, midnight) ON m.day = d.service_day
    LEFT JOIN timetables t ON t.id = d.timetable_id
    LEFT JOIN circulation_pairs p ON p.code = d.train_code
   CROSS JOIN LATERAL (
     SELECT COALESCE(array_to_string(t.all_codes, '/'), p.node_key, d.train_code) AS node_key,
            CASE WHEN t.id IS NULL THEN d.first_observed_at - m.midnight
                 WHEN t.end_offset > 86400 AND d.last_observed_at - m.midnight < t.end_offset - 86400
                   THEN t.start_offset - 86400
                 ELSE t.start_offset END AS at,
            t.id IS NULL AS by_sighting
   ) k
   WHERE d.service_day BETWEEN $1 AND $2
   GROUP BY d.emu_id, d.service_day, k.node_key`;

/**
 * Every link seen, with support (distinct service days of its first run) and the totals of
 * both its ends. Runs are taken per EMU in order; a run repeating the EMU's previous node on
 * the next day (a train seen both sides of midnight) is dropped before pairing.
 */
const SELECT_LINKS = `
  WITH sequenced AS (
    SELECT emu_id, service_day, node_key, at,
           lag(node_key) OVER w AS prev_key, lag(service_day) OVER w AS prev_day
      FROM circulation_run_rows
    WINDOW w AS (PARTITION BY emu_id ORDER BY service_day, at, node_key)
  ), steps AS (
    SELECT node_key AS a, service_day AS day,
           lead(node_key) OVER w AS b, lead(service_day) OVER w AS next_day
      FROM sequenced
     WHERE prev_key IS DISTINCT FROM node_key OR prev_day <> service_day - 1
    WINDOW w AS (PARTITION BY emu_id ORDER BY service_day, at, node_key)
  ), links AS (
    SELECT a, b, count(DISTINCT day)::int AS support
      FROM steps
     WHERE b IS NOT NULL AND next_day - day <= 1
     GROUP BY a, b
  )
  SELECT a, b, support,
         (sum(support) OVER (PARTITION BY a))::int AS out_total,
         (sum(support) OVER (PARTITION BY b))::int AS in_total
    FROM links`;

/**
 * Reads the window's daily records and returns every link seen between consecutive runs of one
 * EMU, with its counts (see InferenceRule). Runs in the caller's transaction: its temporary
 * tables are dropped at commit.
 */
export async function observeLinks(
  tx: Queryable,
  windowStart: number,
  windowEnd: number,
): Promise<ObservedWindow> {
  const days: number[] = [];
  const midnights: number[] = [];
  for (let d = windowStart; d <= windowEnd; d++) {
    days.push(d);
    midnights.push(midnightOfServiceDay(d));
  }
  await tx.query(
    `CREATE TEMP TABLE circulation_pairs (code text PRIMARY KEY, node_key text NOT NULL) ON COMMIT DROP`,
  );
  await tx.query(
    `CREATE TEMP TABLE circulation_run_rows (
       emu_id integer NOT NULL, service_day integer NOT NULL, node_key text NOT NULL,
       at bigint NOT NULL, by_sighting boolean NOT NULL
     ) ON COMMIT DROP`,
  );
  await tx.query(LEARN_PAIRS, [windowStart, windowEnd]);
  await tx.query(BUILD_RUNS, [windowStart, windowEnd, days, midnights]);
  const counts = await tx.query<{ runs: number; by_sighting: number }>(
    `SELECT count(*)::int AS runs, (count(*) FILTER (WHERE by_sighting))::int AS by_sighting
       FROM circulation_run_rows`,
  );
  const rows = await tx.query<{
    a: string;
    b: string;
    support: number;
    out_total: number;
    in_total: number;
  }>(SELECT_LINKS);
  return {
    links: rows.rows.map((r) => ({
      from: r.a,
      to: r.b,
      support: r.support,
      outTotal: r.out_total,
      inTotal: r.in_total,
    })),
    runs: counts.rows[0]!.runs,
    runsOrderedBySighting: counts.rows[0]!.by_sighting,
  };
}
