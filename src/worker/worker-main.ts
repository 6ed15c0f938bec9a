import { openAppContext } from '../shared/app/app-context.js';
import { ConfigError, loadConfig, type Config } from '../shared/config/config.js';
import { assertCronSettings } from './nightly-schedule.js';
import { runWorker } from './run-worker.js';

/**
 * `npm run worker`: opens the database (migrating it), then runs the BullMQ workers and the
 * nightly Job Scheduler (REDIS_URL set) or the in-process scheduler (REDIS_URL unset) until
 * SIGTERM/SIGINT. A bad configuration value is one line naming the variable, and exit code 1.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    assertCronSettings(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`emutrack worker: ${err.message}\n`);
    process.exit(1);
  }
  await runWorker(await openAppContext({ config }));
}

main().catch((err: unknown) => {
  process.stderr.write(`emutrack worker: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
