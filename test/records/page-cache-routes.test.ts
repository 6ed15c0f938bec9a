import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import type { Db } from '../../src/shared/db/db.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

/**
 * The cached routes as clients see them, in two apps on two connection pools (two API
 * processes as far as the database can tell): records/daily, the export index, a train's
 * timetable history and the train and EMU histories are served from kept pages (and kept
 * histories), and replaced right after the transaction that changes what they show.
 */
const t = useTestDatabase();
let otherDb: Db;
let apps: ApiApp[];
// A day that has happened: only those are exported (export-refused-error.ts).
const YMD = '20260815';
const DAY = serviceDayFromYmd(YMD);

beforeAll(async () => {
  otherDb = createPostgresDb({ connectionString: t.current.url, max: 3 });
  apps = [await makeApp(t.current.db), await makeApp(otherDb)];
});
afterAll(async () => {
  for (const app of apps ?? []) await app.close();
  await otherDb?.close();
});

async function data(app: ApiApp, url: string): Promise<string> {
  const res = await app.inject({ method: 'GET', url });
  expect(res.statusCode).toBe(200);
  return JSON.stringify((JSON.parse(res.body) as { data: unknown }).data);
}

const RECORDS = `/api/v2/records/daily?date=${YMD}&limit=200`;

describe('cached pages on the routes, in two apps', () => {
  it('records/daily: kept while the day does not change, new bytes right after a changing rebuild', async () => {
    await ingestSightings(t.current.db, [
      ...sightings(YMD, 'G700', 'CR400AF-2701', 2),
      ...sightings(YMD, 'G701', 'CR400AF-2702', 2),
    ]);
    await buildDailyRecords(t.current.db, DAY);
    const first = await Promise.all(apps.map((app) => data(app, RECORDS)));
    expect(first[1]).toBe(first[0]);
    expect(JSON.parse(first[0]!).items).toHaveLength(2);
    // A records page is kept from its second request at a version (keep: 'when-asked-again').
    for (const app of apps) expect(await data(app, RECORDS)).toBe(first[0]);

    // A write that is not a build (and bumps nothing) does not reach kept pages: they are kept.
    await t.current.db.query(
      `DELETE FROM daily_records WHERE service_day = $1 AND train_code = 'G701'`,
      [DAY],
    );
    for (const app of apps) expect(await data(app, RECORDS)).toBe(first[0]);

    // The build puts the record back (a change: the version moves), and both apps serve it.
    const rebuilt = await buildDailyRecords(t.current.db, DAY, {}, { force: true });
    expect(rebuilt.inserted).toBe(1);
    const second = await Promise.all(apps.map((app) => data(app, RECORDS)));
    expect(second[1]).toBe(second[0]);
    expect(JSON.parse(second[0]!).items).toHaveLength(2);
    expect(second[0]).not.toBe(first[0]); // G701 has a new id

    // An unchanged rebuild keeps ids, bytes and version.
    expect(await buildDailyRecords(t.current.db, DAY, {}, { force: true })).toMatchObject({
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
    for (const app of apps) expect(await data(app, RECORDS)).toBe(second[0]);

    // New sightings and a rebuild: the very next request of either app has the new record.
    await ingestSightings(t.current.db, sightings(YMD, 'G702', 'CR400AF-2703', 2));
    await buildDailyRecords(t.current.db, DAY);
    for (const app of apps) {
      const items = JSON.parse(await data(app, RECORDS)).items as {
        trainCode: { number: number };
      }[];
      expect(items.map((i) => i.trainCode.number).sort()).toEqual([700, 701, 702]);
    }
  });

  it('the export index: a new day listed right after its first render', async () => {
    await renderDailyExport(t.current.db, DAY);
    const url = '/api/v2/exports/daily?year=2026&month=8';
    const before = await Promise.all(apps.map((app) => data(app, url)));
    expect(JSON.parse(before[0]!).items).toEqual([{ serviceDay: DAY }]);
    expect(before[1]).toBe(before[0]);
    await buildDailyRecords(t.current.db, DAY + 1);
    await renderDailyExport(t.current.db, DAY + 1);
    for (const app of apps)
      expect(JSON.parse(await data(app, url)).items).toEqual([
        { serviceDay: DAY },
        { serviceDay: DAY + 1 },
      ]);
  });

  it('a train timetable history: a new version shown right after its ingestion', async () => {
    const stops: [string, string?, string?][] = [
      ['Beijingnan', undefined, '08:00'],
      ['Tianjin', '08:30'],
    ];
    await ingestTimetableLines(t.current.db, [timetable('G700', '20261201', stops)]);
    const url = '/api/v2/timetable/train/G700/history';
    for (const app of apps) expect(JSON.parse(await data(app, url)).items).toHaveLength(1);
    await ingestTimetableLines(t.current.db, [
      timetable('G700', '20261220', [
        ['Beijingnan', undefined, '09:00'],
        ['Tianjin', '09:30'],
      ]),
    ]);
    for (const app of apps) expect(JSON.parse(await data(app, url)).items).toHaveLength(2);
  });

  it('train and EMU histories: kept, and new right after a build that changes any day', async () => {
    // G700 ran on DAY (first test) on CR400AF-2701; asked for until both apps keep the history
    // whole (its second miss reads it) and keep the page (asked for again).
    const train = '/api/v2/history/train/G700?limit=5';
    const emu = '/api/v2/history/emu/CR400AF-2701?limit=5';
    const before: string[] = [];
    for (const url of [train, emu]) {
      const seen = await Promise.all(apps.map((app) => data(app, url)));
      expect(seen[1]).toBe(seen[0]);
      for (let i = 0; i < 3; i++)
        for (const app of apps) expect(await data(app, url)).toBe(seen[0]);
      before.push(seen[0]!);
      expect(JSON.parse(seen[0]!).items).toHaveLength(1);
    }
    // A write that is not a build moves no version: the histories are served as kept.
    await t.current.db.query(`DELETE FROM daily_records WHERE train_code = 'G700'`);
    for (const app of apps) expect(await data(app, train)).toBe(before[0]);

    // A build of another day: G700 on the same unit, and DAY rebuilt; the very next request of
    // either app has both records, newest first.
    await ingestSightings(t.current.db, sightings('20260816', 'G700', 'CR400AF-2701', 2));
    await buildDailyRecords(t.current.db, DAY + 1, {}, { force: true });
    await buildDailyRecords(t.current.db, DAY, {}, { force: true });
    for (const url of [train, emu]) {
      for (const app of apps) {
        const items = JSON.parse(await data(app, url)).items as { serviceDay: number }[];
        expect(items.map((i) => i.serviceDay)).toEqual([DAY + 1, DAY]);
      }
    }
  });
});
