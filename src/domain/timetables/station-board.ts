import type { Queryable } from '../../shared/db/db.js';
import { readDataVersion, readDataVersions } from '../../shared/cache/data-versions.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * A station's board for one service day: every timetable in force that day (for any of its
 * numbers) with a stop at the station, one entry per timetable (a paired run is one train; a
 * train calling twice is listed at its first call). Ordered by the time at the station, the
 * arrival, or the departure for a train that starts there, then by timetableId.
 *
 * Paging is by keyset: an entry is named by its timetableId, and the next page starts after that
 * timetable's (time at the station, timetableId). A timetable's content never changes, so the
 * key of a cursor stays valid even when the coverage changes between two pages. A board is a few
 * hundred entries: it is read whole (stationBoard) and paged in memory (stationBoardPage), so
 * that it can be kept while the coverage does not change (timetableChangeVersion). It is read in
 * two parts: which timetables are in force (stationTimetables, what the coverage decides) and
 * what each shows at the station (stationCalls, which never changes and can be kept apart).
 */
export interface StationBoardEntry {
  timetableId: number;
  /** Seconds from the service day's midnight at the station: the arrival, else the departure. */
  at: number;
  /** The timetable's own number. */
  trainCode: string;
  /** The number the train carries at this station, when the timetable says. */
  stationTrainCode: string | null;
  allCodes: string[];
  startStation: string;
  endStation: string;
  arriveOffset: number | null;
  departOffset: number | null;
  platformNo: number | null;
  /** Unix seconds when the timetable's content was first stored. */
  storedAt: number;
}

// $1 station, $2 service day: the ids of the timetables in force on the day (for any of their
// numbers) that stop at the station; a timetable calling twice is named twice. The station's
// stops (index-only, on station_name) meet the coverage in force on the day: through the stored
// range of migration 004 (the same days as coverageInForceSql, [start, end) with a NULL end
// unbounded), which the planner reads either as a hash of the day's coverage or, row by row,
// from the coverage index that carries the days (migration 015).
export const STATION_TIMETABLES_SQL = `
  SELECT coalesce(array_agg(s.timetable_id), '{}') AS ids
    FROM timetable_stops s
   WHERE s.station_name = $1
     AND EXISTS (SELECT 1 FROM timetable_coverage c
                  WHERE c.timetable_id = s.timetable_id AND c.service_days @> $2::int)`;

// $1 station, $2 timetable ids: each timetable's first call at the station with what the board
// shows of the timetable, in no order. The timetables are read by id (OFFSET 0 keeps the planner
// from turning the lateral join into a scan of every timetable). The entries come back as one
// JSON text, an array per entry: node parses one string (JSON.parse, native) instead of decoding
// 600 rows of eleven columns and an array each, which was most of a board read afresh.
export const STATION_CALLS_SQL = `
  WITH board AS (
    SELECT DISTINCT ON (s.timetable_id)
           s.timetable_id, coalesce(s.arrive_offset, s.depart_offset) AS at, s.arrive_offset,
           s.depart_offset, s.station_train_code, s.platform_no
      FROM timetable_stops s
     WHERE s.station_name = $1 AND s.timetable_id = ANY ($2::int[])
     ORDER BY s.timetable_id, s.station_no
  )
  SELECT coalesce(json_agg(json_build_array(
           b.timetable_id, b.at, b.arrive_offset, b.depart_offset, b.station_train_code,
           b.platform_no, t.train_code, t.all_codes, t.start_station, t.end_station, t.stored_at)),
           '[]')::text AS calls
    FROM board b CROSS JOIN LATERAL (
           SELECT train_code, all_codes, start_station, end_station,
                  floor(extract(epoch FROM created_at))::bigint AS stored_at
             FROM timetables WHERE id = b.timetable_id OFFSET 0) t`;

/** One entry as STATION_CALLS_SQL gives it. */
type CallTuple = [
  timetableId: number,
  at: number,
  arriveOffset: number | null,
  departOffset: number | null,
  stationTrainCode: string | null,
  platformNo: number | null,
  trainCode: string,
  allCodes: string[],
  startStation: string,
  endStation: string,
  storedAt: number,
];

/**
 * The ids of the timetables in force on a service day that stop at the station, each once, in
 * no order. This is all of a board that depends on the coverage: what a timetable shows at a
 * station (stationCalls) never changes, since a timetable's content and stops are stored once
 * with it and never written again.
 */
export async function stationTimetables(
  db: Queryable,
  stationName: string,
  serviceDay: number,
): Promise<number[]> {
  const r = await db.query<{ ids: number[] }>(STATION_TIMETABLES_SQL, [stationName, serviceDay]);
  return [...new Set(r.rows[0]?.ids ?? [])];
}

