import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/domain/circulation/read-circulations.js';
import {
  mergeEmu,
  retractObservations,
  undoCorrection,
} from '../../src/domain/corrections/apply-corrections.js';
import type { CorrectionActor } from '../../src/domain/corrections/correction-types.js';
import { listCorrections } from '../../src/domain/corrections/list-corrections.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { findEmuId } from '../../src/domain/emus/emu-registry.js';
import { dailyExportCsv } from '../../src/domain/exports/daily-export-csv.js';
import { EmuAliasCache } from '../../src/domain/emus/emu-alias-cache.js';
import { HISTORIES_VERSION, readDataVersion } from '../../src/shared/cache/data-versions.js';
import { readEmuAllocation } from '../../src/domain/emus/read-allocation.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { refreshReferenceModels } from '../../src/domain/records/reference-models.js';
import { readReferenceModels } from '../../src/domain/records/read-reference-models.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { shanghai, type Sighting } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Corrections end to end on sightings made the way the world makes them: a unit seen on its two
 * trains every day for 14 days, a scraper that named it on a third train on three days (one ref
 * reused across days), a lone wrong report, and a phantom unit BANANA (registered before codes
 * were checked) seen where CR400AF-2002 runs. Each correction is followed by an explicit build
 * of the days it marked stale (the worker does that in production).
 */
const t = useTestDatabase();
const DAY0 = serviceDayFromYmd('20260801');
const LAST = DAY0 + 13;
const ALL_DAYS = Array.from({ length: 14 }, (_, k) => DAY0 + k);
const operator: CorrectionActor = { via: 'cli', name: 'ops-alice' };
let dir: string;
let ref = 0;

function seen(
  day: number,
  hhmm: string,
  train: string,
  emu: string,
  n: number,
  source = 'report',
): Sighting[] {
  return Array.from({ length: n }, (_, i) => ({
    observedAt: shanghai(ymdOfServiceDay(day), hhmm) + i * 60,
    trainCode: train,
    emuCode: emu,
    source,
    ref: `r-${++ref}`,
  }));
}

async function ingest(sightings: Sighting[], allowUnknownEmuForms = false): Promise<void> {
  const file = path.join(dir, `s-${++ref}.ndjson`);
  await writeFile(file, sightings.map((s) => JSON.stringify(s)).join('\n') + '\n');
  const r = await ingestObservations(t.current.db, file, { allowUnknownEmuForms });
  expect(r.rejected).toBe(0);
}

async function buildDays(days: readonly number[]): Promise<void> {
  for (const d of days) await buildDailyRecords(t.current.db, d);
}

/** The day's records as "train emu" pairs, sorted. */
async function recordsOf(day: number): Promise<string[]> {
  const r = await t.current.db.query<{ x: string }>(
    `SELECT d.train_code || ' ' || e.code AS x FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY 1`,
    [day],
  );
  return r.rows.map((x) => x.x);
}

async function exportRows(day: number): Promise<string[]> {
  const csv = (await dailyExportCsv(t.current.db, day)).content.toString('utf8');
  return csv
    .replace(/^\uFEFF/, '')
    .split('\n')
    .slice(1)
    .map((l) => l.split(',').slice(0, 2).join(' '));
}

async function models(train: string) {
  await refreshReferenceModels(t.current.db, { windowEnd: LAST });
  return (await readReferenceModels(t.current.db, [train])).get(train) ?? [];
}

async function routeOf(train: string): Promise<string[] | undefined> {
  await inferCirculations(t.current.db, { asOf: LAST });
  const routes = await readCurrentRoutes(t.current.db);
  return routes.find((r) => r.nodes.some((n) => n.nodeKey === train))?.nodes.map((n) => n.nodeKey);
}

async function staleDays(): Promise<{ day: number; causes: string[] }[]> {
  return (await listStaleDays(t.current.db)).map((s) => ({ day: s.serviceDay, causes: s.causes }));
}

