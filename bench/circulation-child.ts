import { inferCirculations } from '../src/domain/circulation/infer-circulations.js';
import { peakRssBytes } from './peak-rss.js';
import { createPostgresDb } from '../src/shared/db/postgres-db.js';

/**
 * The inference side of the circulation benchmark, in its own process so that its peak RSS is
 * the job's: three inference runs over the window ending with <as-of> (the first on a cold
 * process, each replacing the last), timed; each followed by the reference, the bare streamed
 * read of the window's records that every run starts with (COPY of the same query, bytes
 * counted, nothing parsed), so that the two see the same load; prints the first result, the
 * times and VmHWM as JSON.
 * Usage: node circulation-child.js <database-url> <as-of-service-day> <window-days>
 */
const [dbUrl, asOfArg, windowArg] = process.argv.slice(2);
if (!dbUrl || !asOfArg || !windowArg)
  throw new Error('usage: circulation-child <db-url> <as-of-service-day> <window-days>');
const db = createPostgresDb({ connectionString: dbUrl, max: 2 });
const runs = [];
const referenceMs: number[] = [];
const asOf = Number(asOfArg);
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await inferCirculations(db, { asOf, windowDays: Number(windowArg) });
  const used = process.cpuUsage(cpu);
  runs.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, result });
  const refStarted = performance.now();
  let bytes = 0;
  for await (const chunk of db.copyTo(
    `SELECT emu_id, service_day, train_code, first_observed_at, last_observed_at, timetable_id
       FROM daily_records
      WHERE service_day BETWEEN ${asOf - Number(windowArg) + 1} AND ${asOf}
      ORDER BY emu_id, service_day`,
  ))
    bytes += chunk.length;
  if (bytes === 0) throw new Error('reference read no records');
  referenceMs.push(performance.now() - refStarted);
}
await db.close();

process.stdout.write(
  JSON.stringify({
    ms: runs.map((r) => r.ms),
    cpuMs: runs.map((r) => r.cpuMs),
    referenceMs,
    result: runs[0]!.result,
    peakRssBytes: await peakRssBytes(),
  }) + '\n',
);
