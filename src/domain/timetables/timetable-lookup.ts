import type { Queryable } from '../../shared/db/db.js';
import { normalizeTrainCode } from '../trains/train-code.js';

/**
 * The SQL condition "coverage row `c` is in force on service day `day`" (both SQL expressions).
 * The one definition of "in force", shared by the lookups below, the daily build and exports.
 */
export function coverageInForceSql(c: string, day: string): string {
  return `${c}.service_day_start <= ${day} AND (${c}.service_day_end_exclusive IS NULL OR ${c}.service_day_end_exclusive > ${day})`;
}

/** The timetable in force for one train number on one service day, with its coverage row. */
export interface TimetableInForce {
  /** The number asked for, normalised (G4337). */
  trainCode: string;
  timetableId: number;
  /** The timetable's own number: G4340 for G4337 when they are one paired run. */
  timetableTrainCode: string;
  allCodes: string[];
  startStation: string;
  endStation: string;
  /** Seconds from the service day's midnight; may pass 86,400. */
  startOffset: number;
  endOffset: number;
  coverageId: number;
  serviceDayStart: number;
  /** Exclusive; null while the version is open. */
  serviceDayEndExclusive: number | null;
}

/** Each column named as its TimetableInForce field. */
const COLUMNS = `c.train_code AS "trainCode", t.id AS "timetableId",
  t.train_code AS "timetableTrainCode", t.all_codes AS "allCodes", t.start_station AS "startStation",
  t.end_station AS "endStation", t.start_offset AS "startOffset", t.end_offset AS "endOffset",
  c.id AS "coverageId", c.service_day_start AS "serviceDayStart",
  c.service_day_end_exclusive AS "serviceDayEndExclusive"`;

/**
 * The timetable in force for a train number on a service day, or undefined when none is. The
 * number is normalised (g4337 = G4337); a malformed one throws MalformedTrainCodeError.
 */
export async function timetableInForce(
  db: Queryable,
  trainCode: string,
  serviceDay: number,
): Promise<TimetableInForce | undefined> {
  const r = await db.query<TimetableInForce>(
    `SELECT ${COLUMNS}
       FROM timetable_coverage c JOIN timetables t ON t.id = c.timetable_id
      WHERE c.train_code = $1 AND ${coverageInForceSql('c', '$2::int')}
      ORDER BY c.service_day_start DESC, c.id DESC
      LIMIT 1`,
    [normalizeTrainCode(trainCode), serviceDay],
  );
  return r.rows[0];
}

/**
 * Every train number's timetable in force on a service day (or only those of `trainCodes`),
 * by number, in one query.
 */
export async function timetablesInForceOn(
  db: Queryable,
  serviceDay: number,
  trainCodes?: readonly string[],
): Promise<Map<string, TimetableInForce>> {
  const r = await db.query<TimetableInForce>(
    `SELECT ${COLUMNS}
       FROM timetable_coverage c JOIN timetables t ON t.id = c.timetable_id
      WHERE ${coverageInForceSql('c', '$1::int')}
        AND ($2::text[] IS NULL OR c.train_code = ANY ($2::text[]))`,
    [serviceDay, trainCodes ? trainCodes.map(normalizeTrainCode) : null],
  );
  return new Map(r.rows.map((row) => [row.trainCode, row]));
}

/** Every train number with a timetable in force on some day of `from`..`to` (inclusive), sorted. */
export async function trainsInForceBetween(
  db: Queryable,
  from: number,
  to: number,
): Promise<string[]> {
  const r = await db.query<{ train_code: string }>(
    `SELECT DISTINCT c.train_code
       FROM timetable_coverage c
      WHERE c.service_day_start <= $2::int
        AND (c.service_day_end_exclusive IS NULL OR c.service_day_end_exclusive > $1::int)
      ORDER BY 1`,
    [from, to],
  );
  return r.rows.map((row) => row.train_code);
}
