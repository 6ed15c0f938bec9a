import { beforeAll, describe, expect, it } from 'vitest';
import {
  DailyRecordDays,
  type DailyRecordsSlice,
} from '../../src/domain/records/daily-record-days.js';
import {
  dailyRecordsDataJson,
  recordItemsOf,
  type RecordItemJson,
} from '../../src/http/api/daily-records-json.js';
import {
  DAILY_RECORDS_PAGE_SQL,
  dailyRecordsPageParams,
} from '../../src/domain/records/read-daily-records.js';
import { EmuCodeCache } from '../../src/domain/emus/emu-code-cache.js';
import { TimetableSummaryCache } from '../../src/domain/timetables/timetable-summary-cache.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { busyDay, seedDay, storedRecords } from '../api/helpers/api-fixtures.js';
import { countedDb } from '../helpers/counted-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Pages sliced from a kept day are the pages the page's own SQL returns, for any cursor and
 * limit; a day is read once per version, concurrent misses included; a new version is read
 * again and shows what changed.
 */
const t = useTestDatabase();
let day: number;
let ids: number[];

/** The items' writer, with mapping caches over `db` (their queries count as the db's). */
function cachesOf(db: Queryable) {
  return recordItemsOf({
    emuCodes: new EmuCodeCache(db),
    timetables: new TimetableSummaryCache(db),
  });
}

/** The page as DAILY_RECORDS_PAGE_SQL returns it: record ids, and whether more follow. */
async function sqlPage(
  limit: number,
  beforeId?: number,
): Promise<{ ids: number[]; more: boolean }> {
  const r = await t.current.db.query<{ page: string | null }>(
    DAILY_RECORDS_PAGE_SQL,
    dailyRecordsPageParams(day, limit, beforeId),
  );
  const lines = r.rows[0]!.page ? r.rows[0]!.page.split('\n') : [];
  const found = lines.map((line) => Number(line.split(',')[0]));
  return { ids: found.slice(0, limit), more: found.length > limit };
}

beforeAll(async () => {
  day = await seedDay(t.current.db, '20260810', busyDay(2000));
  ids = (await storedRecords(t.current.db, day)).map((r) => r.id);
});

