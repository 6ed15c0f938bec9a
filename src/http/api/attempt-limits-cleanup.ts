import { forgetQuietAttempts } from '../../domain/accounts/attempt-limiter.js';
import { FORGET_AFTER_SECONDS } from '../../domain/accounts/sign-in-throttle.js';
import type { Db } from '../../shared/db/db.js';
import type { Logger } from '../../shared/log/logger.js';
import { IntervalTask } from '../../shared/time/interval-task.js';

/** How often quiet attempt-limit keys are deleted while the API listens. */
const CLEANUP_INTERVAL_MS = 3_600_000;

/**
 * Deletes attempt-limit keys (attempt_limits: one per account and address that tried to sign in)
 * quiet for longer than any rule remembers them, hourly while the API listens (apps only
 * injected into, as in tests, run no timer). One indexed DELETE: several processes running it
 * is harmless.
 */
export function scheduleAttemptLimitCleanup(
  app: { addHook(name: 'onListen' | 'onClose', hook: () => Promise<void>): unknown },
  db: Db,
  logger: Logger,
): void {
  const task = new IntervalTask(
    'attempt-limit-cleanup',
    CLEANUP_INTERVAL_MS,
    async () => {
      const deleted = await forgetQuietAttempts(db, FORGET_AFTER_SECONDS);
      if (deleted > 0) logger.info({ deleted }, 'quiet attempt-limit keys deleted');
    },
    logger,
  );
  app.addHook('onListen', async () => task.start());
  app.addHook('onClose', async () => task.stop());
}
