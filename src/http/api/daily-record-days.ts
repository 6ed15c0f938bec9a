import { LRUCache } from 'lru-cache';
import { BoundedKeySet } from '../../shared/cache/bounded-key-set.js';
import type { Queryable } from '../../shared/db/db.js';
import {
  recordItems,
  withMappingMembers,
  type MappingCaches,
  type RecordItemJson,
} from './daily-records-json.js';
import { dailyRecordLines, dailyRecordsPage } from './daily-records-page.js';

export interface DailyRecordDaysOptions {
  /** Bytes of items kept, over all days (a 12,000-record day takes about 3.5 MB). Default 16 MiB. */
  maxBytes?: number;
}

/**
 * A day's records at one version: items highest id first, their ids (for the cursor), and their
 * JSON joined by commas once, with where each item's begins: a page's items are one slice of it.
 */
interface Day {
  version: string;
  ids: Float64Array;
  items: RecordItemJson[];
  itemsJson: string;
  /** Where item i begins in itemsJson; the last entry is itemsJson's length + 1. */
  starts: Uint32Array;
}

/**
 * A page: its items (prepared by withMappingMembers over the list they were cut from, at
 * `from`), their JSON joined, whether more follow.
 */
export interface DailyRecordsSlice {
  items: RecordItemJson[];
  from: number;
  itemsJson: string;
  more: boolean;
}

/** Days remembered as missed once, or as too large, at a version (see `page`). */
const REMEMBERED_LIMIT = 10_000;

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
  private readonly missedOnce = new BoundedKeySet(REMEMBERED_LIMIT);
  /** `version\0serviceDay` of days read and found larger than the bound: not read again. */
  private readonly tooLarge = new BoundedKeySet(REMEMBERED_LIMIT);
  private readonly maxBytes: number;

  constructor(
    private readonly db: Queryable,
    private readonly caches: MappingCaches,
    options: DailyRecordDaysOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.days = new LRUCache<number, Day>({
      maxSize: this.maxBytes,
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
  ): Promise<DailyRecordsSlice> {
    const day = this.kept(serviceDay, version);
    if (day) {
      const from = beforeId === undefined ? 0 : firstBelow(day.ids, beforeId);
      const to = Math.min(from + limit, day.items.length);
      return {
        items: day.items.slice(from, to),
        from,
        // A slice of a string is not a copy in V8 (a sliced string over the day's).
        itemsJson: from < to ? day.itemsJson.slice(day.starts[from], day.starts[to]! - 1) : '',
        more: to < day.items.length,
      };
    }
    const readKey = `${version}\u0000${serviceDay}`;
    if (
      !this.reading.has(readKey) &&
      !this.tooLarge.has(readKey) &&
      this.missedOnce.seenBefore(readKey)
    ) {
      void this.read(serviceDay, version).catch(() => {});
    }
    const { lines, more } = await dailyRecordsPage(this.db, serviceDay, limit, beforeId);
    const items = await withMappingMembers(recordItems(serviceDay, lines), this.caches);
    return { items, from: 0, itemsJson: items.map((item) => item.json).join(','), more };
  }

  /** The day as kept, if it was read at `version`. */
  private kept(serviceDay: number, version: string): Day | undefined {
    const day = this.days.get(serviceDay);
    return day?.version === version ? day : undefined;
  }

  /**
   * Reads the whole day and keeps it under `version` (a version read before this call), unless
   * it is kept or being read at that version already (then it waits for that read). A failed
   * read is not kept, and a later miss reads again.
   */
  read(serviceDay: number, version: string): Promise<void> {
    if (this.kept(serviceDay, version)) return Promise.resolve();
    const readKey = `${version}\u0000${serviceDay}`;
    let reading = this.reading.get(readKey);
    if (!reading) {
      reading = dailyRecordLines(this.db, serviceDay)
        .then((lines) => withMappingMembers(recordItems(serviceDay, lines), this.caches))
        .then((items) => {
          const day = dayOf(version, items);
          // A day over the bound is not kept: remembered, so that its pages are queried on
          // their own instead of the whole day being read again on every second miss.
          if (byteSize(day) > this.maxBytes) this.tooLarge.add(readKey);
          else this.days.set(serviceDay, day);
        })
        .finally(() => this.reading.delete(readKey));
      this.reading.set(readKey, reading);
    }
    return reading;
  }
}

function dayOf(version: string, items: RecordItemJson[]): Day {
  const starts = new Uint32Array(items.length + 1);
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    starts[i] = at;
    at += items[i]!.json.length + 1;
  }
  starts[items.length] = at;
  return {
    version,
    ids: Float64Array.from(items, (item) => item.id),
    items,
    itemsJson: items.map((item) => item.json).join(','),
    starts,
  };
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

/** What a kept day holds: its items' JSON twice (each, and joined), an object per item, ids. */
function byteSize(day: Day): number {
  let bytes = day.ids.byteLength + day.starts.byteLength + day.itemsJson.length + 64;
  for (const item of day.items) bytes += item.json.length + 56;
  return bytes;
}
