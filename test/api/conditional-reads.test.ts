import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import type { Db } from '../../src/shared/db/db.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { bearer, FAST_SCRYPT_ENV, makeKey, makeUser } from './helpers/accounts.js';
import { makeApp } from './helpers/api-harness.js';

/**
 * Caching that tells the truth: every v2 read carries a strong ETag and a
 * Cache-Control that is never `immutable`, answers If-None-Match with 304 (quota headers kept,
 * 1 token), and after a rebuild changes a day, every API process answers the old tag with 200
 * and the new bytes at once. Two apps on two connection pools stand for two API processes.
 */
const t = useTestDatabase();
let otherDb: Db;
let apps: ApiApp[];
const YMD = '20260810';
const DAY = serviceDayFromYmd(YMD);

/** Every v2 read (the list: records, histories, timetables, boards, allocation, exports). */
const READS = [
  `/api/v2/records/daily?date=${YMD}`,
  `/api/v2/records/daily?date=${YMD}&limit=200`,
  '/api/v2/history/train/G1001',
  '/api/v2/history/emu/CR400AF-2000',
  '/api/v2/timetable/train/G1001/current',
  '/api/v2/timetable/train/G1001/history',
  '/api/v2/timetable/station/Beijingnan',
  '/api/v2/allocation/emu/CR400AF-2000',
  '/api/v2/exports/daily',
  '/api/v2/exports/daily?year=2026&month=8',
  `/api/v2/exports/daily/${YMD}`,
  `/api/v2/exports/daily/${YMD}?binary=true`,
];

beforeAll(async () => {
  await seedDay(t.current.db, YMD, busyDay(2000));
  await ingestTimetableLines(t.current.db, [
    timetable('G1001', '20260101', [
      ['Beijingnan', undefined, '08:00'],
      ['Tianjin', '08:30'],
    ]),
  ]);
  // The timetable changed the built day's timetables in force: rebuild it, as the worker would.
  await buildDailyRecords(t.current.db, DAY);
  await renderDailyExport(t.current.db, DAY);
  otherDb = createPostgresDb({ connectionString: t.current.url, max: 3 });
  const env = { QUOTA_ANONYMOUS_CAPACITY: '100000', ...FAST_SCRYPT_ENV };
  apps = [await makeApp(t.current.db, { env }), await makeApp(otherDb, { env })];
});
afterAll(async () => {
  for (const app of apps ?? []) await app.close();
  await otherDb?.close();
});

function get(app: ApiApp, url: string, etag?: string) {
  return app.inject({ method: 'GET', url, headers: etag ? { 'if-none-match': etag } : {} });
}

describe('conditional v2 reads', () => {
  it.each(READS)('%s: strong ETag, a max-age, never immutable; 304 for 1 token', async (url) => {
    const [app, other] = apps as [ApiApp, ApiApp];
    const first = await get(app, url);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/); // strong: no W/
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(first.headers['cache-control']).not.toContain('immutable');
    // The same tag from the other process, and again (the data did not change).
    expect((await get(other, url)).headers.etag).toBe(etag);
    for (const a of apps) {
      const again = await get(a, url, etag);
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
      expect(again.headers['x-api-cost']).toBe('1');
      expect(Number(again.headers['x-api-remain'])).toBeGreaterThan(0);
    }
    // Another tag (or a weak form of ours: If-None-Match compares weakly) as RFC 9110 says.
    expect((await get(app, url, '"not-this-one"')).statusCode).toBe(200);
    expect((await get(app, url, `W/${etag}`)).statusCode).toBe(304);
  });

  it('a credentialed read is private (its meta is the caller’s), and revalidates the same way', async () => {
    const user = await makeUser(t.current.db, 'cache', 'user');
    const key = await makeKey(t.current.db, user);
    const url = READS[0]!;
    const res = await apps[0]!.inject({ method: 'GET', url, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    const again = await apps[1]!.inject({
      method: 'GET',
      url,
      headers: { ...bearer(key), 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers['x-api-cost']).toBe('1');
  });

  it('after a rebuild changes the day: 200 with a new ETag in both processes, then 304', async () => {
    const recordsUrl = `/api/v2/records/daily?date=${YMD}&limit=200`;
    const exportUrl = `/api/v2/exports/daily/${YMD}?binary=true`;
    const historyUrl = '/api/v2/history/train/G1046';
    const before = await Promise.all(
      [recordsUrl, exportUrl, historyUrl].map(async (u) => (await get(apps[0]!, u)).headers.etag),
    );
    // Late sightings for the day and its rebuild (what the worker does once it is quiet).
    await ingestSightings(t.current.db, sightings(YMD, 'G1046', 'CR400AF-2999', 2));
    const built = await buildDailyRecords(t.current.db, DAY);
    expect(built.inserted).toBe(1);
    await renderDailyExport(t.current.db, DAY);
    const after: string[][] = [];
    for (const app of apps) {
      const tags: string[] = [];
      for (const [i, url] of [recordsUrl, exportUrl, historyUrl].entries()) {
        const res = await get(app, url, before[i] as string);
        expect(res.statusCode, url).toBe(200);
        expect(res.headers.etag, url).not.toBe(before[i]);
        tags.push(res.headers.etag as string);
        expect((await get(app, url, res.headers.etag as string)).statusCode).toBe(304);
      }
      after.push(tags);
    }
    expect(after[1]).toEqual(after[0]);
  });
});
