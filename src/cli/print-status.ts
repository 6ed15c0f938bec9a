import type { AppContext } from '../app/app-context.js';
import { ymdOfServiceDay } from '../time/service-day.js';

export interface DayRunStatus {
  serviceDay: number;
  job: string;
  status: string;
  via: string;
  startedAt: Date;
  finishedAt: Date | null;
  error: string | null;
}

/** The latest run of each job for the most recent `days` service days that had any run. */
export async function lastRunsByDay(ctx: AppContext, days: number): Promise<DayRunStatus[]> {
  const r = await ctx.db.query<{
    service_day: number;
    job: string;
    status: string;
    via: string;
    started_at: Date;
    finished_at: Date | null;
    error: string | null;
  }>(
    `WITH recent AS (
       SELECT DISTINCT service_day FROM job_runs WHERE service_day IS NOT NULL ORDER BY service_day DESC LIMIT $1
     )
     SELECT DISTINCT ON (j.service_day, j.job) j.service_day, j.job, j.status, j.via, j.started_at, j.finished_at, j.error
       FROM job_runs j JOIN recent USING (service_day)
      ORDER BY j.service_day DESC, j.job, j.started_at DESC, j.id DESC`,
    [days],
  );
  return r.rows.map((x) => ({
    serviceDay: x.service_day,
    job: x.job,
    status: x.status,
    via: x.via,
    startedAt: x.started_at,
    finishedAt: x.finished_at,
    error: x.error,
  }));
}

export async function printStatus(
  ctx: AppContext,
  opts: { days: number; json?: boolean },
  out: (line: string) => void,
): Promise<void> {
  const runs = await lastRunsByDay(ctx, opts.days);
  if (opts.json) {
    out(JSON.stringify({ database: ctx.db.kind, lastRuns: runs }));
    return;
  }
  out(
    `database: ${ctx.db.kind === 'pglite' ? `embedded (PGlite, ${ctx.config.DATA_DIR})` : 'postgres'}`,
  );
  out(
    `queue: ${ctx.config.REDIS_URL ? `redis (prefix ${ctx.config.QUEUE_PREFIX})` : 'in-process (no REDIS_URL)'}`,
  );
  if (runs.length === 0) {
    out('no job has run yet');
    return;
  }
  out('last runs:');
  for (const r of runs) {
    const took = r.finishedAt ? ` in ${r.finishedAt.getTime() - r.startedAt.getTime()} ms` : '';
    out(
      `  ${ymdOfServiceDay(r.serviceDay)}  ${r.job.padEnd(20)} ${r.status.padEnd(9)} ${r.startedAt.toISOString()}${took} (${r.via})${r.error ? `: ${r.error}` : ''}`,
    );
  }
}
