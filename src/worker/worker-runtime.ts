import { inboxHasFiles } from '../domain/ingest/ingest-inbox.js';
import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import { inferCirculationsJob, ingestObservationsJob } from '../../jobs/index.js';
import { runDayInProcess, runInProcess, runNightlyInProcess } from './in-process-runner.js';
import { StaleRebuilds } from './stale-rebuilds.js';
import { CronTicker } from './cron-ticker.js';
import { IntervalTask } from '../shared/time/interval-task.js';
import { JobQueues } from './job-queues.js';
import { jobRetentionFromConfig } from '../shared/queues/job-options.js';
import { JobWorkers, type WorkerTuning } from './job-workers.js';
import {
  assertCronSettings,
  upsertCirculationScheduler,
  upsertNightlyScheduler,
} from './nightly-schedule.js';
import { closeRedisConnection, createRedisConnection } from '../shared/queues/redis-connection.js';
import type { StaleRebuildTiming } from '../domain/records/stale-days.js';
import { withWebhooks } from './webhook-runtime.js';
import { SourcePulls } from './source-pulls.js';

/** How often the inbox (INBOX_DIR) is swept for new observation files. */
export const DEFAULT_INBOX_SWEEP_MS = 30_000;

export interface WorkerRuntimeOptions {
  /**
   * Worker connection to use instead of opening one to config.REDIS_URL (the caller closes
   * it). Ignored without REDIS_URL.
   */
  connection?: Redis;
  /** Lock and stalled-check settings; concurrency defaults to config.WORKER_CONCURRENCY. */
  tuning?: Partial<WorkerTuning>;
  /** Default DEFAULT_INBOX_SWEEP_MS. */
  inboxSweepMs?: number;
  /** Told after each inbox sweep whether it found files (and so ran or enqueued the job). */
  onInboxSweep?: (foundFiles: boolean) => void;
  /** How often stale days are looked for (ms). Default stalePollMs(STALE_REBUILD_DELAY_MS). */
  stalePollMs?: number;
  /** Run the webhook dispatcher and deliveries (webhook-runtime.ts). Default true. */
  webhooks?: boolean;
  /** How often the sources table is re-read (BullMQ mode). Default DEFAULT_SOURCE_SYNC_MS. */
  sourceSyncMs?: number;
}

/** One sweep: the ingest job only when the inbox holds a file (see inboxHasFiles). */
function inboxSweep(
  inbox: string,
  options: WorkerRuntimeOptions,
  ingest: () => Promise<unknown>,
): () => Promise<void> {
  return async () => {
    const found = await inboxHasFiles(inbox);
    if (found) await ingest();
    options.onInboxSweep?.(found);
  };
}

export interface WorkerRuntime {
  /** bullmq: workers on Redis queues; in-process: a cron ticker running jobs in this process. */
  readonly mode: 'bullmq' | 'in-process';
  /** BullMQ mode: the queues (to enqueue on, in tests and tools). */
  readonly queues?: JobQueues;
  readonly workers?: JobWorkers;
  /** BullMQ mode: the sources' queues, workers and schedulers (source-pulls.ts). */
  readonly sources?: SourcePulls;
  /** Rebuilds and re-exports stale days once they are due (stale-rebuilds.ts). */
  readonly staleRebuilds: StaleRebuilds;
  /**
   * Stops taking work and resolves once running jobs have finished and the Redis connections
   * are closed. The database (ctx.db) is the caller's to close.
   */
  close(): Promise<void>;
}

/**
 * What `npm run worker` runs. With REDIS_URL: one BullMQ worker per job, the nightly and the
 * circulation Job Schedulers upserted, a queue and scheduler per source (source-pulls.ts), and
 * inbox sweeps enqueued. Without: the nightly flow, the
 * daily circulation inference and inbox sweeps run in this process, one job at a time, through
 * the same job code (in-process runner).
 */
export async function startWorkerRuntime(
  ctx: AppContext,
  options: WorkerRuntimeOptions = {},
): Promise<WorkerRuntime> {
  assertCronSettings(ctx.config);
  const runtime = ctx.config.REDIS_URL
    ? await startBullmqRuntime(ctx, ctx.config.REDIS_URL, options)
    : startInProcessRuntime(ctx, options);
  return options.webhooks === false ? runtime : withWebhooks(ctx, runtime, options.connection);
}

