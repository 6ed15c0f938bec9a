import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { matchOfficial, RouteIndex } from '../../src/domain/circulation/match-official.js';
import { parseOfficialEntry } from '../../src/domain/circulation/official-entry.js';
import {
  readCurrentRoutes,
  readOfficialCirculation,
} from '../../src/domain/circulation/read-circulations.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { circulationRuns, DAY0, resetCirculationData, seedRuns } from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-official-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function fileWith(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

const entry = (trainNoTotal: string, extra: Record<string, unknown> = {}) => ({
  running_start: '20260801',
  running_end: '20991231',
  emu_note: 'CR400AF',
  administrator: '上海局 上海动车段',
  train_no_total: trainNoTotal,
  ...extra,
});

/** Imports one table and returns its stored check. */
async function importOne(trainNoTotal: string) {
  const file = await fileWith(`one-${trainNoTotal}.json`, JSON.stringify([entry(trainNoTotal)]));
  const r = await importOfficialCirculations(t.current.db, file);
  expect(r.imported + r.duplicate).toBe(1);
  const key = parseOfficialEntry(entry(trainNoTotal)).entryKey;
  return (await readOfficialCirculation(t.current.db, key))!;
}

const infer = () => inferCirculations(t.current.db, { asOf: DAY0 + 13 });

async function routeIdOf(node: string): Promise<string> {
  const r = (await readCurrentRoutes(t.current.db)).find((x) =>
    x.nodes.some((n) => n.nodeKey === node),
  );
  if (!r) throw new Error(`no route holds ${node}`);
  return r.metadata.routeId;
}

/** A two-unit, two-day loop G11 G12 | G13 G14, and a one-unit loop for each of `others`. */
async function seedLoops(...others: string[][]): Promise<void> {
  await seedRuns(t.current.db, [
    ...circulationRuns({
      units: ['CR400AF-2001', 'CR400AF-2002'],
      days: [
        ['G11', 'G12'],
        ['G13', 'G14'],
      ],
      windowDays: 14,
    }),
    ...others.flatMap((days, i) =>
      circulationRuns({ units: [`CRH380A-26${i}`], days: [days], windowDays: 14 }),
    ),
  ]);
}

