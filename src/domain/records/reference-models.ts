import type { Db } from '../../shared/db/db.js';
import { assertServiceDay } from '../../shared/time/service-day.js';
import { STATUS_CONFIRMED } from './build-daily-records.js';

/**
 * Reference models of a train number (the API's referenceModels): which EMU models ran it over
 * the last days, as weighted shares.
 *
 * "Weighted": every service day of the window on which the number has records counts as one
 * run, whatever the number of units; the day's weight is split equally between its records (a
 * coupled pair of one model gives that model the whole day, a pair of two models half each),
 * and a record the sightings did not confirm (status bit 0x01 clear) counts half. A model's
 * share is its weight over the weight of every model of the number, so one unusual day among
 * fourteen is 1/14, and a day that rests on one unconfirmed report weighs half a confirmed one.
 * Records of units whose model is unknown (empty) are left out. Models under `minShare` are
 * dropped; the shares kept are not rescaled, so they may add up to less than 1.
 */
export interface ReferenceModelOptions {
  /** The last service day of the window (inclusive). */
  windowEnd: number;
  /** Days in the window, windowEnd included. Default 14. */
  windowDays?: number;
  /** Shares below this are dropped. Default 0.3. */
  minShare?: number;
}

export interface ReferenceModelRefresh {
  windowStart: number;
  windowEnd: number;
  /** Train numbers that have reference models now. */
  trains: number;
  /** (train number, model) rows stored. */
  rows: number;
}

/**
 * Replaces train_reference_models with the shares of the window, in one transaction (readers
 * see the old table until it commits). Train numbers without records in the window have none.
 */
export async function refreshReferenceModels(
  db: Db,
  options: ReferenceModelOptions,
): Promise<ReferenceModelRefresh> {
  const windowDays = options.windowDays ?? 14;
  const minShare = options.minShare ?? 0.3;
  assertServiceDay(options.windowEnd);
  if (!Number.isInteger(windowDays) || windowDays < 1)
    throw new RangeError(`windowDays: expected a whole number >= 1, got ${windowDays}`);
  const windowEnd = options.windowEnd;
  const windowStart = windowEnd - windowDays + 1;
  return db.transaction(async (tx) => {
    await tx.query('DELETE FROM train_reference_models');
    const r = await tx.query<{ trains: number; rows: number }>(
      `WITH record AS (
         SELECT d.train_code, e.model,
                (CASE WHEN d.status & ${STATUS_CONFIRMED} <> 0 THEN 1.0 ELSE 0.5 END)
                  / count(*) OVER (PARTITION BY d.train_code, d.service_day) AS weight
           FROM daily_records d JOIN emus e ON e.id = d.emu_id
          WHERE d.service_day BETWEEN $1 AND $2
       ), by_model AS (
         SELECT train_code, model, sum(weight) AS weight
           FROM record WHERE model <> '' GROUP BY train_code, model
       ), share AS (
         SELECT train_code, model, weight / sum(weight) OVER (PARTITION BY train_code) AS share
           FROM by_model
       ), stored AS (
         INSERT INTO train_reference_models (train_code, model, weighted_share, window_start, window_end)
         SELECT train_code, model, share::float8, $1, $2 FROM share WHERE share >= $3
         RETURNING train_code
       )
       SELECT count(DISTINCT train_code)::int AS trains, count(*)::int AS rows FROM stored`,
      [windowStart, windowEnd, minShare],
    );
    return { windowStart, windowEnd, ...r.rows[0]! };
  });
}
