import type { Queryable } from '../../shared/db/db.js';
import { normalizeTrainCode } from '../trains/train-code.js';
import { coverageInForceSql, timetableInForce, type TimetableInForce } from './timetable-lookup.js';

/** Past this many numbers in force on a day, the day is not read whole: trains are read one by one. */
const WHOLE_DAY_MAX_ROWS = 200_000;

/**
 * Which timetable is in force for each train number on a service day (timetableInForce), kept
 * for one day at a time while the timetables do not change: the caller passes the version it
 * read first (data version 'timetables'), and a new version, or another day, drops what is
 * kept. The day is read whole once (one query: a row per number in force, some ten thousand on
 * this network), so that a page of a train never asked for before costs no query for it. A day
 * of more than WHOLE_DAY_MAX_ROWS numbers is not kept: its trains are read one by one.
 */
export class TimetablesInForceCache {
  private kept:
    { version: string; serviceDay: number; byCode?: Map<string, TimetableInForce> } | undefined;
  private reading: { key: string; read: Promise<void> } | undefined;

  constructor(private readonly db: Queryable) {}

  /** The timetable in force for `trainCode` on `serviceDay`, as timetableInForce answers. */
  async inForce(
    trainCode: string,
    serviceDay: number,
    version: string,
  ): Promise<TimetableInForce | undefined> {
    const code = normalizeTrainCode(trainCode);
    let kept = this.kept;
    if (kept?.version !== version || kept.serviceDay !== serviceDay) {
      await this.readDay(serviceDay, version);
      kept = this.kept;
    }
    if (kept?.version === version && kept.serviceDay === serviceDay && kept.byCode) {
      return kept.byCode.get(code);
    }
    return timetableInForce(this.db, code, serviceDay);
  }

  /** Reads the day whole, once for the requests that ask for it at once. */
  private async readDay(serviceDay: number, version: string): Promise<void> {
    const key = `${version}\u0000${serviceDay}`;
    if (this.reading?.key !== key) {
      const read = this.readWhole(serviceDay, version).finally(() => {
        if (this.reading?.read === read) this.reading = undefined;
      });
      this.reading = { key, read };
    }
    await this.reading.read;
  }

  private async readWhole(serviceDay: number, version: string): Promise<void> {
    // The row timetableInForce picks for each number: the coverage that started last.
    const r = await this.db.query<TimetableInForce>(
      `SELECT DISTINCT ON (c.train_code)
              c.train_code AS "trainCode", t.id AS "timetableId",
              t.train_code AS "timetableTrainCode", t.all_codes AS "allCodes",
              t.start_station AS "startStation", t.end_station AS "endStation",
              t.start_offset AS "startOffset", t.end_offset AS "endOffset",
              c.id AS "coverageId", c.service_day_start AS "serviceDayStart",
              c.service_day_end_exclusive AS "serviceDayEndExclusive"
         FROM timetable_coverage c JOIN timetables t ON t.id = c.timetable_id
        WHERE ${coverageInForceSql('c', '$1::int')}
        ORDER BY c.train_code, c.service_day_start DESC, c.id DESC
        LIMIT $2`,
      [serviceDay, WHOLE_DAY_MAX_ROWS + 1],
    );
    // Read after the version was read: never older than it. Kept unless too large.
    this.kept =
      r.rows.length > WHOLE_DAY_MAX_ROWS
        ? { version, serviceDay }
        : { version, serviceDay, byCode: new Map(r.rows.map((row) => [row.trainCode, row])) };
  }
}
