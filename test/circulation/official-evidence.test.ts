import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recheckOfficialForDays } from '../../src/domain/circulation/check-official.js';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { matchOfficial, RouteIndex } from '../../src/domain/circulation/match-official.js';
import type { SightingEvidence } from '../../src/domain/circulation/official-evidence.js';
import { parseOfficialEntry } from '../../src/domain/circulation/official-entry.js';
import { readOfficialCirculation } from '../../src/domain/circulation/read-circulations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { addTimetable, DAY0, resetCirculationData, seedRuns, type SeedRun } from './support.js';

/**
 * Official tables judged on evidence, not on completeness: a link the
 * inference did not keep is missing evidence; only kept links or sightings contradict a table.
 */
const entry = (trainNoTotal: string) => ({
  running_start: '20260801',
  running_end: '20991231',
  emu_note: 'CR400AF',
  administrator: '上海局 上海动车段',
  train_no_total: trainNoTotal,
});
const trains = (total: string) => parseOfficialEntry(entry(total)).trains;
const codes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `G${from + i}`);

/** Evidence of trains seen next after others (and so just before them), on `days` days each. */
function seenNext(pairs: [string, string][], days = 5): SightingEvidence {
  const next = new Map<string, Map<string, number>>();
  const previous = new Map<string, Map<string, number>>();
  for (const [a, b] of pairs) {
    if (!next.has(a)) next.set(a, new Map());
    next.get(a)!.set(b, days);
    if (!previous.has(b)) previous.set(b, new Map());
    previous.get(b)!.set(a, days);
  }
  return {
    next: (c) => next.get(c),
    previous: (c) => previous.get(c),
    seen: (c) => next.has(c) || previous.has(c),
  };
}

