import type { Queryable } from '../../shared/db/db.js';
import {
  midnightOfServiceDay,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../shared/time/service-day.js';
import {
  mergedEmuHistoryPage,
  trainHistoryPage,
  type HistoryRecord,
} from '../history/read-history.js';
import { stationTimetables } from '../timetables/station-board.js';
import { timetableInForce } from '../timetables/timetable-lookup.js';
import type { Favourite } from './favourites-store.js';

/**
 * Today's status of each favourite (the Shanghai service day of `nowMs`), read through the
 * domain readers the train, unit and station pages use:
 * - a train: the units that ran it today, else whether it was due today (its timetable in force)
 *   and has left without a unit seen (`missing`) or not left yet (`expected`), or is not due
 *   (`not_running`); with the latest day it was seen and its units;
 * - a unit: the trains it ran today (`seen`, else `not_seen`) and the latest day it was seen;
 * - a station: how many trains stop there today (its board's size, nothing more).
 */
export type FavouriteStatus =
  | {
      kind: 'train';
      code: string;
      addedAt: Date;
      status: 'seen' | 'expected' | 'missing' | 'not_running';
      units: string[];
      latest?: { date: string; units: string[] };
    }
  | {
      kind: 'emu';
      code: string;
      addedAt: Date;
      status: 'seen' | 'not_seen';
      trains: string[];
      latest?: { date: string; trains: string[] };
    }
  | { kind: 'station'; code: string; addedAt: Date; trainsToday: number };

/** Records read to find a train's or unit's latest day (more than one day's can be). */
const NEWEST_RECORDS = 40;

/** The records of the newest day among `records` (newest first), oldest first. */
function newestDay(records: readonly HistoryRecord[]): HistoryRecord[] {
  const day = records[0]?.serviceDay;
  return records.filter((r) => r.serviceDay === day).reverse();
}

async function unitCodes(db: Queryable, emuIds: readonly number[]): Promise<Map<number, string>> {
  if (emuIds.length === 0) return new Map();
  const r = await db.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
    [[...new Set(emuIds)]],
  );
  return new Map(r.rows.map((row) => [Number(row.id), row.code]));
}

async function trainStatus(
  db: Queryable,
  favourite: Favourite,
  today: number,
  nowSeconds: number,
): Promise<FavouriteStatus> {
  const [{ records }, timetable] = await Promise.all([
    trainHistoryPage(db, favourite.code, { toDay: today, limit: NEWEST_RECORDS }),
    timetableInForce(db, favourite.code, today),
  ]);
  const latestRecords = newestDay(records);
  const codes = await unitCodes(
    db,
    latestRecords.map((r) => r.emuId),
  );
  const units = latestRecords.map((r) => codes.get(r.emuId) ?? String(r.emuId));
  const seenToday = latestRecords[0]?.serviceDay === today;
  const left =
    timetable !== undefined && midnightOfServiceDay(today) + timetable.startOffset <= nowSeconds;
  const status = seenToday
    ? 'seen'
    : timetable === undefined
      ? 'not_running'
      : left
        ? 'missing'
        : 'expected';
  return {
    kind: 'train',
    code: favourite.code,
    addedAt: favourite.createdAt,
    status,
    units: seenToday ? units : [],
    ...(latestRecords.length > 0
      ? { latest: { date: ymdOfServiceDay(latestRecords[0]!.serviceDay), units } }
      : {}),
  };
}

async function unitStatus(
  db: Queryable,
  favourite: Favourite,
  today: number,
): Promise<FavouriteStatus> {
  const r = await db.query<{ id: number }>('SELECT id FROM emus WHERE code = $1', [favourite.code]);
  const id = r.rows[0]?.id;
  const records =
    id === undefined
      ? []
      : (
          await mergedEmuHistoryPage(db, Number(id), {
            toDay: today,
            limit: NEWEST_RECORDS,
          })
        ).records;
  const latestRecords = newestDay(records);
  const trains = latestRecords.map((rec) => rec.trainCode);
  const seenToday = latestRecords[0]?.serviceDay === today;
  return {
    kind: 'emu',
    code: favourite.code,
    addedAt: favourite.createdAt,
    status: seenToday ? 'seen' : 'not_seen',
    trains: seenToday ? trains : [],
    ...(latestRecords.length > 0
      ? { latest: { date: ymdOfServiceDay(latestRecords[0]!.serviceDay), trains } }
      : {}),
  };
}

/** Today's status of each favourite, in the order given. */
export async function favouriteStatuses(
  db: Queryable,
  favourites: readonly Favourite[],
  nowMs: number,
): Promise<FavouriteStatus[]> {
  const nowSeconds = Math.floor(nowMs / 1000);
  const today = serviceDayOf(nowSeconds);
  return Promise.all(
    favourites.map(async (f): Promise<FavouriteStatus> => {
      if (f.kind === 'train') return trainStatus(db, f, today, nowSeconds);
      if (f.kind === 'emu') return unitStatus(db, f, today);
      const ids = await stationTimetables(db, f.code, today);
      return { kind: 'station', code: f.code, addedAt: f.createdAt, trainsToday: ids.length };
    }),
  );
}
