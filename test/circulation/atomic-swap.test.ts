import { beforeEach, describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import {
  readCurrentRoutes,
  readOfficialCirculation,
} from '../../src/domain/circulation/read-circulations.js';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { circulationRuns, DAY0, resetCirculationData, seedRuns } from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const asOf = DAY0 + 13;
const loop = (unit: string, trains: string[]) =>
  circulationRuns({ units: [unit], days: [trains], windowDays: 14 });

/** What a reader on its own connection sees: the current run and its routes' first nodes. */
async function readerView(url: string) {
  const reader = createPostgresDb({ connectionString: url, max: 1 });
  try {
    const run = await reader.query<{ run_id: number }>('SELECT run_id FROM circulation_current');
    const routes = await readCurrentRoutes(reader);
    return {
      runId: run.rows[0]?.run_id,
      firstNodes: routes.map((r) => r.nodes[0]!.nodeKey).sort(),
    };
  } finally {
    await reader.close();
  }
}

describe('a run replaces the previous results atomically', () => {
  it('readers see the old run until the new one commits, then only the new one', async () => {
    await seedRuns(t.current.db, loop('CRH2A-2001', ['G1', 'G2']));
    const first = await inferCirculations(t.current.db, { asOf });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-swap-'));
    try {
      const file = path.join(dir, 'official.json');
      const table = {
        running_start: '20260801',
        running_end: '20991231',
        train_no_total: 'G3#G4',
      };
      await writeFile(file, JSON.stringify([table]));
      const imported = await importOfficialCirculations(t.current.db, file);
      expect(imported.checks).toMatchObject({ checked: 1, unmatched: 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const entryKey = (
      await t.current.db.query<{ entry_key: string }>('SELECT entry_key FROM official_circulations')
    ).rows[0]!.entry_key;

    await seedRuns(t.current.db, loop('CRH2A-2002', ['G3', 'G4']));
    let during: Awaited<ReturnType<typeof readerView>> | undefined;
    let checkDuring: string | undefined;
    const second = await inferCirculations(t.current.db, {
      asOf,
      beforeSwap: async () => {
        during = await readerView(t.current.url);
        const reader = createPostgresDb({ connectionString: t.current.url, max: 1 });
        checkDuring = (await readOfficialCirculation(reader, entryKey))!.validationState;
        await reader.close();
      },
    });
    expect(during).toEqual({ runId: first.runId, firstNodes: ['G1'] });
    expect(checkDuring).toBe('unmatched_official');
    expect(await readerView(t.current.url)).toEqual({
      runId: second.runId,
      firstNodes: ['G1', 'G3'],
    });
    expect((await readOfficialCirculation(t.current.db, entryKey))!.validationState).toBe(
      'raw_official',
    );
  });

  it('a run that fails leaves the current results as they were', async () => {
    await seedRuns(t.current.db, loop('CRH2A-2003', ['G5', 'G6']));
    const good = await inferCirculations(t.current.db, { asOf });
    await seedRuns(t.current.db, loop('CRH2A-2004', ['G7', 'G8']));
    await expect(
      inferCirculations(t.current.db, {
        asOf,
        beforeSwap: () => Promise.reject(new Error('disk full')),
      }),
    ).rejects.toThrow('disk full');
    expect(await readerView(t.current.url)).toEqual({ runId: good.runId, firstNodes: ['G5'] });
    const runs = await t.current.db.query<{ id: number }>('SELECT id FROM circulation_runs');
    expect(runs.rows.map((r) => r.id)).toEqual([good.runId]);
  });

  it('keeps the run before the current one for readers part-way through it, and drops older ones', async () => {
    await seedRuns(t.current.db, loop('CRH2A-2005', ['G9', 'G10']));
    const a = await inferCirculations(t.current.db, { asOf });
    const b = await inferCirculations(t.current.db, { asOf });
    expect(b.previousRunId).toBe(a.runId);
    const c = await inferCirculations(t.current.db, { asOf });
    const runs = await t.current.db.query<{ id: number; routes: number }>(
      `SELECT x.id, (SELECT count(*)::int FROM circulation_routes r WHERE r.run_id = x.id) AS routes
         FROM circulation_runs x ORDER BY x.id`,
    );
    expect(runs.rows).toEqual([
      { id: b.runId, routes: 1 },
      { id: c.runId, routes: 1 },
    ]);
  });

  it('two runs at once take turns: both finish, the later one is current', async () => {
    await seedRuns(t.current.db, loop('CRH2A-2006', ['G11', 'G12']));
    const [x, y] = await Promise.all([
      inferCirculations(t.current.db, { asOf }),
      inferCirculations(t.current.db, { asOf }),
    ]);
    const later = Math.max(x.runId, y.runId);
    expect([x.previousRunId, y.previousRunId]).toContain(Math.min(x.runId, y.runId));
    expect((await readerView(t.current.url)).runId).toBe(later);
  });
});
