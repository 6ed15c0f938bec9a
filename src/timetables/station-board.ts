import type { Queryable } from '../db/db.js';
import { EmutrackError } from '../errors/emutrack-error.js';

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
 * that it can be kept while the coverage does not change (timetableChangeVersion).
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

// $1 station, $2 service day: the whole board, in board order. The station's stops (index on
// station_name) meet the coverage in force on the day (service_days, the stored range of
// migration 004: the same days as coverageInForceSql, [start, end) with a NULL end unbounded) in
// a hash semi-join; then each train's timetable by its id (OFFSET 0 keeps the planner from
// turning the lateral join into a scan of every timetable). The board comes back as one JSON
// text, an array per entry: node parses one string (JSON.parse, native) instead of decoding 600
// rows of eleven columns and an array each, which was most of a board read afresh.
export const STATION_BOARD_SQL = `
  WITH board AS (
    SELECT DISTINCT ON (s.timetable_id)
           s.timetable_id, coalesce(s.arrive_offset, s.depart_offset) AS at, s.arrive_offset,
           s.depart_offset, s.station_train_code, s.platform_no
      FROM timetable_stops s
     WHERE s.station_name = $1
       AND s.timetable_id IN (SELECT c.timetable_id FROM timetable_coverage c
                               WHERE c.service_days @> $2::int)
     ORDER BY s.timetable_id, s.station_no
  )
  SELECT coalesce(json_agg(json_build_array(
           b.timetable_id, b.at, b.arrive_offset, b.depart_offset, b.station_train_code,
           b.platform_no, t.train_code, t.all_codes, t.start_station, t.end_station, t.stored_at)
           ORDER BY b.at, b.timetable_id), '[]')::text AS board
    FROM board b CROSS JOIN LATERAL (
           SELECT train_code, all_codes, start_station, end_station,
                  floor(extract(epoch FROM created_at))::bigint AS stored_at
             FROM timetables WHERE id = b.timetable_id OFFSET 0) t`;

/** One entry as STATION_BOARD_SQL gives it. */
type BoardTuple = [
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

/** A station's whole board on a service day, in board order (see StationBoardEntry). */
export async function stationBoard(
  db: Queryable,
  stationName: string,
  serviceDay: number,
): Promise<StationBoardEntry[]> {
  const r = await db.query<{ board: string }>(STATION_BOARD_SQL, [stationName, serviceDay]);
  const tuples = JSON.parse(r.rows[0]?.board ?? '[]') as BoardTuple[];
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
 * A number that changes whenever timetable coverage does (timetable_changes, kept by a
 * statement trigger on timetable_coverage, migration 004): a board built while it read N is
 * still right while it reads N. New timetables always come with coverage, and contents never
 * change, so coverage is all a board depends on.
 */
export async function timetableChangeVersion(db: Queryable): Promise<number> {
  const r = await db.query<{ version: number }>('SELECT version FROM timetable_changes');
  return Number(r.rows[0]?.version ?? 0);
}

/** Whether any timetable, of any day, stops at the station. */
export async function stationKnown(db: Queryable, stationName: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM timetable_stops WHERE station_name = $1 LIMIT 1', [
    stationName,
  ]);
  return r.rows.length > 0;
}
