import { openAppContext } from '../shared/app/app-context.js';
import { loadConfig } from '../shared/config/config.js';
import { runMain } from '../shared/app/server-entry.js';
import { createLogger } from '../shared/log/logger.js';
import { runDemo } from './demo-run.js';

/**
 * `npm run demo`: the demo (demo-run.ts) on whatever database the environment names (the
 * embedded PGlite under ./.data by default), its data ending today.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await openAppContext({
    config,
    logger: createLogger(process.env.LOG_LEVEL ?? 'warn'),
  });
  try {
    await runDemo(ctx, { now: Date.now(), say: (line) => process.stdout.write(`${line}\n`) });
  } finally {
    await ctx.db.close();
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
runMain('demo', main);
