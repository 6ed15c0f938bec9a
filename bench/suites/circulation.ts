import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { InferCirculationsResult } from '../../src/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/circulation/read-circulations.js';
import { createPostgresDb } from '../../src/db/postgres-db.js';
import { importFleet } from '../../src/emus/import-fleet.js';
import { ingestObservations } from '../../src/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/records/build-daily-records.js';
import { ingestTimetables } from '../../src/timetables/ingest-timetables.js';
import { benchDataset } from '../bench-dataset.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { readTruthCirculations, scoreCirculations } from '../circulation-truth.js';

const run = promisify(execFile);

const WINDOW_DAYS = 14;

interface ChildResult {
  /** Three runs, the first on a cold process. */
  ms: number[];
  result: InferCirculationsResult;
  peakRssBytes: number;
}

/**
 * Circulation inference scored against the generator's ground truth: 4,500 EMUs (--quick: 300),
 * a 14-day window, 20% of sightings missing and the generator's 1% naming a wrong unit. The
 * dataset's timetables and the window are ingested and its days built (records carry their
 * timetable, so runs are ordered by timetable start). A child process then runs the inference
 * three times (its time and peak RSS are the job's), and the routes are scored: link precision
 * and recall (a truth link is two consecutive trains of a circulation's cycle, across day
 * boundaries and round from the last train to the first; see circulation-truth.ts) and the share
 * of circulations reproduced exactly.
 */
export const circulationSuite: BenchSuite = {
  name: 'circulation',
  async run(ctx) {
    const emus = ctx.quick ? 300 : 4500;
    const dataset = await benchDataset({
      emus,
      days: WINDOW_DAYS,
      seed: 1,
      missingRate: 0.2,
      log: ctx.log,
    });
    const bench = await ctx.createDatabase();
    try {
      ctx.log(`circulation: ingest and build ${WINDOW_DAYS} days of ${emus} EMUs`);
      await importFleet(bench.db, path.join(dataset.dir, 'fleet.csv'));
      await ingestTimetables(bench.db, path.join(dataset.dir, 'timetables.ndjson'));
      await ingestObservations(bench.db, path.join(dataset.dir, 'observations'));
      const asOf = dataset.firstServiceDay + WINDOW_DAYS - 1;
      for (let d = dataset.firstServiceDay; d <= asOf; d++) await buildDailyRecords(bench.db, d);

      ctx.log('circulation: inference (child process)');
      const child = fileURLToPath(new URL('../circulation-child.js', import.meta.url));
      const out = await run(
        process.execPath,
        [child, bench.url, String(asOf), String(WINDOW_DAYS)],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      const r = JSON.parse(out.stdout) as ChildResult;
      ctx.log(
        `circulation: runs took ${r.ms.map((x) => Math.round(x)).join(', ')} ms; first run's phases ${JSON.stringify(r.result.phases)}`,
      );

      const reader = createPostgresDb({ connectionString: bench.url, max: 1 });
      const routes = await readCurrentRoutes(reader).finally(() => reader.close());
      const score = scoreCirculations(
        await readTruthCirculations(dataset.dir),
        routes.map((x) => ({
          nodes: x.nodes.map((n) => n.nodeKey),
          containsLoopBreak: x.metadata.containsLoopBreak,
        })),
      );
      const exactShare = score.circulationsMatchedExactly / score.circulations;
      const rows: BenchRow[] = [
        {
          suite: 'circulation',
          metric: `dataset: ${emus} EMUs x ${WINDOW_DAYS} days, 20% missing`,
          value: r.result.runs,
          unit: 'runs',
        },
        {
          suite: 'circulation',
          metric: `link precision (${score.correctLinks} of ${score.inferredLinks} inferred)`,
          value: round(score.linkPrecision),
          unit: 'share',
          target: '>= 0.99',
          pass: score.linkPrecision >= 0.99,
        },
        {
          suite: 'circulation',
          metric: `link recall (${score.correctLinks} of ${score.truthLinks} true)`,
          value: round(score.linkRecall),
          unit: 'share',
          target: '>= 0.95',
          pass: score.linkRecall >= 0.95,
        },
        {
          suite: 'circulation',
          metric: `circulations reproduced exactly (${score.circulationsMatchedExactly} of ${score.circulations})`,
          value: round(exactShare),
          unit: 'share',
        },
        {
          suite: 'circulation',
          metric: `routes that are exactly a circulation (${score.routesMatchedExactly} of ${score.routes})`,
          value: round(score.routesMatchedExactly / Math.max(1, score.routes)),
          unit: 'share',
        },
        {
          suite: 'circulation',
          metric: 'runs ordered by first sighting (no timetable)',
          value: r.result.runsOrderedBySighting,
          unit: 'runs',
        },
        {
          suite: 'circulation',
          metric: 'inference time (first run)',
          value: Math.round(r.ms[0]!),
          unit: 'ms',
          target: '<= 5000 ms',
          pass: r.ms[0]! <= 5000,
        },
        {
          suite: 'circulation',
          metric: 'inference time (median of 3)',
          value: Math.round([...r.ms].sort((a, b) => a - b)[1]!),
          unit: 'ms',
        },
        {
          suite: 'circulation',
          metric: 'inference peak RSS',
          value: Math.round(r.peakRssBytes / 1024 / 1024),
          unit: 'MB',
          target: '<= 1024 MB',
          pass: r.peakRssBytes <= 1024 * 1024 * 1024,
        },
      ];
      return rows;
    } finally {
      await bench.drop();
    }
  },
};

const round = (x: number) => Math.round(x * 10_000) / 10_000;
