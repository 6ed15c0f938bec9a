import { openAppContext, type AppContext } from '../shared/app/app-context.js';
import { createLogger } from '../shared/log/logger.js';
import { EmutrackError, isEmutrackError } from '../shared/errors/emutrack-error.js';

/** A failure the CLI reports as one line and a non-zero exit, without a stack trace. */
export class CliError extends EmutrackError {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super('cli_failed', message);
  }
}

/** Prints one line of a command's output. */
export const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * Opens the app context for one command and always closes it. The CLI logs only warnings by
 * default (LOG_LEVEL overrides) so that its own output stays readable.
 */
export async function withAppContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  let ctx: AppContext;
  try {
    ctx = await openAppContext({ logger: createLogger(process.env.LOG_LEVEL ?? 'warn') });
  } catch (err) {
    if (isEmutrackError(err, 'config_invalid')) throw new CliError(err.message);
    throw err;
  }
  try {
    return await fn(ctx);
  } finally {
    await ctx.db.close();
  }
}
