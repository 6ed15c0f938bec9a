import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { InferCirculationsResult } from '../../src/domain/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/domain/circulation/read-circulations.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import { benchDataset } from '../bench-dataset.js';
import type { BenchContext, BenchRow, BenchSuite } from '../bench-types.js';
import { readTruthCirculations, scoreCirculations } from '../circulation-truth.js';

const run = promisify(execFile);

const WINDOW_DAYS = 14;

interface ChildResult {
  /** Three runs, the first on a cold process. */
  ms: number[];
  /** CPU time of this process (user + system) in each run: what the run costs the Node side, whatever the load. */
  cpuMs: number[];
  /** The bare streamed read of the window's records after each run (see circulation-child.ts). */
  referenceMs: number[];
  result: InferCirculationsResult;
  peakRssBytes: number;
}

interface AccuracySetting {
  /** Short name in the rows. */
  name: string;
  missingRate: number;
  runUnseenRate?: number;
  sightingsPerRun?: readonly [number, number];
}

/**
 * The two settings scored: today's (3 to 7 sightings per run, 20% of them missing, so a whole
 * run is almost never unseen) and the sparse one of crowd-sourced data (20% of runs not seen at
 * all, 1 to 3 sightings per seen run). Both with the generator's 1% of sightings naming a wrong
 * unit, on its multi-day circulations (1 to 4 units rotating over as many days, some coupled).
 */
const SETTINGS: AccuracySetting[] = [
  { name: '20% sightings missing', missingRate: 0.2 },
  {
    name: 'sparse: 20% runs unseen, 1-3 sightings/run',
    missingRate: 0,
    runUnseenRate: 0.2,
    sightingsPerRun: [1, 3],
  },
];

/**
 * Circulation inference scored against the generator's ground truth: 4,500 EMUs (--quick: 300),
 * a 14-day window, at each setting above. The dataset's timetables and the window are ingested
 * and its days built (records carry their timetable, so runs are ordered by timetable start). A
 * child process then runs the inference three times (its time and peak RSS are the job's), and
 * the routes are scored: link precision and recall (a truth link is two consecutive trains of a
 * circulation's cycle, across day boundaries and round from the last train to the first; see
 * circulation-truth.ts) and the share of circulations reproduced exactly.
 */
export const circulationSuite: BenchSuite = {
  name: 'circulation',
  async run(ctx) {
    const rows: BenchRow[] = [];
    for (const setting of SETTINGS) rows.push(...(await scoreSetting(ctx, setting)));
    return rows;
  },
};

async function scoreSetting(ctx: BenchContext, setting: AccuracySetting): Promise<BenchRow[]> {
  const emus = ctx.quick ? 300 : 4500;
  const suite = 'circulation';
  const tag = `[${setting.name}]`;
  const dataset = await benchDataset({
    emus,
    days: WINDOW_DAYS,
    seed: 1,
    missingRate: setting.missingRate,
    ...(setting.runUnseenRate !== undefined ? { runUnseenRate: setting.runUnseenRate } : {}),
    ...(setting.sightingsPerRun ? { sightingsPerRun: setting.sightingsPerRun } : {}),
    log: ctx.log,
  });
  const bench = await ctx.createDatabase();
  try {
    ctx.log(`circulation ${tag}: ingest and build ${WINDOW_DAYS} days of ${emus} EMUs`);
    await importFleet(bench.db, path.join(dataset.dir, 'fleet.csv'));
    await ingestTimetables(bench.db, path.join(dataset.dir, 'timetables.ndjson'));
    await ingestObservations(bench.db, path.join(dataset.dir, 'observations'));
    const asOf = dataset.firstServiceDay + WINDOW_DAYS - 1;
    for (let d = dataset.firstServiceDay; d <= asOf; d++) await buildDailyRecords(bench.db, d);

    ctx.log(`circulation ${tag}: inference (child process)`);
    const child = fileURLToPath(new URL('../circulation-child.js', import.meta.url));
    const out = await run(process.execPath, [child, bench.url, String(asOf), String(WINDOW_DAYS)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const r = JSON.parse(out.stdout) as ChildResult;
    ctx.log(
      `circulation ${tag}: runs took ${r.ms.map((x) => Math.round(x)).join(', ')} ms; first run's phases ${JSON.stringify(r.result.phases)}`,
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
    const sorted = [...r.ms].sort((a, b) => a - b);
    const reference = [...r.referenceMs].sort((a, b) => a - b)[1]!;
    return [
      {
        suite,
        metric: `${tag} dataset: ${emus} EMUs x ${WINDOW_DAYS} days, ${dataset.manifest.counts.unseenRuns ?? 0} runs unseen, ${dataset.manifest.counts.sightings} sightings`,
        value: r.result.runs,
        unit: 'runs',
      },
      {
        suite,
        metric: `${tag} link precision (${score.correctLinks} of ${score.inferredLinks} inferred)`,
        value: round(score.linkPrecision),
        unit: 'share',
        target: '>= 0.995',
        pass: score.linkPrecision >= 0.995,
      },
      {
        suite,
        metric: `${tag} link recall (${score.correctLinks} of ${score.truthLinks} true)`,
        value: round(score.linkRecall),
        unit: 'share',
        target: '>= 0.97',
        pass: score.linkRecall >= 0.97,
      },
      {
        suite,
        metric: `${tag} circulations reproduced exactly (${score.circulationsMatchedExactly} of ${score.circulations})`,
        value: round(exactShare),
        unit: 'share',
      },
      {
        suite,
        metric: `${tag} routes that are exactly a circulation (${score.routesMatchedExactly} of ${score.routes})`,
        value: round(score.routesMatchedExactly / Math.max(1, score.routes)),
        unit: 'share',
      },
      {
        suite,
        metric: `${tag} runs ordered by first sighting (no timetable)`,
        value: r.result.runsOrderedBySighting,
        unit: 'runs',
      },
      {
        suite,
        metric: `${tag} inference time (first run)`,
        value: Math.round(r.ms[0]!),
        unit: 'ms',
        target: '<= 5000 ms',
        pass: r.ms[0]! <= 5000,
      },
      {
        suite,
        metric: `${tag} inference time (median of 3) against reading the window's records alone`,
        value: Math.round(sorted[1]!),
        unit: 'ms',
        reference: Math.round(reference),
        ratio: Math.round((reference / sorted[1]!) * 100) / 100,
      },
      {
        suite,
        metric: `${tag} inference CPU time of the Node process (median of 3; the database's is not in it)`,
        value: Math.round([...r.cpuMs].sort((a, b) => a - b)[1]!),
        unit: 'ms',
      },
      {
        suite,
        metric: `${tag} inference peak RSS`,
        value: Math.round(r.peakRssBytes / 1024 / 1024),
        unit: 'MB',
        target: '<= 1024 MB',
        pass: r.peakRssBytes <= 1024 * 1024 * 1024,
      },
    ];
  } finally {
    await bench.drop();
  }
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