describe('matchOfficial: missing links are not evidence against a table', () => {
  it('raw_official: a ten-train, two-day table whose last train the inference could not link', () => {
    // G101..G109 chained; G110 (seen, but its links not kept) in no route: the links
    // G109 -> G110 and the wrap G110 -> G101 are missing, and nothing contradicts them.
    const index = new RouteIndex([
      { routeId: 'a', nodes: codes(101, 109), containsLoopBreak: false },
    ]);
    const table = trains(codes(101, 110).join('#'));
    expect(matchOfficial(table, index)).toMatchObject({
      state: 'raw_official',
      matchedRouteId: 'a',
      officialLinks: 10,
      confirmedLinks: 8,
      segments: [],
    });
    // The same table, chained in two pieces (the overnight link and the wrap not kept): still
    // one circulation missing links, not two circulations.
    const pieces = new RouteIndex([
      { routeId: 'day1', nodes: codes(101, 105), containsLoopBreak: false },
      { routeId: 'day2', nodes: codes(106, 110), containsLoopBreak: false },
    ]);
    expect(matchOfficial(table, pieces)).toMatchObject({
      state: 'raw_official',
      confirmedLinks: 8,
    });
  });

  it('split_official: a table joining two circulations, one of which misses a link', () => {
    // A: a kept loop G201..G204. B: G301 G302 G303 with G301 -> G302 not kept, so the
    // inference holds it as the path G302 G303 G301 (its wrap G303 -> G301 kept).
    const index = new RouteIndex([
      { routeId: 'a', nodes: codes(201, 204), containsLoopBreak: true },
      { routeId: 'b', nodes: ['G302', 'G303', 'G301'], containsLoopBreak: false },
    ]);
    const table = trains([...codes(201, 204), ...codes(301, 303)].join('#'));
    expect(matchOfficial(table, index)).toMatchObject({
      state: 'split_official',
      segments: [
        { segmentIndex: 0, segmentCount: 2, firstPosition: 0, lastPosition: 3, routeId: 'a' },
        { segmentIndex: 1, segmentCount: 2, firstPosition: 4, lastPosition: 6, routeId: 'b' },
      ],
    });
  });

  it('unmatched_official: a table contradicted by a kept link', () => {
    // The inference keeps G402 -> G409: the table's G402 -> G403 is contradicted. (G404 -> G401
    // is only missing.)
    const index = new RouteIndex([
      { routeId: 'a', nodes: ['G401', 'G402', 'G409'], containsLoopBreak: false },
      { routeId: 'b', nodes: ['G403', 'G404'], containsLoopBreak: false },
    ]);
    expect(matchOfficial(trains('G401#G402#G403#G404'), index)).toMatchObject({
      state: 'unmatched_official',
      matchedRouteId: 'a',
      confirmedLinks: 2,
    });
  });

  it('unmatched_official: a table contradicted by sightings on enough days; an unseen run skipped is no contradiction', () => {
    const index = new RouteIndex([
      { routeId: 'a', nodes: codes(501, 504), containsLoopBreak: false },
    ]);
    const table = trains(codes(501, 505).join('#'));
    expect(matchOfficial(table, index).state).toBe('raw_official');
    // Units seen running G777 after G504: the table's G504 -> G505 is contradicted.
    expect(matchOfficial(table, index, seenNext([['G504', 'G777']])).state).toBe(
      'unmatched_official',
    );
    // Units seen running G501 after G504 (G505 unseen): the table's order, a run skipped.
    expect(matchOfficial(table, index, seenNext([['G504', 'G501']])).state).toBe('raw_official');
    // A train seen just before G505 that the table does not have there contradicts it too.
    expect(matchOfficial(table, index, seenNext([['G888', 'G505']])).state).toBe(
      'unmatched_official',
    );
  });

  it('a unit seen on a train of its circulation after skipping unseen runs along an inferred route counts against the link the route already breaks, not where the step started', () => {
    // A: a kept loop G201..G204. B: G301 G302 G303, G302 -> G303 not kept, so the inference
    // holds it as the path G303 G301 G302 (its wrap G303 -> G301 kept). The table joins A and
    // B; its G303 -> G201 is contradicted by the kept G303 -> G301, G204 -> G301 by A's loop.
    const index = new RouteIndex([
      { routeId: 'a', nodes: codes(201, 204), containsLoopBreak: true },
      { routeId: 'b', nodes: ['G303', 'G301', 'G302'], containsLoopBreak: false },
    ]);
    const table = trains([...codes(201, 204), ...codes(301, 303)].join('#'));
    const split = {
      state: 'split_official',
      segments: [
        { segmentIndex: 0, firstPosition: 0, lastPosition: 3, routeId: 'a' },
        { segmentIndex: 1, firstPosition: 4, lastPosition: 6, routeId: 'b' },
      ],
    };
    expect(matchOfficial(table, index)).toMatchObject(split);
    // Units of B seen on G302 and next on G301, their G303 unseen: the table's G302 -> G303,
    // then B's kept G303 -> G301. And seen on G303 and next on G302, G301 unseen.
    expect(
      matchOfficial(
        table,
        index,
        seenNext([
          ['G302', 'G301'],
          ['G303', 'G302'],
        ]),
      ),
    ).toMatchObject(split);
    // A train of neither circulation after G302 still contradicts the table's G302 -> G303.
    expect(matchOfficial(table, index, seenNext([['G302', 'G777']])).state).toBe(
      'unmatched_official',
    );
  });

  it('a table whose trains were seen but none of whose links was kept is raw; one of trains no one saw is unmatched', () => {
    const index = new RouteIndex([{ routeId: 'a', nodes: ['G1', 'G2'], containsLoopBreak: false }]);
    expect(matchOfficial(trains('G901#G902#G903'), index)).toMatchObject({
      state: 'unmatched_official',
      confirmedLinks: 0,
    });
    // Units seen on G300 and G111 (one day apart, too rarely for the links to be kept).
    const seen: SightingEvidence = {
      next: () => undefined,
      previous: () => undefined,
      seen: (c) => c === 'G300' || c === 'G111',
    };
    const check = matchOfficial(trains('G300#G111'), index, seen);
    expect(check).toMatchObject({ state: 'raw_official', confirmedLinks: 0 });
    expect(check.matchedRouteId).toBeUndefined();
  });
});