/**
 * The board entries of the given timetables at the station (their first call there), in no
 * order; a timetable that does not stop there has none. An entry depends on nothing but its
 * timetable, so it can be kept for as long as one likes (station-board-cache.ts).
 */
export async function stationCalls(
  db: Queryable,
  stationName: string,
  timetableIds: readonly number[],
): Promise<StationBoardEntry[]> {
  if (timetableIds.length === 0) return [];
  const r = await db.query<{ calls: string }>(STATION_CALLS_SQL, [stationName, timetableIds]);
  const tuples = JSON.parse(r.rows[0]?.calls ?? '[]') as CallTuple[];
  return tuples.map((b) => ({
    timetableId: b[0],
    at: b[1],
    trainCode: b[6],
    stationTrainCode: b[4],
    allCodes: b[7],
    startStation: b[8],
    endStation: b[9],
    arriveOffset: b[2],
    departOffset: b[3],
    platformNo: b[5],
    storedAt: Number(b[10]),
  }));
}

/** Entries in board order: by the time at the station, then by timetableId. Sorts in place. */
export function inBoardOrder(entries: StationBoardEntry[]): StationBoardEntry[] {
  return entries.sort((a, b) => a.at - b.at || a.timetableId - b.timetableId);
}

/** A station's whole board on a service day, in board order (see StationBoardEntry). */
export async function stationBoard(
  db: Queryable,
  stationName: string,
  serviceDay: number,
): Promise<StationBoardEntry[]> {
  const ids = await stationTimetables(db, stationName, serviceDay);
  return inBoardOrder(await stationCalls(db, stationName, ids));
}

/** Thrown when a cursor names a timetable that has no stop at the station. */
export class StationCursorError extends EmutrackError {
  constructor(
    readonly stationName: string,
    readonly timetableId: number,
  ) {
    super('station_cursor_invalid', `timetable ${timetableId} does not stop at ${stationName}`);
  }
}

/**
 * One page of a board (from stationBoard) and whether more entries follow. `after` is the
 * timetableId of the previous page's last entry (from the cursor); absent = first page. When that
 * timetable is no longer on the board (a new version came in between two pages), its time at the
 * station is read from its stops; a timetable that never stopped there is a StationCursorError.
 */
export async function stationBoardPage(
  db: Queryable,
  board: readonly StationBoardEntry[],
  stationName: string,
  limit: number,
  after?: number,
): Promise<{ entries: StationBoardEntry[]; more: boolean }> {
  let start = 0;
  if (after !== undefined) {
    const at =
      board.find((e) => e.timetableId === after)?.at ??
      (await stationCallTime(db, stationName, after));
    if (at === undefined) throw new StationCursorError(stationName, after);
    while (
      start < board.length &&
      (board[start]!.at < at || (board[start]!.at === at && board[start]!.timetableId <= after))
    ) {
      start++;
    }
  }
  return { entries: board.slice(start, start + limit), more: start + limit < board.length };
}

/** The time at the station (arrival, else departure) of a timetable's first call there. */
async function stationCallTime(
  db: Queryable,
  stationName: string,
  timetableId: number,
): Promise<number | undefined> {
  const r = await db.query<{ at: number }>(
    `SELECT coalesce(arrive_offset, depart_offset) AS at FROM timetable_stops
      WHERE timetable_id = $1 AND station_name = $2 ORDER BY station_no LIMIT 1`,
    [timetableId, stationName],
  );
  return r.rows[0]?.at;
}

/**
 * A number that changes whenever timetable coverage does (data version 'timetables', moved by
 * the trigger on timetable_coverage, migration 028): a board built while it read N is
 * still right while it reads N. New timetables always come with coverage, and contents never
 * change, so coverage is all a board depends on.
 */
export async function timetableChangeVersion(db: Queryable): Promise<number> {
  return readDataVersion(db, { name: 'timetables' });
}

/**
 * What a board page shows depends on two versions: timetableChangeVersion (the coverage) and
 * that of trains' reference models (data version 'reference_models', moved by the trigger on
 * train_reference_models, migration 028). Both read in one statement.
 */
export async function stationBoardVersions(
  db: Queryable,
): Promise<{ timetables: number; referenceModels: number }> {
  const v = await readDataVersions(db, ['timetables:0', 'reference_models:0']);
  return {
    timetables: v.get('timetables:0') ?? 0,
    referenceModels: v.get('reference_models:0') ?? 0,
  };
}

/** Whether any timetable, of any day, stops at the station. */
export async function stationKnown(db: Queryable, stationName: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM timetable_stops WHERE station_name = $1 LIMIT 1', [
    stationName,
  ]);
  return r.rows.length > 0;
}
