import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { EmutrackError } from '../errors/emutrack-error.js';
import type { Logger } from '../log/logger.js';

/**
 * What every entry point (`npm start`, `npm run site`, `npm run demo`) does around its work:
 * read the configuration or say which variable is wrong (exit 2), close cleanly once on
 * SIGTERM/SIGINT, and report a failed start in one line on stderr that says what to do (exit 1):
 * a person who started a second server on the embedded database, on a port in use or with a
 * bad value reads the remedy, not a stack trace. EMUTRACK_DEBUG=1 adds the stack.
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

/** A server that could not start listening, with what to do about it. */
export class ServerStartError extends EmutrackError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('server_start_failed', message, options);
  }
}

/**
 * Listens on host:port, or throws ServerStartError naming `variable` (PORT, SITE_PORT): the
 * port is taken, needs privileges, or HOST is no address of this machine.
 */
export async function listenOn(
  app: { listen(options: { host: string; port: number }): Promise<unknown> },
  host: string,
  port: number,
  variable: string,
): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ServerStartError(
        `port ${port} (${variable}) is in use by another process: stop it, or set ${variable} to a free port`,
        { cause: err },
      );
    if (code === 'EACCES')
      throw new ServerStartError(
        `port ${port} (${variable}) may not be opened by this user: set ${variable} to a port above 1023`,
        { cause: err },
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new ServerStartError(
        `HOST ${JSON.stringify(host)} is not an address of this machine: set HOST to one (0.0.0.0 listens on all)`,
        { cause: err },
      );
    throw err;
  }
}

/** One line for an error that stopped a start, saying what to do when a person can fix it. */
export function startFailureLine(err: unknown): string {
  if (err instanceof EmutrackError) return err.message;
  const e = err as NodeJS.ErrnoException & { errors?: unknown[] };
  // pg reports an unreachable server as ECONNREFUSED (an AggregateError over its addresses).
  const code = e?.code ?? (e?.errors?.[0] as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT')
    return `the database server of DATABASE_URL cannot be reached (${code}): start it, correct DATABASE_URL, or unset it to use the embedded database`;
  if ((code === 'EACCES' || code === 'EROFS' || code === 'EPERM') && e.path)
    return `cannot write ${e.path} (${code}): set DATA_DIR to a directory this user can write`;
  if (typeof code === 'string' && /^(28|3D)/.test(code))
    return `the database server refused DATABASE_URL: ${e.message} (correct the user, password or database name)`;
  const message = err instanceof Error ? err.message || err.name : String(err);
  return `${message.split('\n')[0]} (EMUTRACK_DEBUG=1 prints the stack)`;
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

/**
 * Runs an entry point's main; an error that escapes it is printed in one line, prefixed with
 * `name` (startFailureLine), and the process exits 1.
 */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${name}: ${startFailureLine(err)}\n`);
    if (process.env.EMUTRACK_DEBUG) console.error(err);
    process.exit(1);
  });
}
