import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { AppContext } from '../../src/shared/app/app-context.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { runDayInProcess } from '../../src/worker/in-process-runner.js';
import { StaleRebuilds } from '../../src/worker/stale-rebuilds.js';
import {
  buildDailyRecords,
  type BuildResult,
} from '../../src/domain/records/build-daily-records.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { serviceDayOf, midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';

/** Trains a day has before the late lines arrive (two sightings each: confirmed records). */
const TRAINS_PER_DAY = 400;

interface Line {
  observedAt: number;
  trainCode: string;
  emuCode: string;
  source: string;
  ref: string;
}

/**
 * `total` sightings spread over the days (the first days one more when it does not divide),
 * trains from `firstTrain`, two sightings per train.
 */
function linesFor(days: readonly number[], total: number, firstTrain: number, tag: string) {
  const lines: Line[] = [];
  for (const [d, day] of days.entries()) {
    const base = midnightOfServiceDay(day) + 7 * 3600;
    const perDay = Math.floor(total / days.length) + (d < total % days.length ? 1 : 0);
    for (let i = 0; i < perDay; i++) {
      const train = firstTrain + Math.floor(i / 2);
      lines.push({
        observedAt: base + i * 20,
        trainCode: `G${train}`,
        emuCode: `CR400AF-${1000 + ((train + day) % 4000)}`,
        source: `s${i % 2}`,
        ref: `${tag}-${day}-${i}`,
      });
    }
  }
  return lines;
}

async function ingestLines(ctx: AppContext, dir: string, name: string, lines: readonly Line[]) {
  const file = path.join(dir, name);
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return ingestObservations(ctx.db, file);
}

/**
 * Late data: 30 built days, then a burst of 10,000 late lines across them (--quick:
 * 3 days, 1,000 lines). Measured: the worker's rebuild of the stale days as it runs it (the
 * stale days found due, each built and exported through the job code, in-process), wall time
 * from the first poll until no day is stale, and how many builds ran. Reference, in the same
 * run: a second burst of the same size rebuilt by hand, day by day (build, then export: what
 * `emutrack replay` does), so the ratio is the cost of finding and coalescing the stale days.
 */
export const staleDaysSuite: BenchSuite = {
  name: 'stale-days',
  async run(bctx) {
    const dayCount = bctx.quick ? 3 : 30;
    const burst = bctx.quick ? 1_000 : 10_000;
    const bench = await bctx.createDatabase();
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'emutrack-bench-stale-'));
    try {
      const config = loadConfig({
        DATABASE_URL: bench.url,
        LOG_LEVEL: 'silent',
        STALE_REBUILD_DELAY_MS: '0',
      });
      const ctx: AppContext = { config, db: bench.db, logger: pino({ level: 'silent' }) };
      const today = serviceDayOf(Date.now() / 1000);
      const days = Array.from({ length: dayCount }, (_, i) => today - 40 + i);
      bctx.log(`stale-days: seeding ${dayCount} days of ${TRAINS_PER_DAY} trains, built`);
      await ingestLines(
        ctx,
        tmp,
        'seed.ndjson',
        linesFor(days, dayCount * TRAINS_PER_DAY * 2, 1000, 'seed'),
      );
      for (const day of days) {
        await buildDailyRecords(ctx.db, day);
        await renderDailyExport(ctx.db, day);
      }
      await ctx.db.query('DELETE FROM stale_days');

      bctx.log(`stale-days: burst of ${burst} late lines, then the worker's rebuild`);
      const first = await ingestLines(ctx, tmp, 'late-1.ndjson', linesFor(days, burst, 5000, 'a'));
      const stale = (await listStaleDays(ctx.db)).length;
      const builds: BuildResult[] = [];
      const rebuilds = new StaleRebuilds({
        db: ctx.db,
        timing: { delayMs: 0, maxWaitMs: 0 },
        rebuildDay: async (day) => builds.push((await runDayInProcess(ctx, day)).build),
        logger: ctx.logger,
      });
      const started = performance.now();
      while ((await listStaleDays(ctx.db)).length > 0) await rebuilds.poll();
      const staleMs = performance.now() - started;
      const buildsRun = builds.filter((b) => !b.skipped).length;

      bctx.log('stale-days: reference: a second burst rebuilt by hand, day by day');
      await ingestLines(ctx, tmp, 'late-2.ndjson', linesFor(days, burst, 7000, 'b'));
      const manualStarted = performance.now();
      for (const day of days) await runDayInProcess(ctx, day);
      const manualMs = performance.now() - manualStarted;

      return [
        {
          suite: 'stale-days',
          metric: `rebuild of ${stale} stale days after a burst of ${first.accepted} late lines (wall time, build + export each)`,
          value: Math.round(staleMs),
          unit: 'ms',
          reference: Math.round(manualMs),
          ratio: manualMs / staleMs,
          target: `${dayCount} builds, not one per line`,
          pass: buildsRun === dayCount,
        },
        {
          suite: 'stale-days',
          metric:
            '  builds run by the stale rebuild (reference: days it handed over to build and export)',
          value: buildsRun,
          unit: 'builds',
          reference: rebuilds.handedOver,
        },
        {
          suite: 'stale-days',
          metric: `  reference: the same ${dayCount} days rebuilt by hand after a second burst (replay)`,
          value: Math.round(manualMs),
          unit: 'ms',
        },
      ] satisfies BenchRow[];
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await bench.drop();
    }
  },
};
