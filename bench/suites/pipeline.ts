import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DAILY_EXPORT_ROWS_SQL } from '../../src/exports/daily-export-csv.js';
import { benchDataset } from '../bench-dataset.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';

const run = promisify(execFile);

interface ChildResult {
  fleetMs: number;
  timetablesMs: number;
  timetables: { read: number; accepted: number; rejected: number };
  ingestMs: number;
  ingest: { read: number; accepted: number; duplicate: number; rejected: number };
  buildMs: number[];
  rebuildMs: number;
  records: number;
  exportMs: number[];
  exportRows: number;
  exportBytes: number;
  peakRssBytes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
 * in the same run: `psql \copy` of the same rows into a bare table with the same columns and no
 * index, and `COPY (the export query) TO STDOUT WITH CSV`.
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
        [child, bench.url, dataset.dir, String(dataset.firstServiceDay), String(days)],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      const r = JSON.parse(out.stdout) as ChildResult;

      ctx.log('pipeline: reference psql \\copy into a bare table');
      const rowsFile = path.join(tmp, 'observations.tsv');
      const columns =
        'batch_id, file, line, observed_at, service_day, service_date_given, train_code, train_codes, emu_id, emu_code, source, ref, dedup_key';
      await bench.db.query(
        `CREATE TABLE bare_observations AS SELECT ${columns} FROM observations WITH NO DATA`,
      );
      await run('psql', [
        bench.url,
        '-q',
        '-c',
        `\\copy (SELECT ${columns} FROM observations) TO '${rowsFile}'`,
      ]);
      const copyStart = performance.now();
      await run('psql', [
        bench.url,
        '-q',
        '-c',
        `\\copy bare_observations (${columns}) FROM '${rowsFile}'`,
      ]);
      const copyMs = performance.now() - copyStart;
      const copied = (
        await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bare_observations')
      ).rows[0]!.n;

      ctx.log('pipeline: reference COPY (export query) TO STDOUT WITH CSV');
      const dayList = Array.from({ length: days }, (_, i) => dataset.firstServiceDay + i);
      const copyToMs = await timeCopyTo(bench.url, dayList);

      const ingestRate = r.ingest.read / (r.ingestMs / 1000);
      const copyRate = copied / (copyMs / 1000);
      const exportRate = r.exportRows / (r.exportMs.reduce((a, b) => a + b, 0) / 1000);
      const copyToRate = r.exportRows / (copyToMs / 1000);
      const oneDay = median(r.buildMs);
      const rows: BenchRow[] = [
        {
          suite: 'pipeline',
          metric: `dataset: ${emus} EMUs x ${days} days`,
          value: r.records / days,
          unit: 'records/day',
        },
        {
          suite: 'pipeline',
          metric: 'ingest (NDJSON -> observations)',
          value: Math.round(ingestRate),
          unit: 'sightings/s',
          reference: Math.round(copyRate),
          ratio: ingestRate / copyRate,
          target: '>= 0.5x psql \\copy',
          pass: ingestRate / copyRate >= 0.5,
        },
        {
          suite: 'pipeline',
          metric: 'ingest wall time',
          value: Math.round(r.ingestMs),
          unit: 'ms',
        },
        {
          suite: 'pipeline',
          metric: `ingest timetables (${r.timetables.accepted} trains)`,
          value: Math.round(r.timetables.accepted / (r.timetablesMs / 1000)),
          unit: 'trains/s',
        },
        {
          suite: 'pipeline',
          metric: 'build one day (median; timetables, cross-midnight)',
          value: Math.round(oneDay),
          unit: 'ms',
          target: '<= 300 ms',
          pass: oneDay <= 300,
        },
        {
          suite: 'pipeline',
          metric: 'build one day (slowest)',
          value: Math.round(Math.max(...r.buildMs)),
          unit: 'ms',
        },
        {
          suite: 'pipeline',
          metric: 'rebuild one day (unchanged)',
          value: Math.round(r.rebuildMs),
          unit: 'ms',
        },
        {
          suite: 'pipeline',
          metric: `build ${days} days`,
          value: Math.round(r.buildMs.reduce((a, b) => a + b, 0)),
          unit: 'ms',
        },
        {
          suite: 'pipeline',
          metric: 'export (render + store CSV)',
          value: Math.round(exportRate),
          unit: 'rows/s',
          reference: Math.round(copyToRate),
          ratio: exportRate / copyToRate,
          target: '>= 0.5x COPY TO',
          pass: exportRate / copyToRate >= 0.5,
        },
        {
          suite: 'pipeline',
          metric: 'export one day (median)',
          value: Math.round(median(r.exportMs)),
          unit: 'ms',
        },
        {
          suite: 'pipeline',
          metric: 'worker peak RSS',
          value: Math.round(r.peakRssBytes / 1024 / 1024),
          unit: 'MB',
          target: '<= 300 MB',
          pass: r.peakRssBytes <= 300 * 1024 * 1024,
        },
      ];
      return rows;
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await bench.drop();
    }
  },
};