describe('importOfficialCirculations: the file', () => {
  it('imports good tables, skips non-EMU ones with a reason, rejects malformed ones by line', async () => {
    const lines = [
      '[',
      `  ${JSON.stringify(entry('G7001#G7002#0D6911#G4340/37'))},`,
      `  ${JSON.stringify(entry('K1234#K1233'))},`,
      `  ${JSON.stringify(entry('D301#D302', { emu_note: '25G 硬座' }))},`,
      `  ${JSON.stringify(entry('G1#G2', { running_start: '20260230' }))},`,
      `  ${JSON.stringify(entry('G1#G2', { running_start: 20260901, running_end: 20260801 }))},`,
      `  ${JSON.stringify(entry('G1#G12X'))},`,
      `  ${JSON.stringify(entry('G1##G2'))},`,
      `  {"running_start": "20260801", "running_end": "20991231"},`,
      '  [1, 2],',
      '  {"running_start": "20260801", oops},',
      `  ${JSON.stringify(entry('#D5#0D6#D6#', { running_end: 20261231, emu_note: 'CRH380A' }))}`,
      ']',
    ];
    const file = await fileWith('tables.json', lines.join('\n') + '\n');
    const r = await importOfficialCirculations(t.current.db, file);
    expect(r).toMatchObject({ file: 'tables.json', read: 11, imported: 2, duplicate: 0 });
    expect(r.rejected).toBe(7);
    expect(r.skipped).toEqual([
      {
        line: 3,
        index: 1,
        where: 'entry 1 (line 3)',
        entryKey: expect.any(String),
        reason:
          'not an EMU circulation: locomotive-hauled train K1234 (only G, D, C, S, DJ numbers are EMU services)',
      },
      {
        line: 4,
        index: 2,
        where: 'entry 2 (line 4)',
        entryKey: expect.any(String),
        reason: 'not an EMU circulation: emu_note names the locomotive-hauled coach type 25G',
      },
    ]);
    const rejects = await t.current.db.query<{
      line: number;
      field: string | null;
      reason: string;
    }>(
      `SELECT r.line, r.field, r.reason FROM ingest_rejects r
         JOIN ingest_batches b ON b.id = r.batch_id
        WHERE b.kind = 'circulations' AND r.batch_id = $1 ORDER BY r.line`,
      [r.batchId],
    );
    expect(rejects.rows).toEqual([
      {
        line: 5,
        field: 'running_start',
        reason: expect.stringMatching(/^running_start: invalid date "20260230": day 30/),
      },
      {
        line: 6,
        field: 'running_end',
        reason: 'running_end: 20260801 is before running_start 20260901',
      },
      {
        line: 7,
        field: 'train_no_total',
        reason: expect.stringMatching(/^train_no_total: train 2 "G12X": expected a train number/),
      },
      {
        line: 8,
        field: 'train_no_total',
        reason: "train_no_total: train 2 is empty (two '#' in a row)",
      },
      { line: 9, field: 'train_no_total', reason: 'train_no_total: missing' },
      { line: 10, field: null, reason: 'expected a JSON object' },
      { line: 11, field: null, reason: expect.stringMatching(/^not valid JSON: /) },
    ]);

    const stored = await readOfficialCirculation(
      t.current.db,
      parseOfficialEntry(entry('G7001#G7002#0D6911#G4340/37')).entryKey,
    );
    expect(stored).toMatchObject({
      runningStart: serviceDayFromYmd('20260801'),
      emuNote: 'CR400AF',
      administrator: '上海局 上海动车段',
      trains: [
        { written: 'G7001', codes: ['G7001'], deadhead: false },
        { written: 'G7002', codes: ['G7002'], deadhead: false },
        { written: '0D6911', codes: ['D6911'], deadhead: true },
        { written: 'G4340/37', codes: ['G4340', 'G4337'], deadhead: false },
      ],
      // No inference run yet.
      validationState: 'unspecified',
    });
    expect(stored!.runningEnd).toBeUndefined();
    const trimmed = await t.current.db.query<{ train_no_total: string; running_end: number }>(
      "SELECT train_no_total, running_end FROM official_circulations WHERE emu_note = 'CRH380A'",
    );
    expect(trimmed.rows).toEqual([
      { train_no_total: 'D5#0D6#D6', running_end: serviceDayFromYmd('20261231') },
    ]);
  });

  it('a one-line JSON array (with a byte-order mark) names each entry by its index, not "line 1"', async () => {
    const text =
      '\uFEFF[' +
      [
        JSON.stringify(entry('G41#G42')),
        JSON.stringify(entry('K1#K2')),
        JSON.stringify(entry('G1#G2', { running_start: '20260230' })),
        '{"oops"}',
        JSON.stringify(entry('G43#G44')),
      ].join(',') +
      ']';
    const file = await fileWith('one-line.json', text);
    const r = await importOfficialCirculations(t.current.db, file);
    expect(r).toMatchObject({ read: 5, imported: 2, rejected: 2 });
    expect(r.skipped.map((x) => x.where)).toEqual(['entry 1 (line 1)']);
    expect(r.rejects.map((x) => [x.index, x.where, x.field])).toEqual([
      [2, 'entry 2 (line 1)', 'running_start'],
      [3, 'entry 3 (line 1)', null],
    ]);
  });

  it('re-importing the same file changes nothing; NDJSON is read line by line', async () => {
    const text = [
      JSON.stringify(entry('G31#G32')),
      '',
      JSON.stringify(entry('G33#G34')),
      JSON.stringify(entry('G31#G32')),
      '{broken',
    ].join('\n');
    const file = await fileWith('tables.ndjson', text);
    const first = await importOfficialCirculations(t.current.db, file);
    expect(first).toMatchObject({ read: 4, imported: 2, duplicate: 1, rejected: 1 });
    const snapshot = async () =>
      (
        await t.current.db.query(
          `SELECT o.*, c.validation_state, c.checked_at,
                  (SELECT count(*) FROM official_circulation_trains x WHERE x.entry_key = o.entry_key) AS trains,
                  (SELECT count(*) FROM ingest_rejects) AS rejects
             FROM official_circulations o LEFT JOIN official_circulation_checks c USING (entry_key)
            ORDER BY o.entry_key`,
        )
      ).rows;
    const before = await snapshot();
    const again = await importOfficialCirculations(t.current.db, file);
    expect(again).toMatchObject({ read: 4, imported: 0, duplicate: 3, rejected: 1 });
    expect(again.checks.checked).toBe(0);
    expect(await snapshot()).toEqual(before);
    const reject = await t.current.db.query<{ line: number }>(
      'SELECT line FROM ingest_rejects WHERE file = $1',
      ['tables.ndjson'],
    );
    expect(reject.rows).toEqual([{ line: 5 }]);
    expect(again.rejects).toEqual([
      { line: 5, where: 'line 5', field: null, reason: expect.stringMatching(/^not valid JSON/) },
    ]);
  });

  it('a file that cannot be read is one error naming it', async () => {
    await expect(
      importOfficialCirculations(t.current.db, path.join(dir, 'missing.json')),
    ).rejects.toThrow(/missing\.json: no such file/);
  });
});

