import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/shared/app/app-context.js';
import { loadConfig } from '../../src/shared/config/config.js';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb, EmbeddedDatabaseBusyError } from '../../src/shared/db/pglite-db.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { getDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { runDayInProcess } from '../../src/worker/in-process-runner.js';
import { useTestDatabase } from '../helpers/test-db.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const DAYS = [20675, 20676, 20677, 20678, 20679, 20680, 20681];
const t = useTestDatabase();
let pglite: Db;

async function runFixtureWeek(db: Db): Promise<Map<number, Buffer>> {
  const ctx: AppContext = { db, config: loadConfig({}), logger: createLogger('silent') };
  await importFleet(db, path.join(FIXTURES, 'fleet.csv'));
  await ingestObservations(db, path.join(FIXTURES, 'observations'));
  const out = new Map<number, Buffer>();
  for (const day of DAYS) {
    await runDayInProcess(ctx, day);
    out.set(day, (await getDailyExport(db, day))!.content);
  }
  return out;
}

beforeAll(async () => {
  pglite = await createPgliteDb();
  await migrate(pglite);
});
afterAll(async () => {
  await pglite?.close();
});

describe('the embedded default (PGlite)', () => {
  it('runs the same migrations, ingestion (COPY from a blob), builds and exports, with the same CSV bytes as PostgreSQL', async () => {
    const embedded = await runFixtureWeek(pglite);
    const server = await runFixtureWeek(t.current.db);
    for (const day of DAYS)
      expect(embedded.get(day)!.equals(server.get(day)!), `day ${day}`).toBe(true);
    const rejects = await pglite.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ingest_rejects',
    );
    expect(rejects.rows[0]!.n).toBe(7);
  });

  it('refuses a second process-level open of the same data directory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-pglite-'));
    const first = await createPgliteDb({ dataDir: path.join(dir, 'pglite') });
    try {
      await expect(createPgliteDb({ dataDir: path.join(dir, 'pglite') })).rejects.toBeInstanceOf(
        EmbeddedDatabaseBusyError,
      );
    } finally {
      await first.close();
    }
    const again = await createPgliteDb({ dataDir: path.join(dir, 'pglite') });
    await again.close();
    await rm(dir, { recursive: true, force: true });
  });
});
