import { ConfigError, loadConfig, type Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';

/**
 * What every HTTP entry point (`npm start`, `npm run site`) does around its app: read the
 * configuration or say which variable is wrong (exit 2), close cleanly once on SIGTERM/SIGINT,
 * and report a failed start (exit 1).
 */

/** The validated configuration; a bad variable is printed in one line and the process exits 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Runs `close` once on the first SIGTERM or SIGINT; a failure is logged and sets exit code 1. */
export function closeOnSignals(logger: Logger, close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      await close();
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));
}

/** Runs an entry point's main; an error that escapes it is printed and the process exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
