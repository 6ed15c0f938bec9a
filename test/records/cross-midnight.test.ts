import { describe, expect, it } from 'vitest';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { LATE_ARRIVAL_SLACK_SECONDS } from '../../src/domain/records/day-sightings.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, shanghai, type Sighting } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();
const day = serviceDayFromYmd;

let ref = 0;
function seen(
  ymd: string,
  hhmm: string,
  trainCode: string,
  emuCode: string,
  extra: Partial<Sighting> = {},
): Sighting {
  return {
    observedAt: shanghai(ymd, hhmm),
    trainCode,
    emuCode,
    source: 'report',
    ref: `cm-${++ref}`,
    ...extra,
  };
}

async function records(ymd: string) {
  const r = await t.current.db.query<{
    train_code: string;
    code: string;
    support: number;
    timetable_id: number | null;
  }>(
    `SELECT d.train_code, e.code, d.support, d.timetable_id FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY d.train_code, e.code`,
    [day(ymd)],
  );
  return r.rows;
}
const brief = async (ymd: string) =>
  (await records(ymd)).map((r) => [r.train_code, r.code, r.support]);

async function build(...ymds: string[]) {
  for (const ymd of ymds) await buildDailyRecords(t.current.db, day(ymd));
}

describe('cross-midnight attribution', () => {
  it('counts a sighting after midnight of a train that left the evening before for the day it left', async () => {
    await ingestTimetableLines(t.current.db, [
      timetable('D701', '20260101', [
        ['上海虹桥', undefined, '23:50'],
        ['南京南', '24:55', '24:58'],
        ['蚌埠南', '25:10'],
      ]),
    ]);
    await ingestSightings(t.current.db, [
      seen('20260301', '23:52', 'D701', 'CRH380A-2641'),
      seen('20260301', '23:58', 'D701', 'CRH380A-2641'),
      seen('20260302', '00:20', 'D701', 'CRH380A-2641'),
      seen('20260302', '23:51', 'D701', 'CRH380A-2642'),
    ]);
    await build('20260301', '20260302');
    expect(await brief('20260301')).toEqual([['D701', 'CRH380A-2641', 3]]);
    expect(await brief('20260302')).toEqual([['D701', 'CRH380A-2642', 1]]);
  });

  it('keeps a sighting at 00:20 on its own day when the train’s timetable starts at 00:05', async () => {
    await ingestTimetableLines(t.current.db, [
      timetable('D702', '20260101', [
        ['上海虹桥', undefined, '00:05'],
        ['蚌埠南', '02:00'],
      ]),
    ]);
    await ingestSightings(t.current.db, [seen('20260304', '00:20', 'D702', 'CRH380A-2641')]);
    await build('20260303', '20260304');
    expect(await brief('20260303')).toEqual([]);
    expect(await brief('20260304')).toEqual([['D702', 'CRH380A-2641', 1]]);
  });

  it('leaves a sighting with a serviceDate where it says, on either side of midnight', async () => {
    await ingestSightings(t.current.db, [
      // D701 runs 23:50 -> 25:10, yet this report says it was the run of 03-06.
      seen('20260306', '00:30', 'D701', 'CRH380A-2642', { serviceDate: '20260306' }),
      // D702 runs 00:05 -> 02:00, yet this one says 03-05.
      seen('20260306', '00:25', 'D702', 'CRH380A-2641', { serviceDate: '20260305' }),
    ]);
    await build('20260305', '20260306');
    expect(await brief('20260305')).toEqual([['D702', 'CRH380A-2641', 1]]);
    expect(await brief('20260306')).toEqual([['D701', 'CRH380A-2642', 1]]);
  });

  it('allows a late arrival up to the written slack, no later', async () => {
    expect(LATE_ARRIVAL_SLACK_SECONDS).toBe(2 * 3600);
    await ingestSightings(t.current.db, [
      seen('20260308', '03:10', 'D701', 'CRH380A-2641'),
      seen('20260308', '03:11', 'D701', 'CRH380A-2642'),
    ]);
    await build('20260307', '20260308');
    expect(await brief('20260307')).toEqual([['D701', 'CRH380A-2641', 1]]);
    expect(await brief('20260308')).toEqual([['D701', 'CRH380A-2642', 1]]);
  });

  it('stops taking sightings for the day before once the train’s own run of the day has begun', async () => {
    // From 03-11 D703 leaves at 00:10; on 03-10 it still ran 23:30 -> 25:00.
    await ingestTimetableLines(t.current.db, [
      timetable('D703', '20260101', [
        ['汉口', undefined, '23:30'],
        ['郑州东', '25:00'],
      ]),
      timetable('D703', '20260311', [
        ['汉口', undefined, '00:10'],
        ['郑州东', '01:40'],
      ]),
    ]);
    await ingestSightings(t.current.db, [
      seen('20260311', '00:05', 'D703', 'CRH380A-2641'),
      seen('20260311', '00:20', 'D703', 'CRH380A-2642'),
    ]);
    await build('20260310', '20260311');
    expect(await brief('20260310')).toEqual([['D703', 'CRH380A-2641', 1]]);
    expect(await brief('20260311')).toEqual([['D703', 'CRH380A-2642', 1]]);
  });

  it('attributes a paired run by any of its numbers', async () => {
    await ingestTimetableLines(t.current.db, [
      {
        ...timetable('D4340/37', '20260101', [
          ['武昌', undefined, '22:40'],
          ['襄阳东', '24:10', '24:13'],
          ['宜昌东', '25:20'],
        ]),
        allCodes: ['D4340', 'D4337'],
      },
    ]);
    await ingestSightings(t.current.db, [
      seen('20260312', '22:50', 'D4340/37', 'CRH380A-2641'),
      seen('20260313', '00:40', 'D4337', 'CRH380A-2641'),
    ]);
    await build('20260312', '20260313');
    expect(await brief('20260312')).toEqual([
      ['D4337', 'CRH380A-2641', 2],
      ['D4340', 'CRH380A-2641', 1],
    ]);
    expect(await brief('20260313')).toEqual([]);
  });
});

