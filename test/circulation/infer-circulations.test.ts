import { beforeEach, describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import {
  readCurrentRoutes,
  type StoredRoute,
} from '../../src/domain/circulation/read-circulations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { ingestSightings, shanghai, type Sighting } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import {
  addTimetable,
  circulationRuns,
  DAY0,
  resetCirculationData,
  seedRuns,
  type SeedRun,
} from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const LAST = DAY0 + 13;
const infer = (options: Partial<Parameters<typeof inferCirculations>[1]> = {}) =>
  inferCirculations(t.current.db, { asOf: LAST, ...options });

/** Routes as [nodes, containsLoopBreak], ordered by their first node. */
async function routes(): Promise<[string[], boolean][]> {
  const all = await readCurrentRoutes(t.current.db);
  return all
    .map((r): [string[], boolean] => [r.nodes.map((n) => n.nodeKey), r.metadata.containsLoopBreak])
    .sort((a, b) => (a[0][0]! < b[0][0]! ? -1 : 1));
}

async function routeOf(node: string): Promise<StoredRoute> {
  const r = (await readCurrentRoutes(t.current.db)).find((x) =>
    x.nodes.some((n) => n.nodeKey === node),
  );
  if (!r) throw new Error(`no route holds ${node}`);
  return r;
}

/** Each of 14 days, a different unit runs `trains` and nothing else in the window. */
function dailyChain(trains: readonly string[], unitPrefix: string, days = 14): SeedRun[] {
  return Array.from({ length: days }, (_, d) =>
    trains.map((train, i) => ({
      emu: `${unitPrefix}-${d}`,
      day: DAY0 + d,
      train,
      at: `${String(7 + 2 * i).padStart(2, '0')}:00`,
    })),
  ).flat();
}

