import { ByteCache } from '../../shared/cache/byte-cache.js';
import type { Queryable } from '../../shared/db/db.js';
import { recordItems, type RecordItemJson } from './daily-records-json.js';
import { dailyRecordLines } from './daily-records-page.js';

export interface DailyRecordDaysOptions {
  /** Bytes of item JSON kept, over all days (a day of 12,000 records takes about 2 MB). Default 24 MiB. */
  maxBytes?: number;
}

/** A day's records at one version: items highest id first, and their ids (for the cursor). */
interface Day {
  ids: Float64Array;
  items: RecordItemJson[];
}

/**
 * The records of whole service days, read once per data version of the day and kept as the
 * items a page is made of (daily-records-json.ts), so that any page of a kept day (any cursor,
 * any limit) is a slice of memory: no query and no parse per page. A day is the unit the build
 * versions (recordsVersion), so one read of it stays true for every page until the version
 * moves; a client paging from a random cursor costs the day's read once instead of a query per
 * page. Measured in the bench (fresh-pages): a never-served page of a kept day costs Postgres
 * only the coalesced version read.
 *
 * The caller names the version it read (PageCache hands it to the render), and the day is read
 * after that version was: so a kept day is never older than the version it is kept under.
 * Concurrent misses of one day and version share one read.
 */
export class DailyRecordDays {
  private readonly reading = new Map<string, Promise<Day>>();
  private readonly days: ByteCache;

  constructor(
    private readonly db: Queryable,
    options: DailyRecordDaysOptions = {},
  ) {
    this.days = new ByteCache({ maxBytes: options.maxBytes ?? 24 * 1024 * 1024 });
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
    const day = await this.day(serviceDay, version);
    const from = beforeId === undefined ? 0 : firstBelow(day.ids, beforeId);
    const to = Math.min(from + limit, day.items.length);
    return { items: day.items.slice(from, to), more: to < day.items.length };
  }

  private async day(serviceDay: number, version: string): Promise<Day> {
    const key = String(serviceDay);
    const kept = this.days.get<Day>(key, version);
    if (kept) return kept;
    const readKey = `${version}\u0000${key}`;
    let reading = this.reading.get(readKey);
    if (!reading) {
      reading = dailyRecordLines(this.db, serviceDay).then((lines) => {
        const items = recordItems(serviceDay, lines);
        const ids = Float64Array.from(items, (item) => item.id);
        return { ids, items };
      });
      this.reading.set(readKey, reading);
      reading
        .then((day) => this.days.set(key, version, day, byteSize(day)))
        .catch(() => {})
        .finally(() => this.reading.delete(readKey));
    }
    return reading;
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
  let bytes = day.ids.byteLength;
  for (const item of day.items) bytes += item.json.length + 48;
  return bytes;
}
