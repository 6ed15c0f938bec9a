import { describe, expect, it } from 'vitest';
import { TimetablesInForceCache } from '../../src/domain/timetables/timetables-in-force-cache.js';
import { timetableInForce } from '../../src/domain/timetables/timetable-lookup.js';
import { readDataVersions } from '../../src/shared/cache/data-versions.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { serviceDayFromYmd as day } from '../../src/shared/time/service-day.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/** The timetables' version as a page's part of it reads (`timetables:0@N`). */
async function version(db: Queryable): Promise<string> {
  const v = (await readDataVersions(db, ['timetables:0'])).get('timetables:0') ?? 0;
  return `timetables:0@${v}`;
}

function counting(db: Queryable, queries: string[]): Queryable {
  return {
    query: (sql, params) => {
      if (sql.includes('timetable_coverage'))
        queries.push(sql.includes('DISTINCT ON') ? 'day' : 'one');
      return db.query(sql, params);
    },
    copyFrom: (...args) => db.copyFrom(...args),
  };
}

const stops = (arrive: string): [string, string?, string?][] => [
  ['北京南', undefined, '08:00'],
  ['上海虹桥', arrive],
];

describe('TimetablesInForceCache', () => {
  it('answers as timetableInForce for every number of a day, reading the day once per version', async () => {
    const { db } = t.current;
    await ingestTimetableLines(db, [
      timetable('G10', '20260801', stops('12:00')),
      // A later version of G10 from the 10th: on the 12th it is the one in force.
      timetable('G10', '20260810', stops('12:05')),
      timetable('G4340', '20260801', stops('13:00'), { allCodes: ['G4340', 'G4337'] }),
      timetable('G20', '20260815', stops('14:00')),
    ]);
    const queries: string[] = [];
    const cache = new TimetablesInForceCache(counting(db, queries));
    const v = await version(db);
    for (const [code, on] of [
      ['G10', '20260805'],
      ['G10', '20260812'],
      ['g4337', '20260812'],
      ['G4340', '20260812'],
      ['G20', '20260812'],
      ['G9999', '20260812'],
    ] as const) {
      expect(await cache.inForce(code, day(on), v)).toEqual(
        await timetableInForce(db, code, day(on)),
      );
    }
    expect((await cache.inForce('G4337', day('20260812'), v))?.timetableTrainCode).toBe('G4340');
    // One read of the 5th, one of the 12th (another day drops the one kept), then none.
    expect(queries).toEqual(['day', 'day']);
    await cache.inForce('G20', day('20260812'), v);
    expect(queries).toEqual(['day', 'day']);

    // A new timetable moves the version: the day is read again and shows it.
    await ingestTimetableLines(db, [timetable('G20', '20260810', stops('14:10'))]);
    const moved = await version(db);
    expect(moved).not.toBe(v);
    expect(await cache.inForce('G20', day('20260812'), moved)).toEqual(
      await timetableInForce(db, 'G20', day('20260812')),
    );
    expect(queries).toEqual(['day', 'day', 'day']);
  });

  it('shares one read of the day among the requests that ask at once', async () => {
    const { db } = t.current;
    const queries: string[] = [];
    const cache = new TimetablesInForceCache(counting(db, queries));
    const v = await version(db);
    const answers = await Promise.all(
      ['G10', 'G20', 'G4337', 'G10'].map((code) => cache.inForce(code, day('20260812'), v)),
    );
    expect(answers.map((a) => a?.trainCode)).toEqual(['G10', 'G20', 'G4337', 'G10']);
    expect(queries).toEqual(['day']);
  });

  it('reads again after a failed read of the day', async () => {
    const { db } = t.current;
    let fail = true;
    const failing: Queryable = {
      query: (sql, params) =>
        fail && sql.includes('DISTINCT ON')
          ? Promise.reject(new Error('connection lost'))
          : db.query(sql, params),
      copyFrom: (...args) => db.copyFrom(...args),
    };
    const cache = new TimetablesInForceCache(failing);
    const v = await version(db);
    await expect(cache.inForce('G10', day('20260812'), v)).rejects.toThrow('connection lost');
    fail = false;
    expect((await cache.inForce('G10', day('20260812'), v))?.trainCode).toBe('G10');
  });
});
