import type { Queryable } from '../../../shared/db/db.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { sourceFamilies } from './source-metrics.js';
import { staleDaysFamilies } from './stale-days-metrics.js';

/** Upper bounds (seconds) of the job duration buckets: 1 s to 2 h. */
export const JOB_DURATION_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200];

/** Service days, counted back from the newest, whose last successful build and export are shown. */
export const DAYS_SHOWN = 7;

/** One metric family and its samples, as prom-client's registry prints them. */
export interface StoredFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
}
type Family = StoredFamily;

/**
 * The metric families read from the database at each scrape: what the workers did (job_runs)
 * what the last circulation inference found, and what each source's pulls counted. Workers may run in other processes, so these
 * come from what they record rather than from counters in this process. Each is cumulative over
 * the job_runs table (it only grows), as Prometheus counters and histograms must be.
 */
export async function readStoredMetrics(db: Queryable): Promise<Family[]> {
  const [durations, lastDays, inference, ingest, stale, sources] = await Promise.all([
    jobDurations(db),
    lastSuccessfulDays(db),
    inferenceProxies(db),
    ingestTotals(db),
    staleDaysFamilies(db),
    sourceFamilies(db),
  ]);
  return [...durations, ...lastDays, ...inference, ...ingest, ...stale, ...sources];
}

async function jobDurations(db: Queryable): Promise<Family[]> {
  const bucketSql = JOB_DURATION_BUCKETS.map((b) => `count(*) FILTER (WHERE d <= ${b})::int`).join(
    ', ',
  );
  const r = await db.query<{ job: string; status: string; n: number; s: number; le: number[] }>(
    `SELECT job, status, count(*)::int AS n, coalesce(sum(d), 0)::float8 AS s, ARRAY[${bucketSql}] AS le
       FROM (SELECT job, status, extract(epoch FROM finished_at - started_at)::float8 AS d
               FROM job_runs WHERE finished_at IS NOT NULL) runs
      GROUP BY job, status ORDER BY job, status`,
  );
  const histogram: Family['values'] = [];
  const failures: Family['values'] = [];
  for (const row of r.rows) {
    const labels = { job: row.job, status: row.status };
    JOB_DURATION_BUCKETS.forEach((b, i) =>
      histogram.push({
        metricName: 'emutrack_job_duration_seconds_bucket',
        labels: { ...labels, le: b },
        value: row.le[i]!,
      }),
    );
    histogram.push(
      {
        metricName: 'emutrack_job_duration_seconds_bucket',
        labels: { ...labels, le: '+Inf' },
        value: row.n,
      },
      { metricName: 'emutrack_job_duration_seconds_sum', labels, value: row.s },
      { metricName: 'emutrack_job_duration_seconds_count', labels, value: row.n },
    );
    if (row.status === 'failed') failures.push({ labels: { job: row.job }, value: row.n });
  }
  return [
    {
      name: 'emutrack_job_duration_seconds',
      help: 'Duration of finished job runs (job_runs), per job name and outcome.',
      type: 'histogram',
      values: histogram,
    },
    {
      name: 'emutrack_job_failures_total',
      help: 'Failed job runs (job_runs), per job name; every failed attempt counts.',
      type: 'counter',
      values: failures,
    },
  ];
}

