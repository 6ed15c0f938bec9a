import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import {
  inBoardOrder,
  stationCalls,
  stationTimetables,
  timetableChangeVersion,
  type StationBoardEntry,
} from './station-board.js';

export interface StationBoardCacheOptions {
  /** Boards kept, least recently used dropped first. Default 2,000 (every station, today and yesterday). */
  maxBoards?: number;
  /**
   * Entries (one timetable's call at one station) kept across coverage changes, least recently
   * used stations dropped first. Default 50,000 (a few hundred bytes each: about 15 MB).
   */
  maxCalls?: number;
}

/**
 * Station boards (station, service day) as read whole by stationBoard, kept while the timetable
 * coverage does not change. Every request first reads timetableChangeVersion (one indexed row);
 * when it moved, every kept board is dropped. So a board is never older than the coverage the
 * request could see: the version is read before the board, and a board read after a change is
 * at least as new as the version it is kept under.
 *
 * A board read again (the first request of a day, or the first after a coverage change) reads
 * only which timetables are in force (stationTimetables); what each shows at the station never
 * changes (a timetable's content and stops are written once, with it), so those entries are kept
 * by station across versions and only timetables not seen at the station before are read
 * (stationCalls). A station read for the first time by this process reads both.
 */
export class StationBoardCache {
  private version: number | undefined;
  private readonly boards: Lru<string, Promise<StationBoardEntry[]>>;
  /** Per station: timetableId -> its entry there. A map is replaced, never changed, once kept. */
  private readonly calls: Lru<string, ReadonlyMap<number, StationBoardEntry>>;

  constructor(
    private readonly db: Queryable,
    options: StationBoardCacheOptions = {},
  ) {
    this.boards = new Lru({ maxEntries: options.maxBoards ?? 2_000 });
    this.calls = new Lru({
      maxWeight: options.maxCalls ?? 50_000,
      weightOf: (entries) => Math.max(1, entries.size),
    });
  }

  /**
   * The board, kept or read. `version` is timetableChangeVersion as the caller read it before
   * calling (stationBoardVersions reads it with the reference models' one); read here when absent.
   */
  async board(
    stationName: string,
    serviceDay: number,
    version?: number,
  ): Promise<StationBoardEntry[]> {
    version ??= await timetableChangeVersion(this.db);
    if (version !== this.version) {
      this.boards.clear();
      this.version = version;
    }
    const key = `${serviceDay}\u0000${stationName}`;
    let board = this.boards.get(key);
    if (!board) {
      board = this.read(stationName, serviceDay);
      this.boards.set(key, board);
      // A failed read is not kept: the next request tries again.
      board.catch(() => {
        if (this.boards.peek(key) === board) this.boards.delete(key);
      });
    }
    return board;
  }

  private async read(stationName: string, serviceDay: number): Promise<StationBoardEntry[]> {
    const ids = await stationTimetables(this.db, stationName, serviceDay);
    let known = this.calls.get(stationName);
    const unseen = known ? ids.filter((id) => !known!.has(id)) : ids;
    if (unseen.length > 0) {
      const grown = new Map(known);
      for (const entry of await stationCalls(this.db, stationName, unseen)) {
        grown.set(entry.timetableId, entry);
      }
      this.calls.set(stationName, grown);
      known = grown;
    }
    const board: StationBoardEntry[] = [];
    for (const id of ids) {
      const entry = known!.get(id);
      if (entry) board.push(entry);
    }
    return inBoardOrder(board);
  }
}
