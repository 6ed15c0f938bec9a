import type { Queryable } from '../db/db.js';
import {
  stationBoard,
  timetableChangeVersion,
  type StationBoardEntry,
} from '../timetables/station-board.js';

/**
 * Station boards (station, service day) as read whole by stationBoard, kept while the timetable
 * coverage does not change. Every request first reads timetableChangeVersion (one indexed row);
 * when it moved, every kept board is dropped. So a board is never older than the coverage the
 * request could see: the version is read before the board, and a board read after a change is
 * at least as new as the version it is kept under. The first request of a board pays its query
 * (a few milliseconds for 600 trains); the following ones page it in memory.
 */
export class StationBoardCache {
  private version: number | undefined;
  private readonly boards = new Map<string, Promise<StationBoardEntry[]>>();

  constructor(
    private readonly db: Queryable,
    /** Boards kept before the cache starts over. Default 2,000 (every station, today and yesterday). */
    private readonly maxBoards = 2_000,
  ) {}

  async board(stationName: string, serviceDay: number): Promise<StationBoardEntry[]> {
    const version = await timetableChangeVersion(this.db);
    if (version !== this.version) {
      this.boards.clear();
      this.version = version;
    }
    const key = `${serviceDay}\u0000${stationName}`;
    let board = this.boards.get(key);
    if (!board) {
      if (this.boards.size >= this.maxBoards) this.boards.clear();
      board = stationBoard(this.db, stationName, serviceDay);
      this.boards.set(key, board);
      // A failed read is not kept: the next request tries again.
      board.catch(() => {
        if (this.boards.get(key) === board) this.boards.delete(key);
      });
    }
    return board;
  }
}