describe('inferCirculations', () => {
  it('a clean chain: one route, every link weight 1, support = days seen', async () => {
    await seedRuns(t.current.db, dailyChain(['G1', 'G2', 'G3'], 'CRH2A-10'));
    const r = await infer();
    expect(r).toMatchObject({
      windowStart: DAY0,
      windowEnd: LAST,
      runs: 42,
      runsOrderedBySighting: 42,
      linksSeen: 2,
      linksKept: 2,
      routes: 1,
      loopBreaks: 0,
    });
    const route = await routeOf('G1');
    expect(route.nodes.map((n) => n.nodeKey)).toEqual(['G1', 'G2', 'G3']);
    expect(route.metadata).toMatchObject({
      containsLoopBreak: false,
      threshold: 0.8,
      lowestLinkWeight: 1,
      lowestLinkSupportCount: 14,
    });
    expect(route.nodes[0]!.next).toEqual({ weight: 1, forward: 1, backward: 1, support: 14 });
    expect(route.nodes[2]!.next).toBeUndefined();
  });

  it('a loop: a two-day cycle of two units closes on itself and is cut at its weakest link', async () => {
    await seedRuns(
      t.current.db,
      circulationRuns({
        units: ['CR400AF-2001', 'CR400AF-2002'],
        days: [
          ['G11', 'G12'],
          ['G13', 'G14'],
        ],
        windowDays: 14,
      }),
    );
    const r = await infer();
    expect(r).toMatchObject({ routes: 1, loopBreaks: 1, linksKept: 4 });
    const route = await routeOf('G11');
    // Same-day links were seen on 14 days, the overnight ones on 13 (the window's last night is
    // not in it); of the two overnight links, G14->G11 loses the tie on keys and is cut.
    expect(route.nodes.map((n) => n.nodeKey)).toEqual(['G11', 'G12', 'G13', 'G14']);
    expect(route.metadata).toMatchObject({
      containsLoopBreak: true,
      lowestLinkWeight: 1,
      lowestLinkSupportCount: 13,
    });
    expect(route.nodes.map((n) => n.next?.support)).toEqual([14, 13, 14, 13]);
  });

  it('a loop is cut where its weight is lowest, and keeps its routeId when the cut moves', async () => {
    const units = ['CRH380A-2601'];
    const days = [['D1', 'D2', 'D3', 'D4']];
    const base = circulationRuns({ units, days, windowDays: 14 });
    // On day 3 the unit was also (wrongly) named on X9 between D1 and D2: D1->X9->D2 is no
    // skip (X9 is on no known path), so D1->D2 is seen on 13 days against 14 out of D1 and 14
    // into D2: 13/14, the weakest, and cut.
    const detour = (day: number, at: string) => [
      ...base,
      { emu: units[0]!, day: DAY0 + day, train: 'X9', at },
    ];
    await seedRuns(t.current.db, detour(3, '08:00'));
    await infer();
    const first = await routeOf('D1');
    expect(first.metadata.containsLoopBreak).toBe(true);
    expect(first.nodes.map((n) => n.nodeKey)).toEqual(['D2', 'D3', 'D4', 'D1']);
    expect(first.metadata.lowestLinkWeight).toBe(1);
    expect(first.nodes[3]!.next).toMatchObject({
      support: 13,
      forward: 13 / 14,
      backward: 13 / 14,
    });

    await resetCirculationData(t.current.db);
    // The same detour after D4 on day 5 (D4->X9, then X9->D1 overnight): D4->D1 drops to
    // 12/13 and is cut instead.
    await seedRuns(t.current.db, detour(5, '14:00'));
    await infer();
    const second = await routeOf('D1');
    expect(second.nodes.map((n) => n.nodeKey)).toEqual(['D1', 'D2', 'D3', 'D4']);
    expect(second.metadata.routeId).toBe(first.metadata.routeId);
  });

  it('a branch: a train followed by two others half the time each keeps neither link', async () => {
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++) {
      const next = d % 2 === 0 ? 'G22' : 'G23';
      runs.push(
        { emu: `CRH2A-20${d}`, day: DAY0 + d, train: 'G21', at: '07:00' },
        { emu: `CRH2A-20${d}`, day: DAY0 + d, train: next, at: '09:00' },
      );
    }
    await seedRuns(t.current.db, runs);
    const r = await infer();
    expect(r).toMatchObject({ linksSeen: 2, linksKept: 0, routes: 0 });
    // At threshold 0.5 both links pass; the stronger (tie: G22 before G23 by key) is taken.
    const loose = await infer({ threshold: 0.5 });
    expect(loose).toMatchObject({ linksKept: 2, routes: 1 });
    expect(await routes()).toEqual([[['G21', 'G22'], false]]);
  });

  it('a conflict: a wrong unit kept for one train on one day does not break either route', async () => {
    const runs = [...dailyChain(['G31', 'G32', 'G33'], 'A'), ...dailyChain(['G41', 'G42'], 'B')];
    // Day 4: the unit running G41/G42 is also recorded on G32, between its own two trains.
    runs.push({ emu: 'B-4', day: DAY0 + 4, train: 'G32', at: '09:00' });
    runs.find((x) => x.emu === 'B-4' && x.train === 'G42')!.at = '11:00';
    await seedRuns(t.current.db, runs);
    const r = await infer();
    expect(r.linksSeen).toBe(5);
    expect(await routes()).toEqual([
      [['G31', 'G32', 'G33'], false],
      [['G41', 'G42'], false],
    ]);
    expect((await routeOf('G41')).nodes[0]!.next).toMatchObject({ support: 13, forward: 13 / 14 });
  });

  it('weights exactly at the threshold are kept, just below are not; support below the minimum is not', async () => {
    const runs: SeedRun[] = [];
    // G51 -> G52 on 8 days, G51 -> G53 on 2: forward 8/10 = 0.8 exactly.
    for (let d = 0; d < 10; d++) {
      runs.push(
        { emu: `X-${d}`, day: DAY0 + d, train: 'G51', at: '07:00' },
        { emu: `X-${d}`, day: DAY0 + d, train: d < 8 ? 'G52' : 'G53', at: '09:00' },
      );
    }
    // G61 -> G62 on 7 days, G61 -> G63 on 2: 7/9 < 0.8.
    for (let d = 0; d < 9; d++) {
      runs.push(
        { emu: `Y-${d}`, day: DAY0 + d, train: 'G61', at: '07:00' },
        { emu: `Y-${d}`, day: DAY0 + d, train: d < 7 ? 'G62' : 'G63', at: '09:00' },
      );
    }
    // G71 -> G72 on 3 days (the minimum), G81 -> G82 on 2.
    for (let d = 0; d < 3; d++)
      runs.push(
        { emu: `Z-${d}`, day: DAY0 + d, train: 'G71', at: '07:00' },
        { emu: `Z-${d}`, day: DAY0 + d, train: 'G72', at: '09:00' },
      );
    for (let d = 0; d < 2; d++)
      runs.push(
        { emu: `W-${d}`, day: DAY0 + d, train: 'G81', at: '07:00' },
        { emu: `W-${d}`, day: DAY0 + d, train: 'G82', at: '09:00' },
      );
    await seedRuns(t.current.db, runs);
    await infer();
    expect(await routes()).toEqual([
      [['G51', 'G52'], false],
      [['G71', 'G72'], false],
    ]);
    expect((await routeOf('G51')).metadata.lowestLinkWeight).toBe(0.8);
    // The same counts pass at 0.75 (7/9 = 0.78) and with a minimum support of 2.
    await infer({ threshold: 0.75, minSupport: 2 });
    expect((await routes()).map((x) => x[0][0])).toEqual(['G51', 'G61', 'G71', 'G81']);
  });

  it('days with missing sightings: a lost train is a skip through its links, a lost day costs one observation', async () => {
    const units = ['CR400BF-5001', 'CR400BF-5002'];
    const days = [
      ['G91', 'G92', 'G93'],
      ['G94', 'G95'],
    ];
    const runs = circulationRuns({ units, days, windowDays: 14 }).filter(
      (x) =>
        // One unit's G92 on day 2 was never seen (G91 -> G93 once: a skip, counted for G91->G92
        // and G92->G93 on that day) ...
        !(x.day === DAY0 + 2 && x.train === 'G92') &&
        // ... and the other unit was not seen at all on day 6 (no overnight link across it).
        !(x.day === DAY0 + 6 && x.emu === 'CR400BF-5002'),
    );
    await seedRuns(t.current.db, runs);
    const r = await infer();
    expect(r).toMatchObject({ routes: 1, loopBreaks: 1 });
    const route = await routeOf('G91');
    expect([...route.nodes.map((n) => n.nodeKey)].sort()).toEqual([
      'G91',
      'G92',
      'G93',
      'G94',
      'G95',
    ]);
    const support = Object.fromEntries(route.nodes.map((n) => [n.nodeKey, n.next?.support]));
    expect(support).toMatchObject({ G91: 14, G92: 14 });
    expect(route.nodes.find((n) => n.nodeKey === 'G91')!.next).toMatchObject({
      forward: 1,
      backward: 1,
    });
  });

  it('coupled units on one train count a link once per day, not once per unit', async () => {
    const days = [['D101', 'D102', 'D103']];
    await seedRuns(t.current.db, [
      ...circulationRuns({ units: ['CRH380B-3001'], days, windowDays: 14 }),
      ...circulationRuns({ units: ['CRH380B-3002'], days, windowDays: 14 }),
    ]);
    await infer();
    const route = await routeOf('D101');
    expect(route.nodes.map((n) => n.next?.support)).toEqual([14, 14, 13]);
    expect(route.nodes.map((n) => n.nodeKey)).toEqual(['D101', 'D102', 'D103']);
  });

  it('a coupled unit unseen on a train does not make its partner’s link look weak', async () => {
    const days = [['D201', 'D202', 'D203']];
    // The second unit of the pair goes unseen on D202 on four days: it seems to run D201 -> D203.
    const second = circulationRuns({ units: ['CRH380B-3004'], days, windowDays: 14 }).filter(
      (x) => !(x.train === 'D202' && [1, 4, 7, 10].includes(x.day - DAY0)),
    );
    await seedRuns(t.current.db, [
      ...circulationRuns({ units: ['CRH380B-3003'], days, windowDays: 14 }),
      ...second,
    ]);
    const r = await infer();
    // Counted, D201 -> D203 would give D201 -> D202 a forward weight of 14/18 < 0.8.
    expect(r.linksSeen).toBe(3);
    const route = await routeOf('D201');
    expect(route.nodes.map((n) => n.nodeKey)).toEqual(['D201', 'D202', 'D203']);
    expect(route.nodes[0]!.next).toMatchObject({ support: 14, forward: 1 });
  });

  it('orders runs by timetable start, and by first sighting only where there is no timetable', async () => {
    // Sightings came in the wrong order (G112 seen early, G111 late), the timetables say G111 first.
    const g111 = await addTimetable(t.current.db, ['G111'], '07:00', '08:30');
    const g112 = await addTimetable(t.current.db, ['G112'], '09:00', '10:30');
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++) {
      runs.push(
        { emu: `T-${d}`, day: DAY0 + d, train: 'G111', at: '08:20', timetableId: g111 },
        { emu: `T-${d}`, day: DAY0 + d, train: 'G112', at: '06:00', timetableId: g112 },
        { emu: `T-${d}`, day: DAY0 + d, train: 'G113', at: '12:00' },
      );
    }
    await seedRuns(t.current.db, runs);
    const r = await infer();
    expect(r.runsOrderedBySighting).toBe(14);
    expect(await routes()).toEqual([[['G111', 'G112', 'G113'], false]]);
  });

  it('a paired run is one node, and a train seen both sides of midnight is one run', async () => {
    const pair = await addTimetable(t.current.db, ['G4340', 'G4337'], '07:00', '09:00');
    const late = await addTimetable(t.current.db, ['D7'], '23:20', '24:40');
    const emu = 'CR400AF-7001';
    const runs: SeedRun[] = [];
    // One unit, a two-day cycle: G4340/37, G15, D7 (arrives 00:40), then G16, G17.
    for (let d = 0; d < 14; d += 2) {
      runs.push(
        { emu, day: DAY0 + d, train: 'G4340', at: '07:10', timetableId: pair },
        { emu, day: DAY0 + d, train: 'G4337', at: '08:10', timetableId: pair },
        { emu, day: DAY0 + d, train: 'G15', at: '12:00' },
        { emu, day: DAY0 + d, train: 'D7', at: '23:30', until: '23:50', timetableId: late },
        // The same D7 run seen after midnight, attributed to the next day.
        { emu, day: DAY0 + d + 1, train: 'D7', at: '00:10', until: '00:30', timetableId: late },
        { emu, day: DAY0 + d + 1, train: 'G16', at: '08:00' },
        { emu, day: DAY0 + d + 1, train: 'G17', at: '12:00' },
      );
    }
    await seedRuns(t.current.db, runs);
    await infer();
    expect(await routes()).toEqual([[['G4340/G4337', 'G15', 'D7', 'G16', 'G17'], true]]);
    const route = await routeOf('G15');
    expect(route.nodes[0]!.trainCodes).toEqual(['G4340', 'G4337']);
    expect(route.nodes.map((n) => n.next?.support)).toEqual([7, 7, 7, 7, 6]);
  });

  it('learns paired numbers from sightings when there is no timetable', async () => {
    const sightings: Sighting[] = [];
    for (let d = 0; d < 4; d++) {
      const ymd = `202609${String(1 + d).padStart(2, '0')}`;
      const s = (hhmm: string, trainCode: string, ref: string): Sighting => ({
        observedAt: shanghai(ymd, hhmm),
        trainCode,
        emuCode: 'CR400BF-A-5156',
        source: 'report',
        ref: `${ymd}-${ref}`,
      });
      sightings.push(
        s('07:10', 'G4340', 'a'),
        s('07:40', 'G4340/37', 'b'),
        s('08:20', 'G4337', 'c'),
        s('10:00', 'G16', 'd'),
        s('10:30', 'G16', 'e'),
      );
    }
    await ingestSightings(t.current.db, sightings);
    for (let d = 0; d < 4; d++) await buildDailyRecords(t.current.db, DAY0 + d);
    const r = await inferCirculations(t.current.db, { asOf: DAY0 + 3 });
    expect(r.runs).toBe(8);
    expect(await routes()).toEqual([[['G4340/G4337', 'G16'], true]]);
  });

  it('gives the same routeIds on a rerun over the same records', async () => {
    await seedRuns(t.current.db, [
      ...dailyChain(['G201', 'G202'], 'P'),
      ...circulationRuns({
        units: ['Q-1', 'Q-2'],
        days: [['G211', 'G212'], ['G213']],
        windowDays: 14,
      }),
    ]);
    const first = await infer();
    const ids = (await readCurrentRoutes(t.current.db)).map((x) => x.metadata.routeId);
    const second = await infer();
    expect(second.runId).not.toBe(first.runId);
    expect((await readCurrentRoutes(t.current.db)).map((x) => x.metadata.routeId)).toEqual(ids);
    expect(ids).toHaveLength(2);
  });
});
