import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../shared/db/db.js';
import { recordItems, type RecordItemJson } from './daily-records-json.js';
import { dailyRecordLines, dailyRecordsPage } from './daily-records-page.js';

export interface DailyRecordDaysOptions {
  /** Bytes of items kept, over all days (a day of 12,000 records takes about 2 MB). Default 16 MiB. */
  maxBytes?: number;
}

/** A day's records at one version: items highest id first, and their ids (for the cursor). */
interface Day {
  version: string;
  ids: Float64Array;
  items: RecordItemJson[];
}

/** Days remembered as missed once at a version (see `page`); forgotten all at once past it. */
const MISSED_ONCE_LIMIT = 10_000;

/**
 * The pages of GetDailyRecords as items (daily-records-json.ts), from the page's own query or
 * sliced from the day's records kept in memory. A day is the unit the build versions
 * (recordsVersion), so one read of the whole day stays true for every page until the version
 * moves: a client paging from random cursors with random limits then costs the day's read once
 * instead of a query per page (the bench's fresh-pages rows).
 *
 * When a day is read whole: on the second page of it that misses at one version, in the
 * background (that page, and any until the read ends, are queried on their own). So the first
 * page asked after a build costs one small query, as a client following nextCursor from the
 * first page needs, and not the read of a whole day (about 50 ms for 12,000 records); a day
 * asked for page after page is read once. Only the newest day read is kept per service day.
 *
 * The caller names the version it read (PageCache hands it to the render), and the day is read
 * after that version was: so a kept day is never older than the version it is kept under.
 */
export class DailyRecordDays {
  private readonly days: LRUCache<number, Day>;
  /** Reads in progress, by `version\0serviceDay`. */
  private readonly reading = new Map<string, Promise<void>>();
  /** `version\0serviceDay` of days missed once at that version. */
  private readonly missedOnce = new Set<string>();

  constructor(
    private readonly db: Queryable,
    options: DailyRecordDaysOptions = {},
  ) {
    this.days = new LRUCache<number, Day>({
      maxSize: options.maxBytes ?? 16 * 1024 * 1024,
      sizeCalculation: byteSize,
    });
  }

  /**
   * One page of `serviceDay` at `version`: up to `limit` items below `beforeId` (absent: from
   * the highest id), highest first, and whether more follow.
   */
  async page(
    serviceDay: number,
    version: string,
    limit: number,
    beforeId?: number,
  ): Promise<{ items: RecordItemJson[]; more: boolean }> {
    const day = this.days.get(serviceDay);
    if (day?.version === version) {
      const from = beforeId === undefined ? 0 : firstBelow(day.ids, beforeId);
      const to = Math.min(from + limit, day.items.length);
      return { items: day.items.slice(from, to), more: to < day.items.length };
    }
    const readKey = `${version}\u0000${serviceDay}`;
    if (!this.reading.has(readKey) && this.missedBefore(readKey)) {
      void this.read(serviceDay, version).catch(() => {});
    }
    const { lines, more } = await dailyRecordsPage(this.db, serviceDay, limit, beforeId);
    return { items: recordItems(serviceDay, lines), more };
  }

  /**
   * Reads the whole day and keeps it under `version` (a version read before this call), unless
   * it is kept or being read at that version already (then it waits for that read). A failed
   * read is not kept, and a later miss reads again.
   */
  read(serviceDay: number, version: string): Promise<void> {
    if (this.days.get(serviceDay)?.version === version) return Promise.resolve();
    const readKey = `${version}\u0000${serviceDay}`;
    let reading = this.reading.get(readKey);
    if (!reading) {
      reading = dailyRecordLines(this.db, serviceDay)
        .then((lines) => {
          const items = recordItems(serviceDay, lines);
          const ids = Float64Array.from(items, (item) => item.id);
          this.days.set(serviceDay, { version, ids, items });
        })
        .finally(() => this.reading.delete(readKey));
      this.reading.set(readKey, reading);
    }
    return reading;
  }

  /** Whether `readKey` missed once already (and is forgotten now); else remembers it. */
  private missedBefore(readKey: string): boolean {
    if (this.missedOnce.delete(readKey)) return true;
    if (this.missedOnce.size >= MISSED_ONCE_LIMIT) this.missedOnce.clear();
    this.missedOnce.add(readKey);
    return false;
  }
}

/** Index of the first id below `id` in ids sorted descending (ids.length when none is). */
function firstBelow(ids: Float64Array, id: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! >= id) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** What a kept day holds: its items' JSON, an object per item and its id. */
function byteSize(day: Day): number {
  let bytes = day.ids.byteLength + 64;
  for (const item of day.items) bytes += item.json.length + 48;
  return bytes;
}
