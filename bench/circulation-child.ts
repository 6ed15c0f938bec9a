import { inferCirculations } from '../src/circulation/infer-circulations.js';
import { peakRssBytes } from './peak-rss.js';
import { createPostgresDb } from '../src/db/postgres-db.js';

/**
 * The inference side of the circulation benchmark, in its own process so that its peak RSS is
 * the job's: three inference runs over the window ending with <as-of> (the first on a cold
 * process, each replacing the last), timed; prints the first result, the times and VmHWM as
 * JSON.
 * Usage: node circulation-child.js <database-url> <as-of-service-day> <window-days>
 */
const [dbUrl, asOfArg, windowArg] = process.argv.slice(2);
if (!dbUrl || !asOfArg || !windowArg)
  throw new Error('usage: circulation-child <db-url> <as-of-service-day> <window-days>');
const db = createPostgresDb({ connectionString: dbUrl, max: 2 });
const runs = [];
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const result = await inferCirculations(db, {
    asOf: Number(asOfArg),
    windowDays: Number(windowArg),
  });
  runs.push({ ms: performance.now() - started, result });
}
await db.close();

process.stdout.write(
  JSON.stringify({
    ms: runs.map((r) => r.ms),
    result: runs[0]!.result,
    peakRssBytes: await peakRssBytes(),
  }) + '\n',
);
