import { beforeEach, describe, expect, it } from 'vitest';
import { dayStep } from '../../src/domain/circulation/circulation-days.js';
import { currentCirculation } from '../../src/domain/circulation/current-circulation.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { parseOfficialEntry } from '../../src/domain/circulation/official-entry.js';
import { readRouteOfTrain } from '../../src/domain/circulation/read-circulations.js';
import type { TrainCirculationNode } from '../../src/domain/circulation/train-circulation.js';
import { midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';
import {
  CYCLE_DAY,
  expectedNode,
  importTables,
  officialTable,
  seedLoop,
  seedLoopTimetables,
  TODAY,
} from './circulation-fixture.js';
import { circulationRuns, DAY0, resetCirculationData, seedRuns } from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const codeOf = (n: TrainCirculationNode) =>
  n.allCodes.map((c) => `${c.prefix}${c.number}`).join('/');

/**
 * The service day each train of a rotation of the loop runs on when `anchor` runs on `day`:
 * walking the nodes in order, a day passes whenever the cycle day changes (0 -> 1, or 1 -> 0 when
 * the loop comes round).
 */
function truthDays(trains: string[], anchor: string, day: number): number[] {
  const k = trains.indexOf(anchor);
  const days = trains.map(() => day);
  for (let i = k + 1; i < trains.length; i++)
    days[i] = days[i - 1]! + (CYCLE_DAY[trains[i]!] !== CYCLE_DAY[trains[i - 1]!] ? 1 : 0);
  for (let i = k - 1; i >= 0; i--)
    days[i] = days[i + 1]! - (CYCLE_DAY[trains[i]!] !== CYCLE_DAY[trains[i + 1]!] ? 1 : 0);
  return days;
}

describe('dayStep: when the next train runs', () => {
  it('follows the timetables, else what was seen, else the same day', () => {
    const morning = { startOffset: 7 * 3600, endOffset: 9 * 3600 };
    const later = { startOffset: 10 * 3600, endOffset: 11 * 3600 };
    const lateNight = { startOffset: 21 * 3600 + 40 * 60, endOffset: 25 * 3600 + 10 * 60 };
    expect(dayStep(undefined, morning, later)).toBe(0);
    expect(dayStep(undefined, later, morning)).toBe(1);
    expect(dayStep(undefined, lateNight, morning)).toBe(1);
    // Leaves at 00:30 while the train before arrives at 01:10 of that day: the day after.
    expect(dayStep(undefined, lateNight, { startOffset: 1800, endOffset: 7200 })).toBe(2);
    // Departing the minute the train before arrives is still the same day.
    expect(dayStep(undefined, morning, { startOffset: 9 * 3600, endOffset: 10 * 3600 })).toBe(0);
    // The timetables outvote sightings; without one on either side, sightings decide and a
    // tie is the same day.
    expect(dayStep({ sameDay: 1, nextDay: 5 }, morning, later)).toBe(0);
    expect(dayStep({ sameDay: 5, nextDay: 1 }, later, morning)).toBe(1);
    expect(dayStep({ sameDay: 1, nextDay: 5 }, undefined, later)).toBe(1);
    expect(dayStep({ sameDay: 3, nextDay: 3 }, morning, undefined)).toBe(0);
    expect(dayStep(undefined, undefined, morning)).toBe(0);
  });
});

describe('currentCirculation', () => {
  it('inferred: the route holding the train, each node on its own day with that day’s timetable', async () => {
    const db = t.current.db;
    await seedLoop(db);
    const route = (await readRouteOfTrain(db, 'G13'))!;
    for (const anchor of ['G13', 'G11']) {
      const c = (await currentCirculation(db, {
        trainCode: anchor.toLowerCase(),
        serviceDay: TODAY,
        refreshAt: 1_790_000_000,
      }))!;
      expect(c.source).toBe('inferred');
      expect(c.refreshAt).toBe(1_790_000_000);
      expect(c.metadata).toEqual(route.metadata);
      const trains = c.nodes.map(codeOf);
      expect(trains).toEqual(route.nodes.map((n) => n.nodeKey));
      const days = truthDays(trains, anchor, TODAY);
      expect(days[trains.indexOf(anchor)]).toBe(TODAY);
      expect(c.nodes).toEqual(trains.map((train, i) => expectedNode(train, days[i]!)));
    }
  });

  it('inferred: the version in force on each node’s own day is the one used', async () => {
    const db = t.current.db;
    await seedLoop(db);
    // G11's second version starts TODAY: whichever side of G13 the cut puts G11, one of these
    // anchors puts it before TODAY and the other on or after it.
    for (const day of [TODAY - 1, TODAY + 1]) {
      const c = (await currentCirculation(db, { trainCode: 'G13', serviceDay: day }))!;
      const trains = c.nodes.map(codeOf);
      const days = truthDays(trains, 'G13', day);
      expect(c.nodes).toEqual(trains.map((train, i) => expectedNode(train, days[i]!)));
      expect(c.refreshAt).toBeUndefined();
    }
  });

  it('official raw: the table covering the day wins, in its order, with its check', async () => {
    const db = t.current.db;
    await seedLoop(db);
    await importTables(db, [officialTable('G11#G12#G13#G14')]);
    const c = (await currentCirculation(db, { trainCode: 'G13', serviceDay: TODAY }))!;
    const route = (await readRouteOfTrain(db, 'G13'))!;
    expect(c.source).toBe('official');
    expect(c.metadata).toEqual({
      validationState: 'raw_official',
      originalOfficialEntryKey: parseOfficialEntry(officialTable('G11#G12#G13#G14')).entryKey,
      matchedInferredRouteId: route.metadata.routeId,
    });
    expect(c.nodes).toEqual([
      expectedNode('G11', TODAY - 1),
      expectedNode('G12', TODAY - 1),
      expectedNode('G13', TODAY),
      expectedNode('G14', TODAY),
    ]);
  });

  it('official tables that do not cover the day, or were skipped, leave the inferred route', async () => {
    const db = t.current.db;
    await seedLoop(db);
    await importTables(db, [
      officialTable('G11#G12#G13#G14', { running_start: '20260801', running_end: '20260914' }),
      officialTable('G13#G14#K1', { emu_note: '25G' }),
      officialTable('G14#G13', { running_start: '20260916' }),
    ]);
    const c = (await currentCirculation(db, { trainCode: 'G13', serviceDay: TODAY }))!;
    expect(c.source).toBe('inferred');
    // running_end is inclusive: the day before, the first table covers it.
    const before = (await currentCirculation(db, { trainCode: 'G13', serviceDay: TODAY - 1 }))!;
    expect(before.source).toBe('official');
  });

  it('official with a deadhead and trains never seen: days from the timetables, the deadhead with no times', async () => {
    const db = t.current.db;
    await seedLoopTimetables(db);
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
    await importTables(db, [officialTable('G13#G14#0D6911#D3125#D3126')]);
    const c = (await currentCirculation(db, { trainCode: 'D3126', serviceDay: TODAY }))!;
    expect(c.source).toBe('official');
    expect(c.metadata?.validationState).toBe('unspecified');
    const midnight = midnightOfServiceDay(TODAY - 1);
    expect(c.nodes).toEqual([
      expectedNode('G13', TODAY - 1),
      expectedNode('G14', TODAY - 1),
      {
        internalCode: '0D6911',
        allCodes: [],
        startStation: '',
        endStation: '',
        startAt: 0,
        endAt: 0,
      },
      {
        internalCode: '',
        allCodes: [{ prefix: 'D', number: 3125 }],
        startStation: '上海虹桥',
        endStation: '福州南',
        startAt: midnight + 21 * 3600 + 40 * 60,
        endAt: midnight + 25 * 3600 + 10 * 60,
      },
      {
        internalCode: '',
        allCodes: [{ prefix: 'D', number: 3126 }],
        startStation: '福州南',
        endStation: '上海虹桥',
        startAt: midnight + 86_400 + 7 * 3600 + 30 * 60,
        endAt: midnight + 86_400 + 15 * 3600,
      },
    ]);
  });

  it('official split: the segment holding the train, with its index, count and route', async () => {
    const db = t.current.db;
    await seedLoop(db);
    await importTables(db, [officialTable('G11#G12#G31#G32')]);
    await ingestTimetableLines(db, [
      timetable('G31', '20260801', [
        ['南京南', undefined, '12:00'],
        ['合肥南', '13:00'],
      ]),
      timetable('G32', '20260801', [
        ['合肥南', undefined, '14:00'],
        ['南京南', '15:00'],
      ]),
    ]);
    // G31/G32: a one-unit, one-day loop of its own, so the table is two confirmed parts.
    await seedRuns(
      db,
      circulationRuns({ units: ['CRH380A-2601'], days: [['G31', 'G32']], windowDays: 14 }),
    );
    await inferCirculations(db, { asOf: DAY0 + 13 });
    const g32 = (await currentCirculation(db, { trainCode: 'G32', serviceDay: TODAY }))!;
    const route = (await readRouteOfTrain(db, 'G32'))!;
    expect(g32.metadata).toMatchObject({
      validationState: 'split_official',
      splitSegmentIndex: 1,
      splitSegmentCount: 2,
      matchedInferredRouteId: route.metadata.routeId,
    });
    expect(g32.nodes.map(codeOf)).toEqual(['G31', 'G32']);
    const midnight = midnightOfServiceDay(TODAY);
    expect(g32.nodes[1]).toMatchObject({ startAt: midnight + 14 * 3600, endStation: '南京南' });
    const g12 = (await currentCirculation(db, { trainCode: 'G12', serviceDay: TODAY }))!;
    expect(g12.metadata).toMatchObject({ splitSegmentIndex: 0, splitSegmentCount: 2 });
    expect(g12.nodes).toEqual([expectedNode('G11', TODAY), expectedNode('G12', TODAY)]);
  });

  it('official unmatched: the best candidate route comes along, placed in time too', async () => {
    const db = t.current.db;
    await seedLoop(db);
    await importTables(db, [officialTable('G11#G13')]);
    const c = (await currentCirculation(db, {
      trainCode: 'G11',
      serviceDay: TODAY,
      refreshAt: 42,
    }))!;
    const route = (await readRouteOfTrain(db, 'G11'))!;
    expect(c.metadata?.validationState).toBe('unmatched_official');
    expect(c.metadata?.matchedInferredRouteId).toBe(route.metadata.routeId);
    const candidate = c.metadata!.candidateInferredCirculation!;
    expect(candidate.metadata).toEqual(route.metadata);
    expect(candidate.refreshAt).toBe(42);
    const trains = candidate.nodes.map(codeOf);
    const days = truthDays(trains, 'G11', TODAY);
    expect(candidate.nodes).toEqual(trains.map((train, i) => expectedNode(train, days[i]!)));
  });

  it('a train in no circulation has none; a paired number finds its run', async () => {
    const db = t.current.db;
    await seedLoop(db);
    expect(await currentCirculation(db, { trainCode: 'G99', serviceDay: TODAY })).toBeUndefined();
    const viaOther = await currentCirculation(db, {
      trainCode: 'G98',
      allCodes: ['G98', 'G14'],
      serviceDay: TODAY,
    });
    expect(viaOther?.source).toBe('inferred');
  });
});