describe('DailyRecordDays', () => {
  it('slices the pages the page SQL returns, for every cursor and limit, ends included', async () => {
    const days = new DailyRecordDays(t.current.db, cachesOf(t.current.db));
    await days.read(day, 'records:v1');
    const db = countedDb(t.current.db);
    const sliced = new DailyRecordDays(db, cachesOf(t.current.db));
    await sliced.read(day, 'records:v1');
    // Cursors: every record id, one above them all, one below them all, one between two ids.
    const cursors: (number | undefined)[] = [undefined, ...ids, ids[0]! + 1000, 1, ids[3]! - 1];
    for (const beforeId of cursors) {
      for (const limit of [1, 7, ids.length - 1, ids.length, 200]) {
        const page = await sliced.page(day, 'records:v1', limit, beforeId);
        expect(
          { ids: page.items.map((i) => i.id), more: page.more },
          `${beforeId}/${limit}`,
        ).toEqual(await sqlPage(limit, beforeId));
      }
    }
    // All from memory: the one query is the day's read.
    expect(db.queries).toBe(1);
    // The same bytes as a page queried on its own (a new instance: no day kept).
    const json = (page: DailyRecordsSlice<RecordItemJson>) =>
      dailyRecordsDataJson({
        serviceDay: day,
        cursor: '',
        limit: 1,
        nextCursor: '',
        ...page,
      }).join('');
    for (const [limit, beforeId] of [
      [5, undefined],
      [7, ids[9]],
      [200, ids[30]],
    ] as const) {
      const queried = await new DailyRecordDays(t.current.db, cachesOf(t.current.db)).page(
        day,
        'records:v1',
        limit,
        beforeId,
      );
      expect(queried.from).toBe(0);
      const cut = await sliced.page(day, 'records:v1', limit, beforeId);
      expect(cut.from).toBe(beforeId === undefined ? 0 : ids.indexOf(beforeId) + 1);
      expect(json(cut)).toBe(json(queried));
      expect(JSON.parse(json(cut)).emuCodeMappings).not.toEqual({});
    }
  });

  it('queries the first page missed at a version, reads the day on the second, slices after', async () => {
    const db = countedDb(t.current.db);
    const days = new DailyRecordDays(db, cachesOf(t.current.db));
    const first = await days.page(day, 'records:v1', 5);
    expect(first.items.map((i) => i.id)).toEqual(ids.slice(0, 5));
    expect(db.queries).toBe(1);
    // The second miss: its own page query, and the day's read in the background.
    const second = await days.page(day, 'records:v1', 6, ids[4]);
    expect(second.items.map((i) => i.id)).toEqual(ids.slice(5, 11));
    await days.read(day, 'records:v1'); // the read begun by the miss, waited for: not a second
    const queries = db.queries;
    expect(queries).toBe(3);
    const pages = await Promise.all(
      [5, 6, 7, 8].map((limit) => days.page(day, 'records:v1', limit, ids[10])),
    );
    expect(pages.map((p) => p.items.map((i) => i.id))).toEqual(
      [5, 6, 7, 8].map((n) => ids.slice(11, 11 + n)),
    );
    expect(db.queries).toBe(queries);
    // A new version: missed again, queried again.
    await days.page(day, 'records:v2', 20);
    expect(db.queries).toBe(queries + 1);
  });

  it('shows a change from the next version on, and keeps the version it read before', async () => {
    const days = new DailyRecordDays(t.current.db, cachesOf(t.current.db));
    await days.read(day, 'records:v1');
    const before = await days.page(day, 'records:v1', 5);
    await t.current.db.query('DELETE FROM daily_records WHERE id = $1', [ids[0]]);
    // The same version: the day as read (a build that deletes moves the version).
    expect((await days.page(day, 'records:v1', 5)).items).toEqual(before.items);
    const after = await days.page(day, 'records:v2', 5);
    expect(after.items.map((i) => i.id)).toEqual(ids.slice(1, 6));
    await days.read(day, 'records:v2');
    expect((await days.page(day, 'records:v2', 5)).items.map((i) => i.id)).toEqual(ids.slice(1, 6));
  });

  it('answers an empty day with no items and no more, read whole or not', async () => {
    const days = new DailyRecordDays(t.current.db, cachesOf(t.current.db));
    expect(await days.page(day + 100, 'records:v0', 20)).toEqual({
      items: [],
      from: 0,
      itemsJson: '',
      more: false,
    });
    await days.read(day + 100, 'records:v0');
    expect(await days.page(day + 100, 'records:v0', 20)).toEqual({
      items: [],
      from: 0,
      itemsJson: '',
      more: false,
    });
  });

  it('keeps one read per day, and reads a day again once the bytes bound pushed it out', async () => {
    const db = countedDb(t.current.db);
    // Room for one read of the day (its 46 items take about 14 KB: their JSON twice).
    const days = new DailyRecordDays(db, cachesOf(t.current.db), { maxBytes: 20 * 1024 });
    await days.read(day, 'records:v1');
    await days.page(day, 'records:v1', 5);
    expect(db.queries).toBe(1);
    // A newer read of the day replaces the older.
    await days.read(day, 'records:v2');
    await days.page(day, 'records:v1', 5);
    expect(db.queries).toBe(3);
    await days.page(day, 'records:v2', 5);
    expect(db.queries).toBe(3);
    // A bound smaller than the day: read, not kept, every page queried.
    const small = new DailyRecordDays(db, cachesOf(t.current.db), { maxBytes: 1024 });
    await small.read(day, 'records:v2');
    await small.page(day, 'records:v2', 5);
    expect(db.queries).toBe(5);
    // Found too large at a version, the day is not read whole again on later misses at it.
    for (let i = 0; i < 4; i++) await small.page(day, 'records:v2', 5, ids[i]);
    // (A day's read is counted when it starts: without the rule, the 2nd and 4th miss would start one.)
    expect(db.queries).toBe(9);
  });
});
