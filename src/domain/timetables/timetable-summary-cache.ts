import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { flatString } from '../../shared/cache/flat-string.js';

/**
 * timetableId -> HistoricalTimetableSummary, for the timetableMappings of listings, as JSON
 * members. A timetable row is stored once per distinct content and never changed (its id stands
 * for that content), so an entry stays valid for the life of the process; the cache is bounded
 * by a least-recently-used eviction.
 *
 * `load` touches the entries the call already has before adding the ones it fetched, so filling
 * the cache evicts other entries, never one the same call needs (as long as one call needs at
 * most `maxEntries` timetables).
 */
/** A timetable's ends (HistoricalTimetableSummary): offsets are seconds from the day's midnight. */
export interface TimetableSummary {
  startStation: string;
  endStation: string;
  startOffset: number;
  endOffset: number;
}

export class TimetableSummaryCache {
  private readonly members: Lru<number, { json: string; summary: TimetableSummary }>;

  constructor(
    private readonly db: Queryable,
    /** Entries kept; the least recently used go first. Default 100,000. */
    maxEntries = 100_000,
  ) {
    this.members = new Lru({ maxEntries });
  }

  /** Makes sure the given timetables are cached (one query for those that are not). */
  async load(timetableIds: Iterable<number>): Promise<void> {
    let missing: number[] | undefined;
    // get() marks an entry as recently used, so that the additions below do not evict it.
    for (const id of timetableIds) {
      if (this.members.get(id) === undefined) (missing ??= []).push(id);
    }
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
    for (const t of r.rows) {
      const summary = {
        startStation: t.start_station,
        endStation: t.end_station,
        startOffset: t.start_offset,
        endOffset: t.end_offset,
      };
      const json = flatString(`"${t.id}":${JSON.stringify(summary)}`);
      this.members.set(t.id, { json, summary });
    }
  }

  /** The timetableMappings member of a loaded timetable, as JSON text. */
  json(timetableId: number): string | undefined {
    return this.members.peek(timetableId)?.json;
  }

  /** The summary of a loaded timetable (the web pages print its stations and times). */
  summary(timetableId: number): TimetableSummary | undefined {
    return this.members.peek(timetableId)?.summary;
  }
}
