import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/domain/circulation/read-circulations.js';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { addTimetable, circulationRuns, DAY0, seedRuns, type SeedRun } from './support.js';

const t = useTestDatabase();
let pglite: Db;
let dir: string;

beforeAll(async () => {
  pglite = await createPgliteDb();
  await migrate(pglite);
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-circ-pglite-'));
});
afterAll(async () => {
  await pglite?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The same window on either database: a two-unit loop with a timetable, and a chain. */
async function inferOn(db: Db) {
  const g1 = await addTimetable(db, ['G1', 'G2'], '07:00', '09:00');
  const runs: SeedRun[] = circulationRuns({
    units: ['CR400AF-2001', 'CR400AF-2002'],
    days: [
      ['G1', 'G3'],
      ['G4', 'G5', 'G6'],
    ],
    windowDays: 14,
  }).map((r) => (r.train === 'G1' ? { ...r, timetableId: g1 } : r));
  for (let d = 0; d < 14; d++)
    runs.push(
      { emu: `CRH2A-20${d}`, day: DAY0 + d, train: 'D7', at: '08:00' },
      { emu: `CRH2A-20${d}`, day: DAY0 + d, train: 'D8', at: '12:00' },
    );
  await seedRuns(db, runs);
  const run = await inferCirculations(db, { asOf: DAY0 + 13 });
  const file = path.join(dir, `${db.kind}.json`);
  await writeFile(
    file,
    JSON.stringify([
      { running_start: '20260801', running_end: '20991231', train_no_total: 'G4#G5#G6#G1/2#G3' },
    ]),
  );
  const imported = await importOfficialCirculations(db, file);
  const routes = (await readCurrentRoutes(db)).map((r) => ({ ...r, runId: 0 }));
  return { run: { ...run, runId: 0, ms: 0, phases: undefined }, imported: imported.checks, routes };
}

describe('circulations on the embedded database (PGlite)', () => {
  it('infer and check exactly as on PostgreSQL', async () => {
    const onPglite = await inferOn(pglite);
    const onPostgres = await inferOn(t.current.db);
    expect(onPglite.routes.map((r) => r.nodes.map((n) => n.nodeKey)).sort()).toEqual([
      ['D7', 'D8'],
      ['G1/G2', 'G3', 'G4', 'G5', 'G6'],
    ]);
    expect(onPglite.imported).toMatchObject({ checked: 1, raw: 1 });
    expect(onPglite).toEqual(onPostgres);
  });
});
