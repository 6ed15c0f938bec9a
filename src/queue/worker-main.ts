import { openAppContext } from '../app/app-context.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { installShutdownHandlers } from './graceful-shutdown.js';
import { assertNightlyCron } from './nightly-schedule.js';
import { startWorkerRuntime } from './worker-runtime.js';

/**
 * `npm run worker`: opens the database (migrating it), then runs the BullMQ workers and the
 * nightly Job Scheduler (REDIS_URL set) or the in-process scheduler (REDIS_URL unset) until
 * SIGTERM/SIGINT, which finishes running jobs within SHUTDOWN_TIMEOUT_MS.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    assertNightlyCron(config.NIGHTLY_CRON);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`emutrack worker: ${err.message}\n`);
    process.exit(1);
  }
  const ctx = await openAppContext({ config });
  const starting = startWorkerRuntime(ctx);
  installShutdownHandlers({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger: ctx.logger,
    close: async () => {
      const runtime = await starting.catch(() => undefined);
      await runtime?.close();
      await ctx.db.close();
    },
  });
  try {
    await starting;
  } catch (err) {
    await ctx.db.close().catch(() => {});
    throw err;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`emutrack worker: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
