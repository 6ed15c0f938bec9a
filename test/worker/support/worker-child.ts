/**
 * A worker process for tests that need one to kill or stop: the real worker (runWorker, with
 * its signal handlers) on the test's database and queue prefix, from the environment. Extra
 * variables:
 * - SLOW_BUILD_SECONDS: each build sleeps this long inside its transaction, after its insert;
 * - LOCK_DURATION_MS: BullMQ lock duration (how soon a killed worker's job can be taken over);
 * - STALLED_INTERVAL_MS: BullMQ stalled-check interval;
 * - CHILD_APP_NAME: the Postgres application_name of its connections, to find them.
 * Prints "ready" once its workers are listening.
 */
import { loadConfig } from '../../../src/shared/config/config.js';
import { createPostgresDb } from '../../../src/shared/db/postgres-db.js';
import { createLogger } from '../../../src/shared/log/logger.js';
import { runWorker } from '../../../src/worker/run-worker.js';
import { slowBuilds } from './db-faults.js';

const config = loadConfig();
const db = createPostgresDb({
  connectionString: config.DATABASE_URL!,
  max: 4,
  applicationName: process.env.CHILD_APP_NAME ?? 'emutrack-test-worker',
});
const slow = Number(process.env.SLOW_BUILD_SECONDS ?? 0);
const tuning = {
  ...(process.env.LOCK_DURATION_MS && { lockDuration: Number(process.env.LOCK_DURATION_MS) }),
  ...(process.env.STALLED_INTERVAL_MS && {
    stalledInterval: Number(process.env.STALLED_INTERVAL_MS),
  }),
};
await runWorker(
  { config, db: slow > 0 ? slowBuilds(db, slow) : db, logger: createLogger(config.LOG_LEVEL) },
  { tuning },
);
process.stdout.write('ready\n');
