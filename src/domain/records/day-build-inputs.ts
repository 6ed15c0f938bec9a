import { createHash } from 'node:crypto';
import { correctionsDigestSql } from '../corrections/counted-sightings.js';
import type { Queryable } from '../../shared/db/db.js';
import type { ConflictRule } from './build-daily-records.js';
import type { CorrectionsInForce, MovedSightings } from './day-sightings.js';

/**
 * Bumped when the build's logic changes what the same inputs give, so that every day is built
 * again once after such a change instead of being skipped as unchanged.
 */
export const BUILD_LOGIC_VERSION = 1;

/** What a day's stored build state says about its last build. */
export interface DayBuildState {
  version: number;
  /** The digest of dayBuildInputs, a space, and the number of records the build left. */
  inputs: string;
}

/** The sources of a day whose trust is not 1, and their trusts (sources.trust), in name order. */
export interface SourceWeights {
  names: string[];
  trusts: number[];
}

/**
 * A digest of everything a day's records are computed from, read inside the build's
 * transaction:
 *   - the sightings stored for the day: observations are append-only (a trigger refuses
 *     UPDATE and DELETE), so their count names the set;
 *   - the sightings moved across its midnights (movedSightings: ids, exact);
 *   - the timetable in force on the day for every number (which record gets which
 *     timetable_id): the coverage rows in force on the day, by id (a row keeps its number and,
 *     while in force on a day, its timetable), read through the GiST index on coverage days;
 *   - the corrections in force that can touch it (counted-sightings.ts: retractions of its
 *     sightings and the next day's, every unit merge);
 *   - the conflict rule and BUILD_LOGIC_VERSION;
 *   - the trust of each of its sources whose trust is not 1 (`weights`: a source's weight in
 *     the rule), so that a source added again with another trust does not leave its days as
 *     they were built.
 * Two builds with the same digest write the same records, so the second can be skipped.
 * Read in the same statement (one round trip): the day's stored build state, the number of its
 * records as they stand (`records`), and the distinct sources of the sightings the day counts, in
 * order (`sources`, for the rule: build-daily-records.ts), and which corrections can touch the
 * day's sightings (`corrections`, for the rule's read: day-sightings.ts). The stored sightings
 * are counted by source, which costs what counting them does; the list may name a source only a
 * sighting moved out had (it does not change what the rule gives).
 */
export async function dayBuildInputs(
  tx: Queryable,
  serviceDay: number,
  moved: MovedSightings,
  rule: ConflictRule,
): Promise<{
  inputs: string;
  stored: number;
  sources: string[];
  weights: SourceWeights;
  records: number;
  corrections: CorrectionsInForce;
  state?: DayBuildState;
}> {
  const r = await tx.query<{
    stored: number;
    sources: string[] | null;
    weighted: string[] | null;
    trusts: number[] | null;
    coverage: string | null;
    corrections: string;
    records: number;
    retractions: boolean;
    merges: boolean;
    version: string | null;
    last_inputs: string | null;
  }>(
    `WITH stored AS MATERIALIZED (
       SELECT source, count(*)::int AS n FROM observations WHERE service_day = $1 GROUP BY source
     )
     SELECT (SELECT coalesce(sum(n), 0)::int FROM stored) AS stored,
            (SELECT array_agg(source ORDER BY source)
               FROM (SELECT source FROM stored
                     UNION SELECT source FROM observations WHERE id = ANY ($2::bigint[])) AS s
            ) AS sources,
            w.weighted, w.trusts,
            (SELECT md5(string_agg(id || ':' || timetable_id, ',' ORDER BY id))
               FROM timetable_coverage WHERE service_days @> $1::int) AS coverage,
            ${correctionsDigestSql('$1::int')} AS corrections,
            (SELECT count(*)::int FROM daily_records WHERE service_day = $1) AS records,
            EXISTS (SELECT 1 FROM retracted_observations
                     WHERE service_day BETWEEN $1::int AND $1::int + 1) AS retractions,
            EXISTS (SELECT 1 FROM emu_merges) AS merges,
            b.version, b.inputs AS last_inputs
       FROM (SELECT) AS one
       LEFT JOIN daily_record_builds b ON b.service_day = $1
       -- The day's sources whose trust is not 1 (few, usually none): weights for the rule.
       CROSS JOIN LATERAL (
         SELECT array_agg(t.name ORDER BY t.name) AS weighted,
                array_agg(t.trust ORDER BY t.name) AS trusts
           FROM sources t
          WHERE t.trust <> 1
            AND t.name IN (SELECT source FROM stored
                           UNION SELECT source FROM observations WHERE id = ANY ($2::bigint[]))
       ) AS w`,
    [serviceDay, moved.in],
  );
  const { stored, sources, coverage, corrections, records, retractions, merges } = r.rows[0]!;
  const { version, last_inputs } = r.rows[0]!;
  const hash = createHash('sha256');
  hash.update(`logic ${BUILD_LOGIC_VERSION}\nrule ${JSON.stringify(rule)}\n`);
  hash.update(`stored ${stored}\nout ${moved.out.join(',')}\nin ${moved.in.join(',')}\n`);
  hash.update(`coverage ${coverage ?? ''}\n`);
  hash.update(`corrections ${corrections}\n`);
  // Only a day with a source of another trust than 1 says so: the other days' inputs, and so
  // their last builds, stay what they were.
  const weights: SourceWeights = {
    names: r.rows[0]!.weighted ?? [],
    trusts: r.rows[0]!.trusts ?? [],
  };
  if (weights.names.length > 0)
    hash.update(`trust ${weights.names.map((n, i) => `${n}=${weights.trusts[i]}`).join(',')}\n`);
  const state =
    version === null ? undefined : { version: Number(version), inputs: last_inputs ?? '' };
  return {
    inputs: hash.digest('hex'),
    stored,
    sources: sources ?? [],
    weights,
    records,
    corrections: { retractions, merges },
    ...(state ? { state } : {}),
  };
}

/** The day's build state, or undefined for a day never built since migration 011. */
export async function readDayBuildState(
  db: Queryable,
  serviceDay: number,
): Promise<DayBuildState | undefined> {
  const r = await db.query<{ version: string; inputs: string }>(
    'SELECT version, inputs FROM daily_record_builds WHERE service_day = $1',
    [serviceDay],
  );
  const row = r.rows[0];
  return row ? { version: Number(row.version), inputs: row.inputs } : undefined;
}

/**
 * Stores what this build read and, when it changed the day's records, the next version, in the
 * build's transaction: a reader sees the new version exactly when it sees the new records. A day
 * first built here without a change keeps version 0, the version readers assume for a day with
 * no row. Returns the day's version after the build.
 */
export async function saveDayBuildState(
  tx: Queryable,
  serviceDay: number,
  inputs: string,
  changed: boolean,
): Promise<number> {
  const r = await tx.query<{ version: string }>(
    `INSERT INTO daily_record_builds AS b (service_day, version, inputs)
     VALUES ($1, $2, $3)
     ON CONFLICT (service_day) DO UPDATE
        SET version = b.version + $2, inputs = excluded.inputs, built_at = now(),
            changed_at = CASE WHEN $2 > 0 THEN now() ELSE b.changed_at END
     RETURNING version`,
    [serviceDay, changed ? 1 : 0, inputs],
  );
  return Number(r.rows[0]!.version);
}
