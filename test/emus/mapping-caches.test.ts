import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { EmuCodeCache } from '../../src/domain/emus/emu-code-cache.js';
import { TimetableSummaryCache } from '../../src/domain/timetables/timetable-summary-cache.js';

/** Answers every id it is asked for and counts the ids asked. */
function countingDb() {
  const asked: number[][] = [];
  const db = {
    async query(sql: string, params?: unknown[]) {
      const ids = params![0] as number[];
      asked.push(ids);
      const rows = sql.includes('FROM emus')
        ? ids.map((id) => ({ id, code: `CRH380A-${id}` }))
        : ids.map((id) => ({
            id,
            start_station: 'A',
            end_station: 'B',
            start_offset: id,
            end_offset: id + 60,
          }));
      return { rows, rowCount: rows.length };
    },
  } as unknown as Db;
  return { db, asked };
}

describe('the mapping caches when they fill', () => {
  it('EmuCodeCache keeps every EMU the current call counted as cached', async () => {
    const { db, asked } = countingDb();
    const cache = new EmuCodeCache(db, 4);
    await cache.load([1, 2, 3]);
    // 1 and 2 are hits, 4 and 5 are fetched: the cache (max 4) must drop 3, not 1 or 2.
    await cache.load([1, 2, 4, 5]);
    for (const id of [1, 2, 4, 5]) expect(cache.code(id)).toBe(`CRH380A-${id}`);
    expect(cache.json(1)).toBe('"1":"CRH380A-1"');
    expect(cache.code(3)).toBeUndefined();
    expect(asked).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('TimetableSummaryCache keeps every timetable the current call counted as cached', async () => {
    const { db, asked } = countingDb();
    const cache = new TimetableSummaryCache(db, 3);
    await cache.load([10, 11, 12]);
    await cache.load([12, 13, 14]);
    for (const id of [12, 13, 14]) expect(cache.json(id)).toContain(`"${id}":{"startStation":"A"`);
    expect(cache.json(10)).toBeUndefined();
    expect(asked).toEqual([
      [10, 11, 12],
      [13, 14],
    ]);
  });
});
