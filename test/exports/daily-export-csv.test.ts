import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import {
  DAILY_EXPORT_HEADER,
  DAILY_EXPORT_ROWS_SQL,
  dailyExportCsv,
  dailyExportIndex,
  getDailyExport,
  renderDailyExport,
} from '../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();

describe('daily exports', () => {
  it('orders rows by prefix, then number numerically, then EMU code; BOM; no trailing newline', async () => {
    const ymd = '20260920';
    await ingestSightings(t.current.db, [
      ...sightings(ymd, 'G10', 'CR400AF-2001', 2),
      ...sightings(ymd, 'G2', 'CR400AF-2002', 2),
      ...sightings(ymd, 'D5', 'CRH2A-2011', 2),
      ...sightings(ymd, 'D5', 'CRH2A-2010', 2),
      ...sightings(ymd, 'C1001', 'CRH6A-A-0201', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
    const r = await dailyExportCsv(t.current.db, serviceDayFromYmd(ymd));
    expect(r.content.toString('utf8')).toBe(
      '\uFEFFtrainCode,emuCode,startStation,endStation,startTime,endTime\n' +
        'C1001,CRH6A-A-0201,,,,\nD5,CRH2A-2010,,,,\nD5,CRH2A-2011,,,,\nG2,CR400AF-2002,,,,\nG10,CR400AF-2001,,,,',
    );
    expect(r.content.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(r.rowCount).toBe(5);
  });

  it('stores content with row count and sha256; an unchanged re-render keeps bytes and changed_at', async () => {
    const day = serviceDayFromYmd('20260920');
    const first = await renderDailyExport(t.current.db, day);
    expect(first.changed).toBe(true);
    const stored = (await getDailyExport(t.current.db, day))!;
    expect(stored.rowCount).toBe(5);
    const second = await renderDailyExport(t.current.db, day);
    expect(second).toEqual({ ...first, changed: false });
    const again = (await getDailyExport(t.current.db, day))!;
    expect(again.content.equals(stored.content)).toBe(true);
    expect(again.changedAt).toEqual(stored.changedAt);

    await ingestSightings(t.current.db, sightings('20260920', 'G3', 'CR400AF-2003', 2));
    await buildDailyRecords(t.current.db, day);
    const third = await renderDailyExport(t.current.db, day);
    expect(third.changed).toBe(true);
    expect(third.rowCount).toBe(6);
    expect(third.sha256).not.toBe(first.sha256);
  });

  it('fills stations and times from the timetable in force, hours past 24 after midnight', async () => {
    const ymd = '20260925';
    await ingestTimetableLines(t.current.db, [
      timetable('D3125', '20260901', [
        ['上海虹桥', undefined, '21:40'],
        ['南京南', '23:35', '23:39'],
        ['蚌埠南', 90_600 + 59],
      ]),
      timetable('G10', '20260901', [
        ['北京南', undefined, '07:05:30'],
        ['上海虹桥', '11:29'],
      ]),
    ]);
    await ingestSightings(t.current.db, [
      ...sightings(ymd, 'D3125', 'CRH380AL-2541', 2),
      ...sightings(ymd, 'G10', 'CR400AF-2001', 2),
      ...sightings(ymd, 'G11', 'CR400AF-2002', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
    const r = await dailyExportCsv(t.current.db, serviceDayFromYmd(ymd));
    expect(r.content.toString('utf8')).toBe(
      '\uFEFFtrainCode,emuCode,startStation,endStation,startTime,endTime\n' +
        'D3125,CRH380AL-2541,上海虹桥,蚌埠南,21:40,25:10\n' +
        'G10,CR400AF-2001,北京南,上海虹桥,07:05,11:29\n' +
        'G11,CR400AF-2002,,,,',
    );
  });

  it('quotes fields exactly as csv-stringify does', async () => {
    const ymd = '20260926';
    const odd = ['北京,南', '他说"到了"', '换\n行', ' 前后空格 ', '回车\r站', "'单引号'"];
    await ingestTimetableLines(
      t.current.db,
      odd.map((name, i) =>
        timetable(`G${20 + i}`, '20260901', [
          [name, undefined, '08:00'],
          [odd[(i + 1) % odd.length]!, '09:00'],
        ]),
      ),
    );
    await ingestSightings(
      t.current.db,
      odd.flatMap((_, i) => sightings(ymd, `G${20 + i}`, `CR400AF-${2010 + i}`, 2)),
    );
    await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
    const rows = await t.current.db.query<Record<string, string>>(DAILY_EXPORT_ROWS_SQL, [
      serviceDayFromYmd(ymd),
    ]);
    const expected = stringify([DAILY_EXPORT_HEADER, ...rows.rows.map((r) => Object.values(r))], {
      record_delimiter: '\n',
      eof: false,
    });
    expect(rows.rows).toHaveLength(odd.length);
    const r = await dailyExportCsv(t.current.db, serviceDayFromYmd(ymd));
    expect(r.content.toString('utf8')).toBe('\uFEFF' + expected);
    expect(r.content.toString('utf8')).toContain('"北京,南"');
  });

  it('renders a day without records as the header alone', async () => {
    const r = await dailyExportCsv(t.current.db, serviceDayFromYmd('20261231'));
    expect(r.content.toString('utf8')).toBe(
      '\uFEFFtrainCode,emuCode,startStation,endStation,startTime,endTime',
    );
    expect(r.rowCount).toBe(0);
  });

  it('indexes exports by year and month, the latest month by default', async () => {
    // Only built days are exported (and listed): an empty day is built as empty first.
    for (const ymd of ['20251230', '20260105', '20260110', '20260201']) {
      await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
      await renderDailyExport(t.current.db, serviceDayFromYmd(ymd));
    }
    const latest = await dailyExportIndex(t.current.db);
    expect(latest).toMatchObject({
      selectedYear: 2026,
      selectedMonth: 9,
      availableYears: [2025, 2026],
      availableMonths: [1, 2, 9],
    });
    const jan = await dailyExportIndex(t.current.db, 2026, 1);
    expect(jan.serviceDays).toEqual([serviceDayFromYmd('20260105'), serviceDayFromYmd('20260110')]);
    const none = await dailyExportIndex(t.current.db, 2024, 5);
    expect(none).toMatchObject({ availableMonths: [], serviceDays: [] });
  });
});