describe('official tables judged against the sightings, again when their days rebuild', () => {
  const t = useTestDatabase();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-official-evidence-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  beforeEach(() => resetCirculationData(t.current.db));

  it('a table right but with links missing is raw; sightings of a different next train on enough days make it unmatched once its days are judged again', async () => {
    // A different unit each day runs G801 G802 G803: the links are kept, the route is the path
    // G801 G802 G803 (no unit carries on overnight). G804 is never seen.
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++)
      for (const [i, train] of ['G801', 'G802', 'G803'].entries())
        runs.push({ emu: `CR400AF-${3001 + d}`, day: DAY0 + d, train, at: `${8 + 2 * i}:00` });
    await seedRuns(t.current.db, runs);
    await inferCirculations(t.current.db, { asOf: DAY0 + 13 });
    const file = path.join(dir, 'table.json');
    await writeFile(file, JSON.stringify([entry('G801#G802#G803#G804')]));
    await importOfficialCirculations(t.current.db, file);
    const key = parseOfficialEntry(entry('G801#G802#G803#G804')).entryKey;
    const check = async () => (await readOfficialCirculation(t.current.db, key))!.validationState;
    expect(await check()).toBe('raw_official');

    // Late sightings, built into the records of three days: the unit ran G999 after G803.
    const late: SeedRun[] = [0, 1, 2].map((d) => ({
      emu: `CR400AF-${3001 + d}`,
      day: DAY0 + d,
      train: 'G999',
      at: '15:00',
    }));
    await seedRuns(t.current.db, late);
    // Days outside the current run's window change nothing.
    expect(await recheckOfficialForDays(t.current.db, [DAY0 + 40])).toBeUndefined();
    expect(await check()).toBe('raw_official');
    const summary = await recheckOfficialForDays(t.current.db, [DAY0, DAY0 + 1, DAY0 + 2]);
    expect(summary).toMatchObject({ checked: 1, unmatched: 1 });
    expect(await check()).toBe('unmatched_official');
  });

  it('sightings whose first-seen order inverts the running order are judged as if they had come in order', async () => {
    // A different unit each day runs G601..G608 by their timetables (06:00, 08:00, ... 20:00):
    // the route is the path G601..G608, the table's wrap G608 -> G601 is not confirmed, so the
    // sightings around it are read. On three days a unit's G601 was first reported at 09:00,
    // after its G602, and on three others its G608 at 17:00, before its G607: in the order of
    // sighting, G602 came just before G601 and G607 just after G608. In running order, neither.
    const db = t.current.db;
    const trainCodes = codes(601, 608);
    const timetable = new Map<string, number>();
    for (const [i, train] of trainCodes.entries()) {
      const h = 6 + 2 * i;
      timetable.set(train, await addTimetable(db, [train], `${h}:00`, `${h + 1}:30`));
    }
    const runs: SeedRun[] = [];
    for (let d = 0; d < 14; d++)
      for (const [i, train] of trainCodes.entries()) {
        let at = `${6 + 2 * i}:10`;
        if (train === 'G601' && d < 3) at = '09:00';
        if (train === 'G608' && d >= 3 && d < 6) at = '17:00';
        runs.push({
          emu: `CR400AF-${3101 + d}`,
          day: DAY0 + d,
          train,
          at,
          until: at,
          timetableId: timetable.get(train)!,
        });
      }
    await seedRuns(db, runs);
    const run = await inferCirculations(db, { asOf: DAY0 + 13 });
    expect(run).toMatchObject({ routes: 1, linksKept: 7, runsOrderedBySighting: 0 });
    const file = path.join(dir, 'in-order.json');
    await writeFile(file, JSON.stringify([entry(trainCodes.join('#'))]));
    await importOfficialCirculations(db, file);
    const key = parseOfficialEntry(entry(trainCodes.join('#'))).entryKey;
    expect((await readOfficialCirculation(db, key))!.validationState).toBe('raw_official');

    // A wrong table is still contradicted, by units seen in running order: G605 is not
    // followed by G607.
    const wrong = entry('G601#G602#G603#G604#G605#G607#G608');
    await writeFile(file, JSON.stringify([wrong]));
    await importOfficialCirculations(db, file);
    const wrongKey = parseOfficialEntry(wrong).entryKey;
    expect((await readOfficialCirculation(db, wrongKey))!.validationState).toBe(
      'unmatched_official',
    );
  });
});
