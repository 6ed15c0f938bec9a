import type { AppContext } from '../shared/app/app-context.js';
import { installShutdownHandlers } from './graceful-shutdown.js';
import {
  startWorkerRuntime,
  type WorkerRuntime,
  type WorkerRuntimeOptions,
} from './worker-runtime.js';

/**
 * Starts the worker runtime on an open context and hands the process's lifetime to it: on
 * SIGTERM/SIGINT it finishes running jobs, closes Redis and the database (ctx.db) and exits 0,
 * or exits 1 when that takes longer than SHUTDOWN_TIMEOUT_MS.
 */
export async function runWorker(
  ctx: AppContext,
  options: WorkerRuntimeOptions = {},
): Promise<WorkerRuntime> {
  const starting = startWorkerRuntime(ctx, options);
  installShutdownHandlers({
    timeoutMs: ctx.config.SHUTDOWN_TIMEOUT_MS,
    logger: ctx.logger,
    close: async () => {
      const runtime = await starting.catch(() => undefined);
      await runtime?.close();
      await ctx.db.close();
    },
  });
  try {
    return await starting;
  } catch (err) {
    await ctx.db
      .close()
      .catch((closeErr: Error) =>
        ctx.logger.warn({ err: closeErr.message }, 'closing the database after a failed start'),
      );
    throw err;
  }
}
