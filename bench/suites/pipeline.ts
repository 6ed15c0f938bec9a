import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DAILY_EXPORT_ROWS_SQL } from '../../src/domain/exports/daily-export-csv.js';
import { benchDataset } from '../bench-dataset.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { median, repeatMeasure } from '../repeat.js';

const run = promisify(execFile);

// The worker process's V8 flags, as `npm run worker` and docker-compose start it (README,
// Performance): a 2 MB young generation semi-space instead of V8's 16 MB.
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=2'];

interface ChildResult {
  buildPhases: Record<string, number[]>;
  forcedMs: number[];
  /** The day's finished records inserted into daily_records alone (the build's floor). */
  insertOnlyMs: number[];
  fleetMs: number;
  timetablesMs: number;
  timetables: { read: number; accepted: number; rejected: number };
  ingestMs: number;
  ingest: { read: number; accepted: number; duplicate: number; rejected: number };
  buildMs: number[];
  rebuildMs: number[];
  records: number;
  exportMs: number[];
  exportRows: number;
  exportBytes: number;
  peakRssBytes: number;
  /** The high-water mark after each stage (fleet, timetables, ingest, builds, exports). */
  rssStages: Record<string, number>;
}

async function timeCopyTo(url: string, days: number[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    for (const day of days) {
      const sql = DAILY_EXPORT_ROWS_SQL.replace('$1', String(day));
      const stream = client.query(copyTo(`COPY (${sql}) TO STDOUT WITH CSV`));
      for await (const _chunk of stream) {
        // drain
      }
    }
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

/**
 * Ingestion, daily builds and exports on the generated network (4,500 EMUs x 30 days; --quick:
 * 300 x 3), run by a child process whose peak RSS is the worker's, against references measured
 * in the same run: `psql \copy` of the same rows into a table with the indexes and constraints
 * of observations and into a bare one, and `COPY (the export query) TO STDOUT WITH CSV`.
 */
export const pipelineSuite: BenchSuite = {
  name: 'pipeline',
  async run(ctx) {
    const emus = ctx.quick ? 300 : 4500;
    const days = ctx.quick ? 3 : 30;
    const dataset = await benchDataset({ emus, days, seed: 1, log: ctx.log });
    const bench = await ctx.createDatabase();
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'emutrack-bench-'));
    try {
      ctx.log(
        `pipeline: ingest ${dataset.sightings} sightings, build and export ${days} days (child process)`,
      );
      const child = fileURLToPath(new URL('../pipeline-child.js', import.meta.url));
      const out = await run(
        process.execPath,
        [
          ...WORKER_NODE_FLAGS,
          child,
          bench.url,
          dataset.dir,
          String(dataset.firstServiceDay),
          String(days),
        ],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      const r = JSON.parse(out.stdout) as ChildResult;

      // The references: psql \copy of the rows the ingestion stored, into a bare table (no
      // index) and into one with the indexes and constraints of observations (LIKE ... INCLUDING
      // ALL: identity, primary key, unique dedup key, the day/time index), each run three
      // times into an emptied table; the medians count.
      ctx.log('pipeline: references psql \\copy into a bare and an indexed table (3 x each)');
      const rowsFile = path.join(tmp, 'observations.tsv');
      const columns =
        'batch_id, file, line, observed_at, service_day, service_date_given, train_code, train_codes, emu_id, emu_code, source, ref, dedup_key';
      await bench.db.query(
        `CREATE TABLE bare_observations AS SELECT ${columns} FROM observations WITH NO DATA`,
      );
      await bench.db.query('CREATE TABLE indexed_observations (LIKE observations INCLUDING ALL)');
      await run('psql', [
        bench.url,
        '-q',
        '-c',
        `\\copy (SELECT ${columns} FROM observations) TO '${rowsFile}'`,
      ]);
      const copyInto = (table: string) =>
        repeatMeasure(ctx.quick ? 1 : 3, async () => {
          await bench.db.query(`TRUNCATE ${table}`);
          await bench.db.query('CHECKPOINT');
          const started = performance.now();
          await run('psql', [
            bench.url,
            '-q',
            '-c',
            `\\copy ${table} (${columns}) FROM '${rowsFile}'`,
          ]);
          return performance.now() - started;
        });
      const bareCopy = await copyInto('bare_observations');
      const indexedCopy = await copyInto('indexed_observations');
      const copied = (
        await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM indexed_observations')
      ).rows[0]!.n;

      ctx.log('pipeline: reference COPY (export query) TO STDOUT WITH CSV');
      const dayList = Array.from({ length: days }, (_, i) => dataset.firstServiceDay + i);
      const copyToMs = await timeCopyTo(bench.url, dayList);

      const ingestRate = r.ingest.read / (r.ingestMs / 1000);
      const bareRate = copied / (bareCopy.median / 1000);
      const indexedRate = copied / (indexedCopy.median / 1000);
      const exportRate = r.exportRows / (r.exportMs.reduce((a, b) => a + b, 0) / 1000);
      const copyToRate = r.exportRows / (copyToMs / 1000);
      const oneDay = median(r.buildMs);
      const floor = median(r.insertOnlyMs);
      const slowest = Math.max(...r.buildMs);
      const unchanged = median(r.rebuildMs);
      const rssMb = r.peakRssBytes / 1024 / 1024;
      const row = (x: Omit<BenchRow, 'suite'>): BenchRow => ({ suite: 'pipeline', ...x });
      const rows: BenchRow[] = [
        row({
          metric: `dataset: ${emus} EMUs x ${days} days`,
          value: r.records / days,
          unit: 'records/day',
        }),
        row({
          metric: 'ingest (NDJSON -> observations) vs psql \\copy, same indexes and constraints',
          value: Math.round(ingestRate),
          unit: 'sightings/s',
          reference: Math.round(indexedRate),
          ratio: ingestRate / indexedRate,
          target: '>= 0.6x',
          pass: ingestRate / indexedRate >= 0.6,
        }),
        row({
          metric: 'ingest vs psql \\copy into a bare table (no index)',
          value: Math.round(ingestRate),
          unit: 'sightings/s',
          reference: Math.round(bareRate),
          ratio: ingestRate / bareRate,
        }),
        row({
          metric: `psql \\copy references, median of ${indexedCopy.runs.length} (indexed / bare)`,
          value: Math.round(indexedCopy.median),
          unit: 'ms',
          reference: Math.round(bareCopy.median),
        }),
        row({ metric: 'ingest wall time', value: Math.round(r.ingestMs), unit: 'ms' }),
        row({
          metric: `ingest timetables (${r.timetables.accepted} trains)`,
          value: Math.round(r.timetables.accepted / (r.timetablesMs / 1000)),
          unit: 'trains/s',
        }),
        row({
          metric: `build one day (median of ${r.buildMs.length}; timetables, cross-midnight)`,
          value: Math.round(oneDay),
          unit: 'ms',
          target: '<= 300 ms',
          pass: oneDay <= 300,
        }),
        row({
          metric: `  build one day against its floor: the day's ${Math.round(r.records / days)} finished records inserted into daily_records (its five indexes), no rule (median of ${r.insertOnlyMs.length})`,
          value: Math.round(oneDay),
          unit: 'ms',
          reference: Math.round(floor),
          ratio: oneDay / floor,
          target: '<= 1.5x',
          pass: oneDay / floor <= 1.5,
        }),
        row({
          metric: 'build one day (slowest)',
          value: Math.round(slowest),
          unit: 'ms',
          target: '<= 450 ms',
          pass: slowest <= 450,
        }),
        ...Object.entries(r.buildPhases).map(([name, ms]) =>
          row({
            metric: `  build phase: ${name} (median)`,
            value: Math.round(median(ms) * 10) / 10,
            unit: 'ms',
          }),
        ),
        row({
          metric: `rebuild one day, inputs unchanged: skipped (median of ${r.rebuildMs.length})`,
          value: Math.round(unchanged),
          unit: 'ms',
          target: '<= 150 ms',
          pass: unchanged <= 150,
        }),
        row({
          metric: `rebuild one day, unchanged, --force (median of ${r.forcedMs.length})`,
          value: Math.round(median(r.forcedMs)),
          unit: 'ms',
        }),
        row({
          metric: `build ${days} days`,
          value: Math.round(r.buildMs.reduce((a, b) => a + b, 0)),
          unit: 'ms',
        }),
        row({
          metric: 'export (render + store CSV)',
          value: Math.round(exportRate),
          unit: 'rows/s',
          reference: Math.round(copyToRate),
          ratio: exportRate / copyToRate,
          target: '>= 0.5x COPY TO',
          pass: exportRate / copyToRate >= 0.5,
        }),
        row({
          metric: 'export one day (median)',
          value: Math.round(median(r.exportMs)),
          unit: 'ms',
        }),
        row({
          metric: 'worker peak RSS (ingest, builds, exports)',
          value: Math.round(rssMb),
          unit: 'MB',
          target: '<= 250 MB',
          pass: rssMb <= 250,
        }),
        ...Object.entries(r.rssStages).map(([stage, bytes]) =>
          row({
            metric: `  worker peak RSS after ${stage}`,
            value: Math.round(bytes / 1024 / 1024),
            unit: 'MB',
          }),
        ),
      ];
      return rows;
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await bench.drop();
    }
  },
};
