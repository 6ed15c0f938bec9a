import { beforeEach, describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import {
  readRouteOfTrain,
  type StoredRoute,
} from '../../src/domain/circulation/read-circulations.js';
import {
  noCirculation,
  predictTrain,
  predictTrainDays,
} from '../../src/domain/prediction/predict-train.js';
import {
  LOOP_DAYS,
  LOOP_UNITS,
  seedLoopTimetables,
  TODAY,
} from '../circulation/circulation-fixture.js';
import { circulationRuns, DAY0, resetCirculationData, seedRuns } from '../circulation/support.js';
import { countedDb } from '../helpers/counted-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const AS_OF = DAY0 + 13;

/**
 * The two-unit, two-day loop G11 G12 | G13 G14, and a little noise so that the weights are not
 * all 1: on one day the unit that ran G12 also ran G90 that afternoon (G12 -> G90 and
 * G90 -> G13 are seen, but too rarely to be kept; G12 -> G13 is seen on 12 days of 13).
 */
async function seedNoisyLoop(): Promise<StoredRoute> {
  const db = t.current.db;
  await seedLoopTimetables(db);
  const runs = circulationRuns({
    units: [...LOOP_UNITS],
    days: LOOP_DAYS.map((d) => [...d]),
    windowDays: 14,
  });
  // Unit k runs cycle day (k + d) % 2 on day d: on day 4 unit 0 runs G11 G12.
  runs.push({ emu: LOOP_UNITS[0], day: DAY0 + 4, train: 'G90', at: '15:00' });
  await seedRuns(db, runs);
  await inferCirculations(db, { asOf: AS_OF });
  return (await readRouteOfTrain(db, 'G13'))!;
}

/** The product of the forward weights of the links from `from` to `to` along the loop. */
function pathProduct(route: StoredRoute, from: string, to: string, rounds = 0): number {
  const n = route.nodes.length;
  const j = route.nodes.findIndex((x) => x.nodeKey === from);
  const k = route.nodes.findIndex((x) => x.nodeKey === to);
  let p = 1;
  const links = ((k - j + n) % n || n) + rounds * n;
  for (let s = 0, i = j; s < links; s++, i = (i + 1) % n) p *= route.nodes[i]!.next!.forward;
  return p;
}

describe('predictTrain', () => {
  it('finds the unit whose place in the loop puts it on the train in k days, less sure the further', async () => {
    const route = await seedNoisyLoop();
    expect(route.metadata.containsLoopBreak).toBe(true);
    expect(route.nodes.map((n) => n.nodeKey).sort()).toEqual(['G11', 'G12', 'G13', 'G14']);
    // On the window's last day (d = 13) unit 0 ran cycle day 1 (G13, G14), unit 1 cycle day 0.
    const g12Forward = route.nodes.find((n) => n.nodeKey === 'G12')!.next!.forward;
    expect(g12Forward).toBeLessThan(1);

    const tomorrow = await predictTrain(t.current.db, {
      trainCode: 'g13',
      serviceDay: TODAY,
      asOfDay: AS_OF,
    });
    expect(tomorrow).toMatchObject({
      trainCode: 'G13',
      routeId: route.metadata.routeId,
      cycleDays: 2,
    });
    expect(tomorrow.reason).toBeUndefined();
    expect(tomorrow.candidates).toEqual([
      {
        emuId: expect.any(Number),
        emuCode: 'CR400AF-2002',
        confidence: pathProduct(route, 'G12', 'G13'),
        lastSeenServiceDay: AS_OF,
        lastSeenTrainCode: 'G12',
        daysSinceSeen: 1,
        linksAhead: 1,
      },
    ]);

    // Two days on: unit 0, from G14 round the loop (through its cut link) to G13.
    const inTwo = await predictTrain(t.current.db, {
      trainCode: 'G13',
      serviceDay: TODAY + 1,
      asOfDay: AS_OF,
    });
    expect(inTwo.candidates.map((c) => [c.emuCode, c.linksAhead, c.confidence])).toEqual([
      ['CR400AF-2001', 3, pathProduct(route, 'G14', 'G13')],
    ]);
    // Three days on: unit 1 again, one whole round of the loop further.
    const inThree = await predictTrain(t.current.db, {
      trainCode: 'G13',
      serviceDay: TODAY + 2,
      asOfDay: AS_OF,
    });
    expect(inThree.candidates).toHaveLength(1);
    expect(inThree.candidates[0]).toMatchObject({ emuCode: 'CR400AF-2002', linksAhead: 5 });
    expect(inThree.candidates[0]!.confidence).toBeCloseTo(pathProduct(route, 'G12', 'G13', 1), 12);
    expect(inThree.candidates[0]!.confidence).toBeLessThan(tomorrow.candidates[0]!.confidence);
    // G11 tomorrow: unit 0, from G14 over the night.
    const g11 = await predictTrain(t.current.db, {
      trainCode: 'G11',
      serviceDay: TODAY,
      asOfDay: AS_OF,
    });
    expect(g11.candidates.map((c) => c.emuCode)).toEqual(['CR400AF-2001']);
  });

  it('a unit last seen on another circulation has left this one', async () => {
    await seedNoisyLoop();
    // After the inference run: unit 1 ran G12 and then, that evening, a train of no route.
    await seedRuns(t.current.db, [{ emu: LOOP_UNITS[1], day: AS_OF, train: 'G777', at: '20:00' }]);
    const p = await predictTrain(t.current.db, {
      trainCode: 'G13',
      serviceDay: TODAY,
      asOfDay: AS_OF,
    });
    expect(p.candidates).toEqual([]);
    expect(p.reason?.code).toBe('no_unit_due');
  });

  it('no data: no circulation, or no sighting in the lookback, is an empty answer with a reason', async () => {
    await seedNoisyLoop();
    const none = await predictTrain(t.current.db, {
      trainCode: 'G500',
      serviceDay: TODAY,
      asOfDay: AS_OF,
    });
    expect(none).toMatchObject({ candidates: [], reason: { code: 'no_circulation' } });
    expect(none.reason!.message).toMatch(/G500 is in no inferred circulation/);
    const stale = await predictTrain(t.current.db, {
      trainCode: 'G13',
      serviceDay: AS_OF + 31,
      asOfDay: AS_OF + 30,
    });
    expect(stale).toMatchObject({ candidates: [], reason: { code: 'no_recent_sighting' } });
    expect(stale.reason!.message).toMatch(
      /no unit of G13's circulation was seen from \d{8} to \d{8}/,
    );
  });

  it('several days at once are each day predicted alone; a train in no route needs one query', async () => {
    await seedNoisyLoop();
    const days = [TODAY, TODAY + 1, TODAY + 2];
    for (const trainCode of ['G13', 'G500']) {
      const together = await predictTrainDays(t.current.db, {
        trainCode,
        serviceDays: days,
        asOfDay: AS_OF,
      });
      const alone = await Promise.all(
        days.map((serviceDay) =>
          predictTrain(t.current.db, { trainCode, serviceDay, asOfDay: AS_OF }),
        ),
      );
      expect(together).toEqual(alone);
    }
    const db = countedDb(t.current.db);
    expect(
      await predictTrainDays(db, { trainCode: 'G500', serviceDays: days, asOfDay: AS_OF }),
    ).toEqual(noCirculation('g500', days, AS_OF));
    expect(db.queries).toBe(1);
    expect(
      (
        await predictTrainDays(t.current.db, {
          trainCode: 'G13',
          serviceDays: days,
          asOfDay: AS_OF,
        })
      ).flatMap((p) => p.candidates).length,
    ).toBeGreaterThan(0);
  });

  it('a chain that is not a loop: a unit only goes forward along it', async () => {
    // Each day a different unit runs G1 G2 G3 and is never seen again.
    const runs = Array.from({ length: 14 }, (_, d) =>
      ['G1', 'G2', 'G3'].map((train, i) => ({
        emu: `CRH2A-20${String(d).padStart(2, '0')}`,
        day: DAY0 + d,
        train,
        at: `${String(7 + 3 * i).padStart(2, '0')}:00`,
      })),
    ).flat();
    await seedRuns(t.current.db, runs);
    await inferCirculations(t.current.db, { asOf: AS_OF });
    const p = await predictTrain(t.current.db, {
      trainCode: 'G1',
      serviceDay: TODAY,
      asOfDay: AS_OF,
    });
    expect(p.cycleDays).toBeUndefined();
    expect(p).toMatchObject({ candidates: [], reason: { code: 'no_unit_due' } });
  });
});
