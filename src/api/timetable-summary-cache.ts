import type { Queryable } from '../db/db.js';
import { flatString } from './flat-string.js';

/**
 * timetableId -> HistoricalTimetableSummary, for the timetableMappings of listings, as JSON
 * members. A timetable row is stored once per distinct content and never changed (its id stands
 * for that content), so entries are kept for the life of the process.
 */
export class TimetableSummaryCache {
  private readonly members = new Map<number, string>();

  constructor(
    private readonly db: Queryable,
    /** Entries kept before the cache starts over. Default 100,000. */
    private readonly maxEntries = 100_000,
  ) {}

  /** Makes sure the given timetables are cached (one query for those that are not). */
  async load(timetableIds: readonly number[]): Promise<void> {
    let missing: number[] | undefined;
    for (const id of timetableIds) if (!this.members.has(id)) (missing ??= []).push(id);
    if (!missing) return;
    const r = await this.db.query<{
      id: number;
      start_station: string;
      end_station: string;
      start_offset: number;
      end_offset: number;
    }>(
      `SELECT id, start_station, end_station, start_offset, end_offset
         FROM timetables WHERE id = ANY($1::int[])`,
      [[...new Set(missing)]],
    );
    if (this.members.size + r.rows.length > this.maxEntries) this.members.clear();
    for (const t of r.rows) {
      const summary = {
        startStation: t.start_station,
        endStation: t.end_station,
        startOffset: t.start_offset,
        endOffset: t.end_offset,
      };
      this.members.set(t.id, flatString(`"${t.id}":${JSON.stringify(summary)}`));
    }
  }

  /** The timetableMappings member of a loaded timetable, as JSON text. */
  json(timetableId: number): string | undefined {
    return this.members.get(timetableId);
  }
}