async function clearStale(): Promise<void> {
  await t.current.db.query('DELETE FROM stale_days');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-corrections-'));
  const fleet = path.join(dir, 'fleet.csv');
  await writeFile(
    fleet,
    'emu_code,model\nCR400AF-2001,CR400AF\nCR400AF-2002,CR400AF\nCRH380A-2641,CRH380A\n',
  );
  await importFleet(t.current.db, fleet);
  const sightings: Sighting[] = [];
  for (const d of ALL_DAYS) {
    sightings.push(
      ...seen(d, '08:00', 'G1', 'CR400AF-2001', 2),
      ...seen(d, '12:00', 'G2', 'CR400AF-2001', 2),
    );
    sightings.push(...seen(d, '14:00', 'G4', 'CR400AF-2002', 2));
    if (d - DAY0 >= 7) sightings.push(...seen(d, '09:00', 'G3', 'CR400AF-2002', 2));
  }
  // The scraper's mistake: CR400AF-2001 on G7 at 10:00 on the last three days, one ref reused.
  for (const d of [LAST - 2, LAST - 1, LAST])
    sightings.push({
      observedAt: shanghai(ymdOfServiceDay(d), '10:00'),
      trainCode: 'G7',
      emuCode: 'CR400AF-2001',
      source: 'scrape',
      ref: 'board-G7',
    });
  // A lone wrong report of CRH380A-2641 on G9.
  sightings.push({
    observedAt: shanghai(ymdOfServiceDay(LAST), '16:00'),
    trainCode: 'G9',
    emuCode: 'CRH380A-2641',
    source: 'report',
    ref: 'lone-g9',
  });
  await ingest(sightings);
  // The phantom, from the days before codes were checked.
  const phantom: Sighting[] = [];
  for (const d of ALL_DAYS.slice(0, 7)) phantom.push(...seen(d, '09:00', 'G3', 'banana', 2));
  await ingest(phantom, true);
  await buildDays(ALL_DAYS);
  await clearStale();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('retract', () => {
  it('by source + ref takes every sighting of that ref out of records, exports, reference models and circulations; undo restores them', async () => {
    // Before: the scraper's G7 is a record on three days, in the export, has reference models,
    // and its three days of contrary evidence (G1 -> G7) break the link G1 -> G2.
    expect(await recordsOf(LAST)).toContain('G7 CR400AF-2001');
    expect(await exportRows(LAST)).toContain('G7 CR400AF-2001');
    expect((await models('G7')).map((m) => m.model)).toEqual(['CR400AF']);
    expect(await routeOf('G1')).not.toEqual(['G1', 'G2']);

    const applied = await retractObservations(
      t.current.db,
      { source: 'scrape', ref: 'board-G7' },
      'the station board scraper read the wrong line',
      operator,
    );
    expect(applied.observationIds).toHaveLength(3);
    // The three days, and the day before each (a sighting after midnight may count for it).
    expect(applied.serviceDays).toEqual([LAST - 3, LAST - 2, LAST - 1, LAST]);
    expect(await staleDays()).toEqual(
      applied.serviceDays.map((day) => ({ day, causes: ['correction'] })),
    );
    // Observations are append-only: the rows are all still there.
    const stored = await t.current.db.query(`SELECT 1 FROM observations WHERE source = 'scrape'`);
    expect(stored.rows).toHaveLength(3);

    await buildDays(applied.serviceDays);
    await clearStale();
    for (const d of [LAST - 2, LAST - 1, LAST])
      expect(await recordsOf(d)).not.toContain('G7 CR400AF-2001');
    expect(await exportRows(LAST)).not.toContain('G7 CR400AF-2001');
    expect(await models('G7')).toEqual([]);
    expect(await routeOf('G1')).toEqual(['G1', 'G2']);

    // The audit row: who, when, what, why.
    const [row] = await listCorrections(t.current.db, { limit: 1 });
    expect(row).toMatchObject({
      id: applied.correctionId,
      kind: 'retract',
      reason: 'the station board scraper read the wrong line',
      actor: { via: 'cli', name: 'ops-alice' },
      observationIds: applied.observationIds,
      source: 'scrape',
      ref: 'board-G7',
      serviceDays: applied.serviceDays,
    });
    expect(row!.createdAt).toBeInstanceOf(Date);

    // Retracting again is refused, naming the correction in force.
    await expect(
      retractObservations(t.current.db, { source: 'scrape', ref: 'board-G7' }, 'again', operator),
    ).rejects.toThrow(`ref: already retracted (correction ${applied.correctionId})`);

    // Restore: the undo is audited too, marks the same days, and the records come back.
    const undo = await undoCorrection(
      t.current.db,
      applied.correctionId,
      'the board was right after all',
      {
        via: 'cli',
        name: 'ops-bob',
      },
    );
    expect(undo.serviceDays).toEqual(applied.serviceDays);
    expect((await staleDays()).map((s) => s.day)).toEqual(applied.serviceDays);
    await buildDays(undo.serviceDays);
    await clearStale();
    expect(await recordsOf(LAST)).toContain('G7 CR400AF-2001');
    expect(await exportRows(LAST)).toContain('G7 CR400AF-2001');
    const [undoRow, undone] = await listCorrections(t.current.db, { limit: 2 });
    expect(undoRow).toMatchObject({
      kind: 'undo',
      undoes: applied.correctionId,
      actor: { name: 'ops-bob' },
    });
    expect(undone).toMatchObject({ id: applied.correctionId, undoneBy: undo.correctionId });
    await expect(
      undoCorrection(t.current.db, applied.correctionId, 'twice', operator),
    ).rejects.toThrow(
      `correction: correction ${applied.correctionId} was undone already (correction ${undo.correctionId})`,
    );
    await expect(
      undoCorrection(t.current.db, undo.correctionId, 'undo the undo', operator),
    ).rejects.toThrow(/is an undo/);
  });

  it('by observation id: the lone wrong report leaves the day and its export', async () => {
    const r = await t.current.db.query<{ id: string }>(
      `SELECT id FROM observations WHERE ref = 'lone-g9'`,
    );
    const id = Number(r.rows[0]!.id);
    expect(await recordsOf(LAST)).toContain('G9 CRH380A-2641');
    expect((await models('G9')).map((m) => m.model)).toEqual(['CRH380A']);
    const applied = await retractObservations(
      t.current.db,
      { observationId: id },
      'unit was in depot',
      operator,
    );
    expect(applied.serviceDays).toEqual([LAST - 1, LAST]);
    await buildDays(applied.serviceDays);
    await clearStale();
    expect(await recordsOf(LAST)).not.toContain('G9 CRH380A-2641');
    expect(await exportRows(LAST)).not.toContain('G9 CRH380A-2641');
    expect(await models('G9')).toEqual([]);
  });

  it('refuses what it cannot do, naming the field', async () => {
    await expect(
      retractObservations(t.current.db, { observationId: 999_999_999 }, 'x', operator),
    ).rejects.toThrow('observation: no observation 999999999');
    await expect(
      retractObservations(t.current.db, { source: 'scrape', ref: 'nope' }, 'x', operator),
    ).rejects.toThrow(/^ref: no observation from source "scrape" with ref "nope"/);
    await expect(
      retractObservations(t.current.db, { observationId: 1 }, '  ', operator),
    ).rejects.toThrow('reason: required');
    await expect(
      mergeEmu(t.current.db, 'CR400AF-2001', 'cr400af2001', 'same', operator),
    ).rejects.toThrow(/^into: .* are the same unit/);
    await expect(
      mergeEmu(t.current.db, 'NO-SUCH-1', 'CR400AF-2001', 'x', operator),
    ).rejects.toThrow('from: no EMU "NO-SUCH-1"');
    await expect(undoCorrection(t.current.db, 424_242, 'x', operator)).rejects.toThrow(
      'correction: no correction 424242',
    );
  });
});

describe('merge-emu', () => {
  it('moves the phantom BANANA into CR400AF-2002: records, exports, history by its code, circulations; undo takes it back', async () => {
    const banana = (await findEmuId(t.current.db, 'BANANA'))!;
    const target = (await findEmuId(t.current.db, 'CR400AF-2002'))!;
    expect(await recordsOf(DAY0)).toContain('G3 BANANA');
    expect(await exportRows(DAY0)).toContain('G3 BANANA');
    // G3 -> G4 is seen on the seven days CR400AF-2002 was named on G3.
    await inferCirculations(t.current.db, { asOf: LAST });
    const supportOf = async () =>
      (await readCurrentRoutes(t.current.db)).find((r) => r.nodes.some((n) => n.nodeKey === 'G3'))
        ?.metadata.lowestLinkSupportCount;
    expect(await supportOf()).toBe(7);

    // Kept histories (kept-histories.ts) are kept under this version: the merge moves it (an
    // EMU history follows merges at once), and so does each build that changes records.
    const histories = () => readDataVersion(t.current.db, HISTORIES_VERSION);
    const beforeMerge = await histories();
    const applied = await mergeEmu(
      t.current.db,
      'banana',
      'CR400AF-2002',
      'phantom unit: a typing error for 2002',
      operator,
    );
    expect(applied).toMatchObject({ fromEmuId: banana, intoEmuId: target });
    const bananaDays = ALL_DAYS.slice(0, 7);
    expect(applied.serviceDays).toEqual([DAY0 - 1, ...bananaDays]);
    expect((await staleDays()).map((s) => s.day)).toEqual(applied.serviceDays);
    expect(await histories()).toBe(beforeMerge + 1);
    await buildDays(applied.serviceDays.filter((d) => d >= DAY0));
    expect(await histories()).toBeGreaterThan(beforeMerge + 1);
    await clearStale();

    for (const d of bananaDays) {
      const records = await recordsOf(d);
      expect(records).toContain('G3 CR400AF-2002');
      expect(records.some((r) => r.endsWith('BANANA'))).toBe(false);
    }
    expect(await exportRows(DAY0)).toContain('G3 CR400AF-2002');
    // Its code now finds the unit it was merged into, whose aliases list it.
    expect(await new EmuAliasCache(t.current.db).find('BANANA')).toBe(target);
    expect((await readEmuAllocation(t.current.db, target))!.alias).toContain('BANANA');
    const history = await t.current.db.query('SELECT 1 FROM daily_records WHERE emu_id = $1', [
      banana,
    ]);
    expect(history.rows).toHaveLength(0);
    // Every day now has G3 -> G4 for the one unit.
    await inferCirculations(t.current.db, { asOf: LAST });
    expect(await supportOf()).toBe(14);

    // Refusals while the merge is in force.
    await expect(mergeEmu(t.current.db, 'BANANA', 'CR400AF-2001', 'x', operator)).rejects.toThrow(
      /^from: BANANA is merged into CR400AF-2002 already/,
    );
    await expect(mergeEmu(t.current.db, 'CR400AF-2001', 'BANANA', 'x', operator)).rejects.toThrow(
      /^into: BANANA is merged into CR400AF-2002 already .*: merge into CR400AF-2002/,
    );

    const undo = await undoCorrection(
      t.current.db,
      applied.correctionId,
      'BANANA is real after all',
      operator,
    );
    expect(undo.serviceDays).toEqual(applied.serviceDays);
    await buildDays(undo.serviceDays.filter((d) => d >= DAY0));
    await clearStale();
    expect(await recordsOf(DAY0)).toContain('G3 BANANA');
    expect(await new EmuAliasCache(t.current.db).find('BANANA')).toBe(banana);
    await inferCirculations(t.current.db, { asOf: LAST });
    expect(await supportOf()).toBe(7);
    const [undoRow, mergeRow] = await listCorrections(t.current.db, { limit: 2 });
    expect(mergeRow).toMatchObject({
      kind: 'merge-emu',
      fromEmuCode: 'BANANA',
      intoEmuCode: 'CR400AF-2002',
      reason: 'phantom unit: a typing error for 2002',
      undoneBy: undo.correctionId,
    });
    expect(undoRow).toMatchObject({ kind: 'undo', undoes: applied.correctionId });
  });

  it('follows a chain: A into B, then B into C counts A for C; undoing B into C gives A back to B', async () => {
    // Two phantoms seen on G5 (unknown forms allowed for the test's sake).
    const day = DAY0 + 3;
    await ingest(
      [...seen(day, '18:00', 'G5', 'PHANTOM-A1', 2), ...seen(day, '19:00', 'G6', 'PHANTOM-B1', 2)],
      true,
    );
    await buildDays([day]);
    const ab = await mergeEmu(t.current.db, 'PHANTOM-A1', 'PHANTOM-B1', 'A is B', operator);
    const bc = await mergeEmu(t.current.db, 'PHANTOM-B1', 'CRH380A-2641', 'B is 2641', operator);
    expect(bc.serviceDays).toContain(day);
    await buildDays([day]);
    expect(await recordsOf(day)).toEqual(
      expect.arrayContaining(['G5 CRH380A-2641', 'G6 CRH380A-2641']),
    );
    await undoCorrection(t.current.db, bc.correctionId, 'B is not 2641', operator);
    await buildDays([day]);
    expect(await recordsOf(day)).toEqual(
      expect.arrayContaining(['G5 PHANTOM-B1', 'G6 PHANTOM-B1']),
    );
    await undoCorrection(t.current.db, ab.correctionId, 'A is not B', operator);
    await buildDays([day]);
    expect(await recordsOf(day)).toEqual(
      expect.arrayContaining(['G5 PHANTOM-A1', 'G6 PHANTOM-B1']),
    );
    await clearStale();
  });
});
