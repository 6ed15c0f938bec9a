import { describe, expect, it } from 'vitest';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { readDayBuildState } from '../../src/domain/records/day-build-inputs.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, shanghai, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();

async function rows(day: number) {
  const r = await t.current.db.query<{ id: string; line: string }>(
    `SELECT id::text, concat_ws(',', train_code, emu_id, support, sources, first_observed_at,
                                last_observed_at, status, timetable_id, built_at) AS line
       FROM daily_records WHERE service_day = $1 ORDER BY id`,
    [day],
  );
  return r.rows;
}

describe('buildDailyRecords: unchanged days, --force and the day version', () => {
  it('skips a day whose inputs did not change, keeping ids, bytes and version', async () => {
    const day = serviceDayFromYmd('20261101');
    await ingestSightings(t.current.db, [
      ...sightings('20261101', 'G30', 'CR400AF-2101', 2),
      ...sightings('20261101', 'G31', 'CR400AF-2102', 1),
    ]);
    const first = await buildDailyRecords(t.current.db, day);
    expect(first).toMatchObject({ records: 2, inserted: 2, skipped: false, version: 1 });
    const before = await rows(day);

    const second = await buildDailyRecords(t.current.db, day);
    expect(second).toMatchObject({ records: 2, inserted: 0, updated: 0, deleted: 0 });
    expect(second).toMatchObject({ skipped: true, version: 1, observations: 3 });
    expect(await rows(day)).toEqual(before);

    // --force builds again; nothing differs, so nothing is written and the version stays.
    const forced = await buildDailyRecords(t.current.db, day, {}, { force: true });
    expect(forced).toMatchObject({ skipped: false, inserted: 0, updated: 0, deleted: 0 });
    expect(forced.version).toBe(1);
    expect(await rows(day)).toEqual(before);
    expect(Object.keys(forced.phases)).toEqual(
      expect.arrayContaining(['lock', 'moved', 'inputs', 'wanted', 'insert', 'save']),
    );
  });

  it('builds again and bumps the version when a sighting arrives, a rule changes or a timetable comes into force', async () => {
    const day = serviceDayFromYmd('20261102');
    await ingestSightings(t.current.db, sightings('20261102', 'G40', 'CR400AF-2201', 1));
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ version: 1 });

    await ingestSightings(t.current.db, sightings('20261102', 'G40', 'CR400AF-2201', 1, 'other'));
    const more = await buildDailyRecords(t.current.db, day);
    expect(more).toMatchObject({ skipped: false, updated: 1, version: 2 });

    // Another rule is another input: built, here with a different status.
    const rule = await buildDailyRecords(t.current.db, day, { confirmMinSupport: 3 });
    expect(rule).toMatchObject({ skipped: false, updated: 1, version: 3 });
    expect(await buildDailyRecords(t.current.db, day, { confirmMinSupport: 3 })).toMatchObject({
      skipped: true,
      version: 3,
    });

    // A timetable for G40 from this day: the record gains its timetable_id.
    await ingestTimetableLines(t.current.db, [
      timetable('G40', '20261101', [
        ['Beijingnan', undefined, '08:00'],
        ['Tianjin', '08:30'],
      ]),
    ]);
    const withTimetable = await buildDailyRecords(t.current.db, day, { confirmMinSupport: 3 });
    expect(withTimetable).toMatchObject({ skipped: false, updated: 1, version: 4 });
    expect((await readDayBuildState(t.current.db, day))?.version).toBe(4);
  });

  it('builds a day again whose records were changed by anything but a build', async () => {
    const day = serviceDayFromYmd('20261105');
    await ingestSightings(t.current.db, sightings('20261105', 'G55', 'CR400AF-2351', 2));
    await buildDailyRecords(t.current.db, day);
    await t.current.db.query('DELETE FROM daily_records WHERE service_day = $1', [day]);
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({
      skipped: false,
      inserted: 1,
      records: 1,
      version: 2,
    });
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ skipped: true });
  });

  it('a timetable of another day, or of a number not in force here, leaves the day skipped', async () => {
    const day = serviceDayFromYmd('20261103');
    await ingestSightings(t.current.db, sightings('20261103', 'G50', 'CR400AF-2301', 2));
    await buildDailyRecords(t.current.db, day);
    await ingestTimetableLines(t.current.db, [
      timetable('G51', '20261201', [
        ['Shanghai', undefined, '09:00'],
        ['Hangzhou', '10:00'],
      ]),
    ]);
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ skipped: true });
  });

  it('counts a sighting moved in from after midnight as an input of the day before', async () => {
    const day = serviceDayFromYmd('20261104');
    await ingestTimetableLines(t.current.db, [
      timetable('D60', '20261101', [
        ['Beijing', undefined, '23:00'],
        ['Shanghai', '25:30'],
      ]),
    ]);
    await ingestSightings(t.current.db, [
      {
        observedAt: shanghai('20261104', '23:10'),
        trainCode: 'D60',
        emuCode: 'CR400AF-2401',
        source: 'report',
        ref: 'm1',
      },
    ]);
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ observations: 1 });
    // Seen at 00:40 the next calendar day: stored for 11-05, counted for 11-04.
    await ingestSightings(t.current.db, [
      {
        observedAt: shanghai('20261105', '00:40'),
        trainCode: 'D60',
        emuCode: 'CR400AF-2401',
        source: 'report',
        ref: 'm2',
      },
    ]);
    const rebuilt = await buildDailyRecords(t.current.db, day);
    expect(rebuilt).toMatchObject({ skipped: false, observations: 2, updated: 1 });
  });
});
