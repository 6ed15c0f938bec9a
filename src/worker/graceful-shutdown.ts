import type { Logger } from '../shared/log/logger.js';

export type CloseOutcome = 'closed' | 'timed-out';

/** Runs close() and reports whether it finished within timeoutMs (it keeps running if not). */
export async function closeWithin(
  close: () => Promise<void>,
  timeoutMs: number,
): Promise<CloseOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CloseOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([close().then(() => 'closed' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ShutdownHandlerOptions {
  /** Stops taking work, lets running jobs finish, closes connections and the database. */
  close: () => Promise<void>;
  /** How long close() may take before the process exits anyway, non-zero. */
  timeoutMs: number;
  logger: Logger;
  /** Default process.exit. */
  exit?: (code: number) => void;
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
}

/**
 * On SIGTERM or SIGINT: close gracefully and exit 0, or exit 1 when close() fails or has not
 * finished after timeoutMs (jobs still running then are picked up again by another worker once
 * their locks lapse; a day's build is one transaction, so nothing half-done stays behind).
 * A second signal exits at once, with 1. Returns a function that removes the handlers.
 */
export function installShutdownHandlers(options: ShutdownHandlerOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const log = options.logger;
    if (shuttingDown) {
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    shuttingDown = true;
    log.info({ signal, timeoutMs: options.timeoutMs }, 'shutting down: finishing running jobs');
    closeWithin(options.close, options.timeoutMs).then(
      (outcome) => {
        if (outcome === 'closed') {
          log.info('shut down cleanly');
          exit(0);
        } else {
          log.error(
            { timeoutMs: options.timeoutMs },
            'shutdown time limit passed with jobs still running: exiting anyway',
          );
          exit(1);
        }
      },
      (err: unknown) => {
        log.error({ err: (err as Error).message }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => {
    for (const s of signals) process.off(s, onSignal);
  };
}