async function startBullmqRuntime(
  ctx: AppContext,
  redisUrl: string,
  options: WorkerRuntimeOptions,
): Promise<WorkerRuntime> {
  const { config, logger } = ctx;
  const connection = options.connection ?? createRedisConnection(redisUrl, 'worker');
  const ownsConnection = options.connection === undefined;
  const queues = new JobQueues({
    connection,
    prefix: config.QUEUE_PREFIX,
    retention: jobRetentionFromConfig(config),
    onError: (err) => logger.warn({ err: err.message }, 'redis connection error'),
  });
  let workers: JobWorkers | undefined;
  let sweeper: IntervalTask | undefined;
  const sources = new SourcePulls(ctx, {
    connection,
    prefix: config.QUEUE_PREFIX,
    retention: jobRetentionFromConfig(config),
    lockDuration: config.JOB_LOCK_MS,
    stalledInterval: config.JOB_STALLED_INTERVAL_MS,
    ...(options.sourceSyncMs !== undefined ? { syncMs: options.sourceSyncMs } : {}),
  });
  // A due stale day gets its day flow (build, then export), deduplicated under build-<day>.
  const staleRebuilds = new StaleRebuilds({
    db: ctx.db,
    timing: staleTiming(config),
    rebuildDay: (serviceDay) => queues.enqueueDayFlow(serviceDay),
    logger,
    ...(options.stalePollMs !== undefined ? { pollMs: options.stalePollMs } : {}),
  });
  const close = async () => {
    await staleRebuilds.stop();
    await sweeper?.stop();
    await sources.close();
    await workers?.close();
    await queues.close();
    if (ownsConnection) await closeRedisConnection(connection);
  };
  try {
    const scheduler = await upsertNightlyScheduler(queues, config.NIGHTLY_CRON);
    logger.info(
      { ...scheduler, nextDueAt: new Date(scheduler.nextDueAt).toISOString() },
      'nightly scheduler upserted',
    );
    const circulations = await upsertCirculationScheduler(queues, config.CIRCULATION_CRON);
    logger.info(
      { ...circulations, nextDueAt: new Date(circulations.nextDueAt).toISOString() },
      'circulation scheduler upserted',
    );
    workers = new JobWorkers(ctx, {
      connection,
      queues,
      tuning: {
        concurrency: config.WORKER_CONCURRENCY,
        // A killed worker's job is back in the queue within lock + 2 stalled intervals (20 s by
        // default). A job wrongly taken for stalled (a worker stuck longer than the lock) may
        // run twice at once: a day's build then waits on the day's advisory lock, which the
        // session holds for its transaction and a dead session releases at once.
        lockDuration: config.JOB_LOCK_MS,
        stalledInterval: config.JOB_STALLED_INTERVAL_MS,
        ...options.tuning,
      },
    });
    await workers.waitUntilReady();
    // Each source: a queue, its limiter and its scheduler, kept in step with the table.
    await sources.start();
    const inbox = config.INBOX_DIR;
    if (inbox) {
      // The inbox job is deduplicated under one id (inbox-<dir>), so sweeps from several
      // workers never overlap: one is pending at a time.
      sweeper = new IntervalTask(
        'inbox sweep',
        options.inboxSweepMs ?? DEFAULT_INBOX_SWEEP_MS,
        inboxSweep(inbox, options, () => queues.enqueue(ingestObservationsJob, { inbox })),
        logger,
      );
      sweeper.start();
    }
    staleRebuilds.start();
  } catch (err) {
    await close();
    throw err;
  }
  logger.info(
    {
      prefix: config.QUEUE_PREFIX,
      concurrency: config.WORKER_CONCURRENCY,
      lockMs: config.JOB_LOCK_MS,
      stalledIntervalMs: config.JOB_STALLED_INTERVAL_MS,
    },
    'workers started (BullMQ)',
  );
  return { mode: 'bullmq', queues, workers, sources, staleRebuilds, close };
}

function startInProcessRuntime(ctx: AppContext, options: WorkerRuntimeOptions): WorkerRuntime {
  const { config, logger } = ctx;
  // One job at a time: the embedded database has one session, and a build must not interleave
  // with the ingestion feeding it.
  let tail: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const result = tail.then(task, task);
    // The chain only orders the tasks; each task's failure reaches its own caller via `result`.
    tail = result.catch(() => {});
    return result;
  };
  const ticker = new CronTicker({
    pattern: config.NIGHTLY_CRON,
    logger,
    onTick: async (dueAt) => {
      const day = await serially(() => runNightlyInProcess(ctx, dueAt));
      logger.info(
        { serviceDay: day.serviceDay, records: day.build.records, rows: day.export.rowCount },
        'nightly: day built and exported (in-process)',
      );
    },
  });
  ticker.start();
  const circulationTicker = new CronTicker({
    pattern: config.CIRCULATION_CRON,
    logger,
    onTick: async (dueAt) => {
      const r = await serially(() => runInProcess(ctx, inferCirculationsJob, {}, dueAt));
      logger.info(
        { runId: r.runId, windowEnd: r.windowEnd, routes: r.routes, linksKept: r.linksKept },
        'circulations inferred (in-process)',
      );
    },
  });
  circulationTicker.start();
  const inbox = config.INBOX_DIR;
  const sweeper = inbox
    ? new IntervalTask(
        'inbox sweep',
        options.inboxSweepMs ?? DEFAULT_INBOX_SWEEP_MS,
        inboxSweep(inbox, options, () =>
          serially(() => runInProcess(ctx, ingestObservationsJob, { inbox })),
        ),
        logger,
      )
    : undefined;
  sweeper?.start();
  // A due stale day is built and exported here, in turn with the other jobs (a poll, its look
  // and its rebuilds, is one turn).
  const staleRebuilds = new StaleRebuilds({
    db: ctx.db,
    timing: staleTiming(config),
    rebuildDay: (serviceDay) => runDayInProcess(ctx, serviceDay),
    exclusive: serially,
    logger,
    ...(options.stalePollMs !== undefined ? { pollMs: options.stalePollMs } : {}),
  });
  staleRebuilds.start();
  logger.info(
    {
      nightlyCron: config.NIGHTLY_CRON,
      nextDueAt: new Date(ticker.nextDueAt!).toISOString(),
      circulationCron: config.CIRCULATION_CRON,
      nextCirculationsAt: new Date(circulationTicker.nextDueAt!).toISOString(),
    },
    'no REDIS_URL: jobs run in this process',
  );
  return {
    mode: 'in-process',
    staleRebuilds,
    close: async () => {
      await Promise.all([
        ticker.stop(),
        circulationTicker.stop(),
        sweeper?.stop(),
        staleRebuilds.stop(),
      ]);
      await tail;
    },
  };
}

function staleTiming(config: AppContext['config']): StaleRebuildTiming {
  return { delayMs: config.STALE_REBUILD_DELAY_MS, maxWaitMs: config.STALE_REBUILD_MAX_WAIT_MS };
}
