import { JoinedJson } from '../../shared/cache/joined-json.js';
import { KeptReads } from '../../shared/cache/kept-reads.js';
import type { Queryable } from '../../shared/db/db.js';
import { dailyRecordLines, dailyRecordsPage } from './read-daily-records.js';

export interface DailyRecordDaysOptions {
  /** Bytes of items kept, over all days (a 12,000-record day takes about 3.5 MB). Default 16 MiB. */
  maxBytes?: number;
}

/** What a record is kept as: its id (for the cursor) and its item's JSON. */
export interface DailyRecordItem {
  id: number;
  json: string;
}

/**
 * The items of a day's or a page's lines (DAILY_RECORDS_PAGE_SQL), in their order: the
 * reader's writer (the API's is recordItemsOf, daily-records-json.ts), given by its owner.
 */
export type DailyRecordItemsOf<Item> = (serviceDay: number, lines: string[]) => Promise<Item[]>;

/** A day's records: items highest id first, their ids (for the cursor), their JSON joined. */
interface Day<Item> {
  ids: Float64Array;
  items: Item[];
  itemsJson: JoinedJson;
}

/**
 * A page: its items (made by the items' writer over the list they were cut from, at `from`),
 * their JSON joined, whether more follow.
 */
export interface DailyRecordsSlice<Item extends DailyRecordItem = DailyRecordItem> {
  items: Item[];
  from: number;
  itemsJson: string;
  more: boolean;
}

/**
 * The pages of a service day's records as items (made by `itemsOf`), from the page's own query or
 * sliced from the day's records kept in memory (KeptReads: read whole on the second page of a
 * day that misses at one version). A day is the unit the build versions (recordsVersion), so
 * one read of the whole day stays true for every page until the version moves: a client paging
 * from random cursors with random limits then costs the day's read once instead of a query per
 * page (the bench's fresh-pages rows), and the first page asked after a build one small query,
 * not the read of a whole day (about 50 ms for 12,000 records).
 */
export class DailyRecordDays<Item extends DailyRecordItem> {
  private readonly days: KeptReads<number, Day<Item>>;

  constructor(
    private readonly db: Queryable,
    private readonly itemsOf: DailyRecordItemsOf<Item>,
    options: DailyRecordDaysOptions = {},
  ) {
    this.days = new KeptReads<number, Day<Item>>({
      maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
      sizeOf: byteSize,
    });
  }

  /**
   * One page of `serviceDay` at `version` (read before this call): up to `limit` items below
   * `beforeId` (absent: from the highest id), highest first, and whether more follow.
   */
  async page(
    serviceDay: number,
    version: string,
    limit: number,
    beforeId?: number,
  ): Promise<DailyRecordsSlice<Item>> {
    const day = this.days.get(serviceDay, version);
    if (day) {
      const from = beforeId === undefined ? 0 : firstBelow(day.ids, beforeId);
      const to = Math.min(from + limit, day.items.length);
      return {
        items: day.items.slice(from, to),
        from,
        itemsJson: day.itemsJson.slice(from, to),
        more: to < day.items.length,
      };
    }
    this.days.missed(serviceDay, version, () => this.readDay(serviceDay));
    const { lines, more } = await dailyRecordsPage(this.db, serviceDay, limit, beforeId);
    const items = await this.itemsOf(serviceDay, lines);
    return { items, from: 0, itemsJson: items.map((item) => item.json).join(','), more };
  }

  /** Reads the whole day and keeps it under `version` (see KeptReads.read). */
  async read(serviceDay: number, version: string): Promise<void> {
    await this.days.read(serviceDay, version, () => this.readDay(serviceDay));
  }

  private async readDay(serviceDay: number): Promise<Day<Item>> {
    const lines = await dailyRecordLines(this.db, serviceDay);
    return dayOf(await this.itemsOf(serviceDay, lines));
  }
}

function dayOf<Item extends DailyRecordItem>(items: Item[]): Day<Item> {
  return {
    ids: Float64Array.from(items, (item) => item.id),
    items,
    itemsJson: new JoinedJson(items.map((item) => item.json)),
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
function byteSize(day: Day<DailyRecordItem>): number {
  let bytes = day.ids.byteLength + day.itemsJson.byteSize + 64;
  for (const item of day.items) bytes += item.json.length + 56;
  return bytes;
}