describe('official tables checked against the inference', () => {
  it('raw_official: one route holds the table whole, whatever each side starts with', async () => {
    await seedLoops();
    await infer();
    const loop = await routeIdOf('G11');
    // The route reads G11 G12 G13 G14 (cut G14 -> G11); the table starts elsewhere and carries
    // a deadhead between two of its trains.
    const check = await importOne('G13#G14#0D6911#G11#G12');
    expect(check).toMatchObject({
      validationState: 'raw_official',
      matchedInferredRouteId: loop,
      segments: [],
    });
  });

  it('split_official: two routes each hold a contiguous part, numbered from the first train', async () => {
    await seedLoops(['G21', 'G22'], ['G23', 'G24', 'G25']);
    await infer();
    const a = await routeIdOf('G21');
    const b = await routeIdOf('G23');
    const check = await importOne('G21#G22#0D9#G23#G24#G25');
    expect(check.validationState).toBe('split_official');
    expect(check.matchedInferredRouteId).toBeUndefined();
    expect(check.segments).toEqual([
      {
        splitSegmentIndex: 0,
        splitSegmentCount: 2,
        firstPosition: 0,
        lastPosition: 2,
        matchedInferredRouteId: a,
      },
      {
        splitSegmentIndex: 1,
        splitSegmentCount: 2,
        firstPosition: 3,
        lastPosition: 5,
        matchedInferredRouteId: b,
      },
    ]);
    // A table starting half-way through the first part: segment 0 wraps round its end.
    const wrapped = await importOne('G22#G23#G24#G25#G21');
    expect(wrapped.segments.map((s) => [s.firstPosition, s.lastPosition])).toEqual([
      [4, 0],
      [1, 3],
    ]);
    expect(wrapped.segments.map((s) => s.matchedInferredRouteId)).toEqual([a, b]);
  });

  it('unmatched_official: names the best candidate route, or none when no train is known', async () => {
    await seedLoops();
    await infer();
    const loop = await routeIdOf('G11');
    const shuffled = await importOne('G11#G13#G12#G14');
    expect(shuffled).toMatchObject({
      validationState: 'unmatched_official',
      matchedInferredRouteId: loop,
      segments: [],
    });
    const unknown = await importOne('G901#G902');
    expect(unknown.validationState).toBe('unmatched_official');
    expect(unknown.matchedInferredRouteId).toBeUndefined();
  });

  it('the check reruns when either side changes, so the order of the two does not matter', async () => {
    const before = await importOne('G11#G12#G13#G14');
    expect(before.validationState).toBe('unspecified');
    await seedLoops();
    const run = await infer();
    expect(run.official).toMatchObject({ checked: 1, raw: 1 });
    const after = (await readOfficialCirculation(t.current.db, before.entryKey))!;
    expect(after).toMatchObject({
      validationState: 'raw_official',
      checkedAgainstRunId: run.runId,
    });
    // Another run, over a window in which the loop is no longer seen: the check follows it.
    const later = await inferCirculations(t.current.db, { asOf: DAY0 + 40 });
    expect(later.official).toMatchObject({ checked: 1, unmatched: 1 });
    expect((await readOfficialCirculation(t.current.db, before.entryKey))!.validationState).toBe(
      'unmatched_official',
    );
  });
});

describe('matchOfficial (cycles)', () => {
  const trains = (total: string) => parseOfficialEntry(entry(total)).trains;
  const index = new RouteIndex([
    { routeId: 'loop', nodes: ['G1', 'G2', 'G3'], containsLoopBreak: true },
    { routeId: 'path', nodes: ['G7', 'G8', 'G9'], containsLoopBreak: false },
  ]);

  it('a rotation of a cut loop is raw; so is a path holding the whole table but its open link', () => {
    expect(matchOfficial(trains('G2#G3#G1'), index)).toMatchObject({
      state: 'raw_official',
      matchedRouteId: 'loop',
      officialLinks: 3,
      confirmedLinks: 3,
    });
    expect(matchOfficial(trains('G9#G7#G8'), index)).toMatchObject({
      state: 'raw_official',
      matchedRouteId: 'path',
      confirmedLinks: 2,
    });
  });

  it("a cut loop's last train is followed by its first; a path's is not", () => {
    // G3 -> G1 is the loop's wrap; G1 -> G3 is contradicted by the kept link G1 -> G2 (the
    // table leaves out a train the inference keeps between them): evidence against it.
    expect(matchOfficial(trains('G3#G1'), index)).toMatchObject({
      state: 'unmatched_official',
      matchedRouteId: 'loop',
      confirmedLinks: 1,
    });
    expect(matchOfficial(trains('G9#G7'), index)).toMatchObject({
      state: 'unmatched_official',
      matchedRouteId: 'path',
      confirmedLinks: 0,
    });
  });

  it('parts of one train do not make a split', () => {
    expect(matchOfficial(trains('G1#G2#G8#G3'), index)).toMatchObject({
      state: 'unmatched_official',
      matchedRouteId: 'loop',
      confirmedLinks: 2,
    });
  });
});