describe('records meet timetables', () => {
  it('a rebuild after timetables arrive attributes and fills the timetable; an update changes it', async () => {
    await ingestSightings(t.current.db, [
      seen('20260320', '22:30', 'D705', 'CRH380A-2641'),
      seen('20260321', '00:40', 'D705', 'CRH380A-2641'),
      seen('20260321', '22:35', 'D705', 'CRH380A-2642'),
    ]);
    await build('20260320', '20260321');
    // No timetable yet: the 00:40 sighting counts for its calendar day, and there is no timetable.
    expect(await records('20260320')).toEqual([
      { train_code: 'D705', code: 'CRH380A-2641', support: 1, timetable_id: null },
    ]);
    expect((await brief('20260321')).sort()).toEqual([
      ['D705', 'CRH380A-2641', 1],
      ['D705', 'CRH380A-2642', 1],
    ]);

    const first = await ingestTimetableLines(t.current.db, [
      timetable('D705', '20260301', [
        ['上海虹桥', undefined, '22:20'],
        ['合肥南', '24:50'],
      ]),
    ]);
    expect(first.changedFrom).toBe(day('20260301'));
    await build('20260320', '20260321');
    const v1 = await t.current.db.query<{ id: number }>(
      "SELECT id FROM timetables WHERE train_code = 'D705'",
    );
    expect(await records('20260320')).toEqual([
      { train_code: 'D705', code: 'CRH380A-2641', support: 2, timetable_id: v1.rows[0]!.id },
    ]);
    expect(await records('20260321')).toEqual([
      { train_code: 'D705', code: 'CRH380A-2642', support: 1, timetable_id: v1.rows[0]!.id },
    ]);

    // A new version from 03-21: that day's record gets it on rebuild, 03-20 keeps the old one.
    await ingestTimetableLines(t.current.db, [
      timetable('D705', '20260321', [
        ['上海虹桥', undefined, '22:25'],
        ['合肥南', '24:55'],
      ]),
    ]);
    const before = await t.current.db.query<{ id: number }>(
      'SELECT id FROM daily_records WHERE service_day = $1',
      [day('20260321')],
    );
    const rebuilt = await buildDailyRecords(t.current.db, day('20260321'));
    expect(rebuilt).toMatchObject({ inserted: 0, updated: 1, deleted: 0 });
    const [r21] = await records('20260321');
    expect(r21!.timetable_id).not.toBe(v1.rows[0]!.id);
    const after = await t.current.db.query<{ id: number }>(
      'SELECT id FROM daily_records WHERE service_day = $1',
      [day('20260321')],
    );
    expect(after.rows).toEqual(before.rows);
    expect(await buildDailyRecords(t.current.db, day('20260320'))).toMatchObject({
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
  });
});
