import { beforeEach, describe, expect, it } from 'vitest';
import { currentCirculation } from '../../src/domain/circulation/current-circulation.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import type { TrainCirculationNode } from '../../src/domain/circulation/train-circulation.js';
import { midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { importTables, officialTable } from './circulation-fixture.js';
import { DAY0, resetCirculationData, seedRuns, type SeedRun } from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const TODAY = DAY0 + 14;
/** The service day a node's times fall on (its start, from the day's midnight). */
const dayOf = (n: TrainCirculationNode) => {
  for (let d = TODAY - 5; d <= TODAY + 5; d++)
    if (n.startAt >= midnightOfServiceDay(d) && n.startAt < midnightOfServiceDay(d + 1)) return d;
  throw new Error(`node ${n.internalCode} starts at ${n.startAt}, not near TODAY`);
};

async function timetables(trains: readonly [string, string, string][]) {
  const r = await ingestTimetableLines(
    t.current.db,
    trains.map(([train, dep, arr]) =>
      timetable(train, '20260801', [
        ['上海虹桥', undefined, dep],
        ['南京南', arr],
      ]),
    ),
  );
  expect(r.rejected).toBe(0);
}

/**
 * One unit running five trains one after another every day. Its sightings are reported late
 * and out of order (the 4th train's first report comes before the 3rd's), and one day's
 * reports of the first train arrive only the next morning: a unit running both trains every
 * day gives "A then B the same day" and "A one day, B the next" alike, and the times are no
 * guide.
 */
const FIVE: [string, string, string][] = [
  ['G7301', '06:44', '08:01'],
  ['G7302', '08:23', '09:41'],
  ['G7303', '10:05', '11:48'],
  ['G7304', '12:10', '13:35'],
  ['G7305', '13:59', '15:42'],
];
function dailyFive(): SeedRun[] {
  const runs: SeedRun[] = [];
  for (let d = 0; d < 14; d++) {
    const at = ['09:30', '10:10', '16:00', '13:50', '16:20'];
    FIVE.forEach(([train], i) =>
      runs.push({ emu: 'CR400AF-2301', day: DAY0 + d, train, at: at[i]! }),
    );
  }
  return runs;
}

describe('days of a circulation: timetables first, then only sightings a daily unit cannot make', () => {
  it('a daily single-unit circulation of five trains is placed on one day (official and inferred)', async () => {
    const db = t.current.db;
    await timetables(FIVE);
    // The records carry their timetables (as a build leaves them), so inference orders the runs
    // by timetable, not by the late reports.
    const ids = await db.query<{ id: number; train_code: string }>(
      'SELECT id, train_code FROM timetables',
    );
    const idOf = new Map(ids.rows.map((r) => [r.train_code, r.id]));
    await seedRuns(
      db,
      dailyFive().map((r) => ({ ...r, timetableId: idOf.get(r.train) })),
    );
    await inferCirculations(db, { asOf: DAY0 + 13 });
    const inferred = (await currentCirculation(db, { trainCode: 'G7303', serviceDay: TODAY }))!;
    expect(inferred.source).toBe('inferred');
    expect(inferred.nodes.map(dayOf)).toEqual([TODAY, TODAY, TODAY, TODAY, TODAY]);

    await importTables(db, [officialTable('G7301#G7302#G7303#G7304#G7305')]);
    const official = (await currentCirculation(db, { trainCode: 'G7305', serviceDay: TODAY }))!;
    expect(official.source).toBe('official');
    expect(official.metadata?.validationState).toBe('raw_official');
    expect(official.nodes.map(dayOf)).toEqual([TODAY, TODAY, TODAY, TODAY, TODAY]);
    expect(official.nodes[0]!.startAt).toBe(midnightOfServiceDay(TODAY) + (6 * 60 + 44) * 60);
  });

  it('without timetables, a unit running every train daily is no evidence of a day change', async () => {
    const db = t.current.db;
    // G7303 and G7304 have no timetable: only sightings could decide, and those of a daily unit
    // (G7303 reported after G7304, every day) do not count: the same day.
    await timetables(FIVE.filter(([train]) => train !== 'G7303' && train !== 'G7304'));
    await seedRuns(db, dailyFive());
    await importTables(db, [officialTable('G7301#G7302#G7303#G7304#G7305')]);
    const c = (await currentCirculation(db, { trainCode: 'G7301', serviceDay: TODAY }))!;
    expect(c.nodes.map((n) => n.startAt === 0)).toEqual([false, false, true, true, false]);
    expect(dayOf(c.nodes[4]!)).toBe(TODAY);
    expect(dayOf(c.nodes[1]!)).toBe(TODAY);
  });

  it('a three-day rotation is placed on three days; without a timetable its sightings decide', async () => {
    const db = t.current.db;
    const days = [
      ['G7401', 'G7402'],
      ['G7403', 'G7404'],
      ['G7405', 'G7406'],
    ];
    const units = ['CR400BF-5401', 'CR400BF-5402', 'CR400BF-5403'];
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++)
      units.forEach((emu, k) =>
        days[(k + d) % 3]!.forEach((train, i) =>
          runs.push({ emu, day: DAY0 + d, train, at: i === 0 ? '08:00' : '15:00' }),
        ),
      );
    await seedRuns(db, runs);
    // The first train of each day 07:00-09:00, the second 14:00-16:00; G7403 has no timetable.
    await timetables([
      ['G7401', '07:00', '09:00'],
      ['G7402', '14:00', '16:00'],
      ['G7404', '14:00', '16:00'],
      ['G7405', '07:00', '09:00'],
      ['G7406', '14:00', '16:00'],
    ]);
    await inferCirculations(db, { asOf: DAY0 + 13 });
    const inferred = (await currentCirculation(db, { trainCode: 'G7405', serviceDay: TODAY }))!;
    expect(inferred.source).toBe('inferred');
    // Read from the first train of a day: G7401 G7402 | G7403 G7404 | G7405 G7406.
    expect(inferred.nodes.map((n) => (n.startAt === 0 ? '-' : dayOf(n) - TODAY))).toEqual([
      -2,
      -2,
      '-',
      -1,
      0,
      0,
    ]);
    await importTables(db, [officialTable(days.flat().join('#'))]);
    const c = (await currentCirculation(db, { trainCode: 'G7404', serviceDay: TODAY }))!;
    expect(c.source).toBe('official');
    const codes = c.nodes.map((n) => n.allCodes.map((x) => `${x.prefix}${x.number}`).join());
    expect(codes).toEqual(days.flat());
    // G7402 -> G7403: no timetable for G7403; units ran G7402 one day and G7403 the next
    // (never both on a day): the next day. G7403 -> G7404 the same day, seen so.
    const placed = c.nodes.map((n, i) => (n.startAt === 0 ? `${codes[i]}:-` : dayOf(n) - TODAY));
    expect(placed).toEqual([-1, -1, 'G7403:-', 0, 1, 1]);
  });

  it('a cross-midnight train followed by a morning train: the morning train runs the next day', async () => {
    const db = t.current.db;
    await ingestTimetableLines(db, [
      timetable('D3125', '20260801', [
        ['上海虹桥', undefined, '21:40'],
        ['福州南', '25:10'],
      ]),
      timetable('D3126', '20260801', [
        ['福州南', undefined, '07:30'],
        ['上海虹桥', '15:00'],
      ]),
    ]);
    // Sightings (of a unit running both every day) would say anything: a late report of D3126
    // at 23:00 on the day of D3125.
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++) {
      runs.push({ emu: 'CRH2A-2460', day: DAY0 + d, train: 'D3125', at: '22:00' });
      runs.push({ emu: 'CRH2A-2460', day: DAY0 + d, train: 'D3126', at: '23:00' });
    }
    await seedRuns(db, runs);
    await importTables(db, [officialTable('D3125#D3126')]);
    const c = (await currentCirculation(db, { trainCode: 'D3125', serviceDay: TODAY }))!;
    expect(c.nodes.map(dayOf)).toEqual([TODAY, TODAY + 1]);
    expect(c.nodes[1]!.startAt).toBe(midnightOfServiceDay(TODAY + 1) + (7 * 60 + 30) * 60);
  });
});
