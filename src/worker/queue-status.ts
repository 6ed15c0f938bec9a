import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import { allJobs } from '../../jobs/index.js';
import { closeRedisConnection, createRedisConnection } from '../shared/queues/redis-connection.js';

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  /** Flow parents waiting for their children (an export waiting for its build). */
  waitingChildren: number;
}

export interface SchedulerStatus {
  queue: string;
  id: string;
  pattern: string | null;
  tz: string | null;
  /** ISO time of the next tick, null when none is planned. */
  next: string | null;
}

/** A job BullMQ has failed for good (all its attempts used), as Redis still keeps it. */
export interface FailedJob {
  queue: string;
  jobId: string;
  /** The last attempt's error. */
  reason: string;
  attemptsMade: number;
  /** ISO time it failed. */
  failedAt: string | null;
}

/** Failed jobs shown per queue, newest first. */
export const FAILED_JOBS_SHOWN = 10;

export type RedisStatus =
  | { configured: false }
  | { configured: true; prefix: string; error: string }
  | {
      configured: true;
      prefix: string;
      queues: { queue: string; counts: QueueCounts }[];
      schedulers: SchedulerStatus[];
      /** Up to FAILED_JOBS_SHOWN per queue, newest first. */
      failed: FailedJob[];
    };

export interface JobRunSummary {
  job: string;
  jobId: string | null;
  serviceDay: number | null;
  status: 'running' | 'completed' | 'failed';
  via: string;
  attempt: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

export interface QueueStatus {
  redis: RedisStatus;
  /** The last run of each (job, service day), for the latest `days` service days run; newest day first. */
  days: JobRunSummary[];
  /** The last run of each job that is about no particular day (nightly ticks, ingestion). */
  undated: JobRunSummary[];
  /**
   * Service days with sightings but no stored export, among the latest `days` days up to the
   * newest day with sightings; oldest first.
   */
  daysMissingExport: number[];
}

export interface QueueStatusOptions {
  /** How many of the latest service days to report. Default 14. */
  days?: number;
}

/**
 * What `emutrack status` prints: BullMQ job counts per queue and the Job Schedulers (when Redis
 * is configured), and from job_runs the last run of each job per service day. Uses `connection`
 * when given, else opens (and closes) one to REDIS_URL. An unreachable Redis is reported in
 * `redis.error`; the database part is still returned.
 */
export async function queueStatus(
  ctx: AppContext,
  connection?: Redis,
  options: QueueStatusOptions = {},
): Promise<QueueStatus> {
  const days = options.days ?? 14;
  const [redis, runs, daysMissingExport] = await Promise.all([
    redisStatus(ctx, connection),
    lastRuns(ctx, days),
    missingExports(ctx, days),
  ]);
  return { redis, ...runs, daysMissingExport };
}

async function redisStatus(ctx: AppContext, given?: Redis): Promise<RedisStatus> {
  const url = ctx.config.REDIS_URL;
  if (!given && !url) return { configured: false };
  const prefix = ctx.config.QUEUE_PREFIX;
  const connection = given ?? createRedisConnection(url!, 'command');
  const queues = allJobs.map(
    (def) => new Queue(def.name, { connection, prefix, skipMetasUpdate: true }),
  );
  // Connection errors surface as the rejected commands below (reported in `error`); without a
  // listener an 'error' event would crash the command.
  for (const q of queues) q.on('error', () => {});
  try {
    const counts = await Promise.all(
      queues.map(async (q) => {
        const c = await q.getJobCounts(
          'waiting',
          'active',
          'delayed',
          'completed',
          'failed',
          'waiting-children',
        );
        return {
          queue: q.name,
          counts: {
            waiting: c.waiting ?? 0,
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            completed: c.completed ?? 0,
            failed: c.failed ?? 0,
            waitingChildren: c['waiting-children'] ?? 0,
          },
        };
      }),
    );
    const schedulers = (
      await Promise.all(
        queues.map(async (q) =>
          (await q.getJobSchedulers()).map((s) => ({
            queue: q.name,
            id: s.key,
            pattern: s.pattern ?? null,
            tz: s.tz ?? null,
            next: s.next ? new Date(s.next).toISOString() : null,
          })),
        ),
      )
    ).flat();
    const failed = (
      await Promise.all(
        queues.map(async (q) =>
          (await q.getFailed(0, FAILED_JOBS_SHOWN - 1)).map((job) => ({
            queue: q.name,
            jobId: job.id ?? '',
            reason: job.failedReason ?? '',
            attemptsMade: job.attemptsMade,
            failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
          })),
        ),
      )
    ).flat();
    return { configured: true, prefix, queues: counts, schedulers, failed };
  } catch (err) {
    return { configured: true, prefix, error: (err as Error).message };
  } finally {
    await Promise.allSettled(queues.map((q) => q.close()));
    if (!given) await closeRedisConnection(connection);
  }
}

interface JobRunRow {
  job: string;
  job_id: string | null;
  service_day: number | null;
  status: JobRunSummary['status'];
  via: string;
  attempt: number;
  started_at: Date | string;
  finished_at: Date | string | null;
  error: string | null;
}

const iso = (v: Date | string | null): string | null =>
  v === null ? null : new Date(v).toISOString();

function summary(r: JobRunRow): JobRunSummary {
  return {
    job: r.job,
    jobId: r.job_id,
    serviceDay: r.service_day,
    status: r.status,
    via: r.via,
    attempt: r.attempt,
    startedAt: iso(r.started_at)!,
    finishedAt: iso(r.finished_at),
    error: r.error,
  };
}

async function lastRuns(
  ctx: AppContext,
  days: number,
): Promise<{ days: JobRunSummary[]; undated: JobRunSummary[] }> {
  const dated = await ctx.db.query<JobRunRow>(
    `SELECT DISTINCT ON (r.service_day, r.job)
            r.job, r.job_id, r.service_day, r.status, r.via, r.attempt, r.started_at, r.finished_at, r.error
       FROM job_runs r
      WHERE r.service_day IN (SELECT DISTINCT service_day FROM job_runs
                               WHERE service_day IS NOT NULL
                               ORDER BY service_day DESC LIMIT $1)
      ORDER BY r.service_day DESC, r.job, r.started_at DESC, r.id DESC`,
    [days],
  );
  const undated = await ctx.db.query<JobRunRow>(
    `SELECT DISTINCT ON (r.job)
            r.job, r.job_id, r.service_day, r.status, r.via, r.attempt, r.started_at, r.finished_at, r.error
       FROM job_runs r
      WHERE r.service_day IS NULL
      ORDER BY r.job, r.started_at DESC, r.id DESC`,
  );
  return { days: dated.rows.map(summary), undated: undated.rows.map(summary) };
}

async function missingExports(ctx: AppContext, days: number): Promise<number[]> {
  const r = await ctx.db.query<{ day: number }>(
    `SELECT d AS day
       FROM (SELECT max(service_day) AS newest FROM observations) n,
            generate_series(n.newest - $1 + 1, n.newest) AS d
      WHERE EXISTS (SELECT 1 FROM observations o WHERE o.service_day = d)
        AND NOT EXISTS (SELECT 1 FROM daily_exports x WHERE x.service_day = d)
      ORDER BY d`,
    [days],
  );
  return r.rows.map((row) => row.day);
}
