import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDailyExportJob } from '../../jobs/index.js';
import { loadConfig } from '../../src/shared/config/config.js';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { getDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { trainHistoryPage } from '../../src/domain/history/read-history.js';
import { HISTORIES_VERSION, readDataVersion } from '../../src/shared/cache/data-versions.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { runNightlyInProcess } from '../../src/worker/in-process-runner.js';
import { midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const DAYS = [20675, 20676, 20677, 20678, 20679, 20680, 20681];
const env = useQueueEnv();
let pglite: Db;

async function load(db: Db) {
  await importFleet(db, path.join(FIXTURES, 'fleet.csv'));
  await ingestObservations(db, path.join(FIXTURES, 'observations'));
}

beforeAll(async () => {
  pglite = await createPgliteDb();
  await migrate(pglite);
});
afterAll(async () => {
  await pglite?.close();
});

describe('the embedded default against the servers', () => {
  it('gives the same CSV bytes in-process on PGlite as through BullMQ flows on PostgreSQL', async () => {
    // Embedded: no Redis; each nightly tick (due at the next day's midnight) runs in-process.
    await load(pglite);
    const ctx = { db: pglite, config: loadConfig({}), logger: createLogger('silent') };
    for (const day of DAYS) {
      const r = await runNightlyInProcess(ctx, midnightOfServiceDay(day + 1) * 1000);
      expect(r.serviceDay).toBe(day);
    }

    // Servers: the same data through BullMQ day flows (build, then export) on PostgreSQL.
    await load(env.database.db);
    const queues = env.queues();
    const exportIds = new Map<number, string>();
    for (const day of DAYS) exportIds.set(day, (await queues.enqueueDayFlow(day)).jobId);
    env.workers(env.ctx(), queues);
    for (const day of DAYS) {
      await waitFor(`the export of day ${day}`, async () => {
        const job = await queues.getJob(renderDailyExportJob.name, exportIds.get(day)!);
        return (await job?.getState()) === 'completed';
      });
    }

    for (const day of DAYS) {
      const embedded = (await getDailyExport(pglite, day))!.content;
      const server = (await getDailyExport(env.database.db, day))!.content;
      expect(embedded.equals(server), `day ${day}`).toBe(true);
      expect(embedded.length).toBeGreaterThan(100);
    }
    // A whole history (what the API keeps, under the histories version the builds moved) reads
    // the same on both (ids are each database's own: compared without them).
    const whole = async (db: Db) => {
      const { records } = await trainHistoryPage(db, 'G1', 'whole');
      return records.map(({ id: _id, ...rest }) => rest);
    };
    expect((await whole(pglite)).length).toBeGreaterThan(3);
    expect(await whole(pglite)).toEqual(await whole(env.database.db));
    expect(await readDataVersion(pglite, HISTORIES_VERSION)).toBeGreaterThan(0);
  });
});