async function lastSuccessfulDays(db: Queryable): Promise<Family[]> {
  const r = await db.query<{ job: string; service_day: number; at: number }>(
    `SELECT job, service_day, at FROM (
       SELECT job, service_day, extract(epoch FROM max(finished_at))::float8 AS at,
              row_number() OVER (PARTITION BY job ORDER BY service_day DESC) AS nth
         FROM job_runs
        WHERE status = 'completed' AND service_day IS NOT NULL
          AND job IN ('build-daily-records', 'render-daily-export')
        GROUP BY job, service_day) d
      WHERE nth <= $1 ORDER BY job, service_day`,
    [DAYS_SHOWN],
  );
  const newest = new Map<string, number>();
  for (const row of r.rows)
    newest.set(row.job, Math.max(newest.get(row.job) ?? 0, row.service_day));
  return [
    {
      name: 'emutrack_day_last_success_timestamp_seconds',
      help: `When each of the ${DAYS_SHOWN} newest service days was last built or exported successfully (Unix seconds).`,
      type: 'gauge',
      values: r.rows.map((row) => ({
        labels: { job: row.job, service_day: ymdOfServiceDay(row.service_day) },
        value: row.at,
      })),
    },
    {
      name: 'emutrack_last_successful_service_day',
      help: 'The newest service day built or exported successfully, as days since 1970-01-01.',
      type: 'gauge',
      values: [...newest].map(([job, day]) => ({ labels: { job }, value: day })),
    },
  ];
}

async function inferenceProxies(db: Queryable): Promise<Family[]> {
  const r = await db.query<{
    links_seen: number;
    links_kept: number;
    routes: number;
    loop_breaks: number;
    finished: number | null;
  }>(
    `SELECT r.links_seen, r.links_kept, r.routes, r.loop_breaks,
            extract(epoch FROM r.finished_at)::float8 AS finished
       FROM circulation_current c JOIN circulation_runs r ON r.id = c.run_id`,
  );
  const run = r.rows[0];
  const gauge = (name: string, help: string, value: number | null | undefined): Family => ({
    name,
    help,
    type: 'gauge',
    values: value === undefined || value === null ? [] : [{ labels: {}, value }],
  });
  return [
    gauge(
      'emutrack_circulation_links_seen',
      'Links between trains seen by the current circulation inference.',
      run?.links_seen,
    ),
    gauge(
      'emutrack_circulation_links_kept',
      'Links kept (above the threshold and minimum support) by the current inference.',
      run?.links_kept,
    ),
    gauge(
      'emutrack_circulation_routes',
      'Circulation routes the current inference found.',
      run?.routes,
    ),
    gauge(
      'emutrack_circulation_loop_breaks',
      'Loops the current inference had to cut to make routes.',
      run?.loop_breaks,
    ),
    gauge(
      'emutrack_circulation_finished_timestamp_seconds',
      'When the current inference run finished (Unix seconds).',
      run?.finished,
    ),
  ];
}

/** The outcomes of an ingested line, as ingest_batches counts them. */
export const INGEST_OUTCOMES = ['accepted', 'duplicate', 'rejected'] as const;

/**
 * Lines ingested, per kind (observations, timetables, fleet, ...) and outcome, and batches, from
 * ingest_batches: whoever ingested (worker, CLI, inbox), every batch records its counts there,
 * and the table only grows, so the sums are counters.
 */
async function ingestTotals(db: Queryable): Promise<Family[]> {
  const r = await db.query<{
    kind: string;
    batches: number;
    accepted: number;
    duplicate: number;
    rejected: number;
  }>(
    `SELECT kind, count(*)::float8 AS batches, coalesce(sum(accepted), 0)::float8 AS accepted,
            coalesce(sum(duplicate), 0)::float8 AS duplicate, coalesce(sum(rejected), 0)::float8 AS rejected
       FROM ingest_batches GROUP BY kind ORDER BY kind`,
  );
  return [
    {
      name: 'emutrack_ingest_lines_total',
      help: 'Input lines ingested, per kind of input and outcome (accepted, duplicate, rejected: see emutrack rejects).',
      type: 'counter',
      values: r.rows.flatMap((row) =>
        INGEST_OUTCOMES.map((outcome) => ({
          labels: { kind: row.kind, outcome },
          value: row[outcome],
        })),
      ),
    },
    {
      name: 'emutrack_ingest_batches_total',
      help: 'Ingestion batches (one per ingest command, job or inbox file set), per kind of input.',
      type: 'counter',
      values: r.rows.map((row) => ({ labels: { kind: row.kind }, value: row.batches })),
    },
  ];
}
