import { describe, expect, it } from 'vitest';
import { ingestObservations } from '../../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { dailyExportCsv } from '../../../src/domain/exports/daily-export-csv.js';
import { listStaleDays } from '../../../src/domain/records/stale-days.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../../src/shared/time/service-day.js';
import { loadFixtureWeek } from '../../api/helpers/fixture-week.js';
import { createTestDatabase, dropTestDatabase, useTestDatabase } from '../../helpers/test-db.js';
import { clearStaleDays, recordsOf, rejectsOf, useFixtureDir } from './format-test-kit.js';

const t = useTestDatabase();
const files = useFixtureDir();
const DAY = serviceDayFromYmd('20260816');
const HEADER = 'trainCode,emuCode,startStation,endStation,startTime,endTime';

describe('the daily export CSV', () => {
  it('ingests each row as a sighting of that train on that unit on the day its name gives', async () => {
    const { db } = t.current;
    const file = await files.write(
      'daily-20260816.csv',
      '\uFEFF' +
        [
          HEADER,
          'D3125,CRH380AL2541,上海虹桥,蚌埠南,21:40,25:10',
          'G1,CR400AF-2001,北京南,上海虹桥,07:00,11:29',
          'G1,CR400AF-2002,北京南,上海虹桥,07:00,11:29',
          'G12A,CR400AF-2003,,,,',
          'G13,,,,,',
          'G15,CR400AF-2004,a,b,7h,',
          'G17,CR400AF-2005',
          'G19,CR400AF-2006,,,,',
        ].join('\n'),
    );
    const r = await ingestObservations(db, file);
    expect(r.files).toEqual([
      {
        file: 'daily-20260816.csv',
        format: 'daily-export-csv',
        read: 8,
        accepted: 4,
        duplicate: 0,
        rejected: 4,
      },
    ]);
    expect(r.serviceDays).toEqual([DAY]);
    expect(
      (await rejectsOf(db, 'daily-20260816.csv')).map(([line, field]) => [line, field]),
    ).toEqual([
      [5, 'trainCode'],
      [6, 'emuCode'],
      [7, 'startTime'],
      [8, null],
    ]);
    expect((await rejectsOf(db, 'daily-20260816.csv'))[3]![2]).toMatch(/expected 6 columns/);
    // At its departure when the row gives one (hours past 24 are the next calendar day), else
    // at the day's start; always for the day, whatever the timetables say.
    const seen = await db.query<{ train_code: string; observed_at: string; given: boolean }>(
      `SELECT train_code, observed_at, service_date_given AS given FROM observations
        WHERE file = 'daily-20260816.csv' ORDER BY line`,
    );
    const midnight = midnightOfServiceDay(DAY);
    expect(seen.rows.map((o) => [o.train_code, Number(o.observed_at) - midnight, o.given])).toEqual(
      [
        ['D3125', 21 * 3600 + 40 * 60, true],
        ['G1', 7 * 3600, true],
        ['G1', 7 * 3600, true],
        ['G19', 0, true],
      ],
    );

    await buildDailyRecords(db, DAY);
    expect(await recordsOf(db, DAY)).toEqual([
      ['D3125', 'CRH380AL-2541', 1, ['daily-export']],
      ['G1', 'CR400AF-2001', 1, ['daily-export']],
      ['G1', 'CR400AF-2002', 1, ['daily-export']],
      ['G19', 'CR400AF-2006', 1, ['daily-export']],
    ]);

    // Again, and under another name and spelling: nothing new, no day marked stale.
    await clearStaleDays(db);
    expect(await ingestObservations(db, file)).toMatchObject({
      accepted: 0,
      duplicate: 4,
      rejected: 4,
    });
    const respelled = await files.write(
      '20260816.csv',
      `${HEADER}\nd3125,CRH380AL-2541,,,21:40,25:10\nG19,CR400AF2006,,,08:00,09:00\n`,
    );
    expect(await ingestObservations(db, respelled)).toMatchObject({ accepted: 0, duplicate: 2 });
    expect(await rejectsOf(db, 'daily-20260816.csv')).toHaveLength(4);
    expect(await listStaleDays(db)).toEqual([]);
    // A new row of the built day marks it stale, and its rebuild counts it.
    const late = await files.write('late-20260816.csv', `${HEADER}\nG21,CR400AF-2007,,,,\n`);
    expect(await ingestObservations(db, late)).toMatchObject({ accepted: 1 });
    expect((await listStaleDays(db)).map((d) => d.serviceDay)).toContain(DAY);
    await buildDailyRecords(db, DAY);
    expect((await recordsOf(db, DAY)).map(([c]) => c)).toEqual(['D3125', 'G1', 'G1', 'G19', 'G21']);
  });

  it('takes the day from --date when the name gives none, and refuses a name and --date that disagree', async () => {
    const { db } = t.current;
    const rows = `${HEADER}\nG31,CR400AF-2011,,,,\n`;
    const noDay = await files.write('export.csv', rows);
    const [unnamed] = (await ingestObservations(db, noDay)).files;
    expect(unnamed).toMatchObject({ file: 'export.csv', read: 0 });
    expect(unnamed!.error).toBe(
      "export.csv: a daily export's rows do not say their service day: name the file after it (20260816.csv) or give --date YYYYMMDD",
    );
    const dated = await ingestObservations(db, noDay, { serviceDate: '20260815' });
    expect(dated).toMatchObject({ accepted: 1, serviceDays: [serviceDayFromYmd('20260815')] });

    const named = await files.write('2026-08-14.csv', rows);
    const [clash] = (await ingestObservations(db, named, { serviceDate: '20260815' })).files;
    expect(clash!.error).toMatch(
      /^2026-08-14\.csv: a daily export's file name says 20260814 but --date says 20260815/,
    );
    const impossible = await files.write('20260230.csv', rows);
    const [bad] = (await ingestObservations(db, impossible)).files;
    expect(bad!.error).toMatch(
      /^20260230\.csv: a daily export's service day: the file name gives 20260230/,
    );
  });

  it('reads back what emutrack exports: the records of a fixture day, built again elsewhere', async () => {
    // The export of a day built from the fixture week, ingested into an empty database, gives
    // the same trains on the same units (one sighting each).
    const { db } = t.current;
    await loadFixtureWeek(db);
    const exported = await dailyExportCsv(db, DAY);
    const file = await files.write('20260816-roundtrip.csv', exported.content.toString('utf8'));
    const other = await createTestDatabase();
    try {
      const r = await ingestObservations(other.db, file);
      expect(r).toMatchObject({ accepted: exported.rowCount, rejected: 0 });
      await buildDailyRecords(other.db, DAY);
      const pairs = (rows: unknown[][]) =>
        rows.map(([train, unit]) => `${String(train)} ${String(unit)}`);
      const want = pairs(await recordsOf(db, DAY));
      expect(want.length).toBeGreaterThan(3);
      expect(pairs(await recordsOf(other.db, DAY))).toEqual(want);
    } finally {
      await dropTestDatabase(other);
    }
  });
});
