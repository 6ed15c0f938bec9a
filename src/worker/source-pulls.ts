import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import { defaultJobOptions, type JobRetentionOptions } from '../shared/queues/job-options.js';
import { IntervalTask } from '../shared/time/interval-task.js';
import { SERVICE_TIME_ZONE } from '../shared/time/service-day.js';
import { EmutrackError, isEmutrackError } from '../shared/errors/emutrack-error.js';
import { listSources, type Source } from '../domain/sources/source-store.js';
import type { PullResult } from '../domain/sources/pull-source.js';
import { pullSourceJob } from '../../jobs/index.js';
import { dueAtOf } from './due-at.js';
import { executeJob, InvalidJobPayloadError, parseJobPayload } from './execute-job.js';

/** How often the worker re-reads the sources table (added, removed, changed sources). */
export const DEFAULT_SOURCE_SYNC_MS = 60_000;
/** Share of each retry's delay drawn at random, so that retries of many sources spread out. */
export const SOURCE_RETRY_JITTER = 0.5;

/**
 * The queue of one source. BullMQ's limiter and global concurrency hold for a whole queue (the
 * open-source BullMQ has no group keys), so each source has a queue of its own: its rate never
 * slows another source, and a failing source never holds the others' jobs.
 */
export function sourceQueueName(source: string): string {
  return `${pullSourceJob.name}-${source}`;
}

/** The id of a source's Job Scheduler, in the source's queue. */
export function sourceSchedulerId(source: string): string {
  return `${pullSourceJob.name}-${source}`;
}

/** One pull started by the limiter at most every this many ms: 1 / rate (rate > 0, a second). */
export function sourcePullSpacingMs(rate: number): number {
  return Math.max(1, Math.ceil(1000 / rate));
}

/** Attempts and exponential backoff with jitter of a scheduled pull, retention as other jobs. */
export function sourceJobOptions(retention: JobRetentionOptions): JobsOptions {
  const base = defaultJobOptions(retention);
  return { ...base, backoff: { ...base.backoff, jitter: SOURCE_RETRY_JITTER } };
}

/**
 * Adds one pull to a source's queue under a job id of its own (`pull-source-<name>-<token>`):
 * BullMQ numbers jobs per queue, and job_runs tells runs apart by job name and id.
 */
export async function addSourcePull(
  queue: Queue,
  payload: { source: string; from?: number; to?: number },
  opts: JobsOptions,
): Promise<Job> {
  const data = parseJobPayload(pullSourceJob, payload);
  const jobId = `${sourceQueueName(data.source)}-${randomBytes(9).toString('base64url')}`;
  return queue.add(pullSourceJob.name, data, { ...opts, jobId });
}

/** The id a run is recorded under in job_runs: one no other source's queue can give. */
function runJobId(source: string, jobId: string): string {
  const name = sourceQueueName(source);
  return jobId.startsWith(`${name}-`) || jobId.startsWith(`repeat:${sourceSchedulerId(source)}:`)
    ? jobId
    : `${name}-${jobId}`;
}

/** Names of the sources this prefix has had a queue for (to drop the scheduler of a removed one). */
function knownSourcesKey(prefix: string): string {
  return `${prefix}:${pullSourceJob.name}:known`;
}

export interface SourcePullsOptions {
  connection: Redis;
  prefix: string;
  retention: JobRetentionOptions;
  /** Default DEFAULT_SOURCE_SYNC_MS. */
  syncMs?: number;
  /** Lock and stalled-check settings of the workers, as the other workers'. */
  lockDuration?: number;
  stalledInterval?: number;
}

interface SourceLane {
  queue: Queue;
  worker: Worker;
  rate: number;
  schedule: string | null;
}

/**
 * The sources' half of the worker: for each row of the sources table, a queue of its own with
 * one pull at a time over all workers (BullMQ global concurrency 1), BullMQ's limiter at its
 * rate (one pull started per 1 / rate s), and, when it has a schedule, a Job Scheduler at that
 * cron pattern (Asia/Shanghai). The table is read on start and every `syncMs`: a new source
 * gets its queue and scheduler, a changed schedule or rate is applied, a removed source loses its
 * scheduler (also when it was removed while no worker ran: the names are kept in Redis).
 *
 * Within a pull the source's client keeps its rate between requests; after a pull the queue is
 * held for 1 / rate (Queue.rateLimit), so the next pull's first request does not follow the last
 * one at once. A failed pull is retried with exponential backoff and jitter; each attempt's
 * error is stored on the source (last_error) by the pull itself.
 */
export class SourcePulls {
  private readonly lanes = new Map<string, SourceLane>();
  private readonly sync: IntervalTask;
  private readonly jobOptions: JobsOptions;
  private readonly workerName = `${hostname()}-${process.pid}`;
  private closing: Promise<void> | undefined;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    private readonly options: SourcePullsOptions,
  ) {
    this.jobOptions = sourceJobOptions(options.retention);
    this.sync = new IntervalTask(
      'sources sync',
      options.syncMs ?? DEFAULT_SOURCE_SYNC_MS,
      () => this.syncNow(),
      ctx.logger,
    );
  }

  /** Reads the table once (errors thrown), then keeps reading it every syncMs. */
  async start(): Promise<void> {
    await this.syncNow();
    this.sync.start();
  }

  /** The queue of a source this worker serves (tests, tools). */
  queue(source: string): Queue | undefined {
    return this.lanes.get(source)?.queue;
  }

  /**
   * Applies the sources table to the queues, workers and schedulers. One sync at a time: two at
   * once could both open a lane for a new source.
   */
  syncNow(): Promise<void> {
    const run = this.syncing.then(() => this.syncOnce());
    this.syncing = run.catch(() => {});
    return run;
  }

  private async syncOnce(): Promise<void> {
    if (this.closing) return;
    const sources = await listSources(this.ctx.db);
    const names = new Set(sources.map((s) => s.name));
    for (const s of sources) await this.apply(s);
    const key = knownSourcesKey(this.options.prefix);
    if (sources.length > 0) await this.options.connection.sadd(key, ...names);
    const known = await this.options.connection.smembers(key);
    for (const name of known) {
      if (names.has(name)) continue;
      await this.drop(name);
      await this.options.connection.srem(key, name);
    }
  }

  private async apply(s: Source): Promise<void> {
    let lane = this.lanes.get(s.name);
    if (lane && lane.rate !== s.rate) {
      // The limiter is a worker's setting: a new rate takes a new worker.
      await lane.worker.close();
      lane.worker = this.openWorker(s.name, s.rate);
      lane.rate = s.rate;
    }
    if (!lane) {
      const queue = new Queue(sourceQueueName(s.name), {
        connection: this.options.connection,
        prefix: this.options.prefix,
        defaultJobOptions: this.jobOptions,
      });
      queue.on('error', (err) => this.ctx.logger.warn({ err: err.message }, 'source queue error'));
      await queue.setGlobalConcurrency(1);
      lane = { queue, worker: this.openWorker(s.name, s.rate), rate: s.rate, schedule: null };
      this.lanes.set(s.name, lane);
      await this.upsertSchedule(lane, s);
    } else if (lane.schedule !== s.schedule) {
      await this.upsertSchedule(lane, s);
    }
  }

  private async upsertSchedule(lane: SourceLane, s: Source): Promise<void> {
    const id = sourceSchedulerId(s.name);
    if (s.schedule === null) {
      await lane.queue.removeJobScheduler(id);
    } else {
      const job = await lane.queue.upsertJobScheduler(
        id,
        { pattern: s.schedule, tz: SERVICE_TIME_ZONE },
        { name: pullSourceJob.name, data: { source: s.name }, opts: this.jobOptions },
      );
      this.ctx.logger.info(
        { source: s.name, pattern: s.schedule, nextDueAt: new Date(dueAtOf(job)).toISOString() },
        'source scheduler upserted',
      );
    }
    lane.schedule = s.schedule;
  }

  /** A source no longer in the table: its scheduler goes; its queue's finished jobs stay. */
  private async drop(name: string): Promise<void> {
    const lane = this.lanes.get(name);
    const queue =
      lane?.queue ??
      new Queue(sourceQueueName(name), {
        connection: this.options.connection,
        prefix: this.options.prefix,
      });
    try {
      await queue.removeJobScheduler(sourceSchedulerId(name));
    } finally {
      this.lanes.delete(name);
      await lane?.worker.close();
      await queue.close();
    }
    this.ctx.logger.info({ source: name }, 'source removed: its scheduler is gone');
  }

  private openWorker(name: string, rate: number): Worker {
    const worker = new Worker(sourceQueueName(name), (job: Job) => this.process(name, job), {
      connection: this.options.connection,
      prefix: this.options.prefix,
      name: this.workerName,
      concurrency: 1,
      limiter: { max: 1, duration: sourcePullSpacingMs(rate) },
      ...(this.options.lockDuration !== undefined && { lockDuration: this.options.lockDuration }),
      ...(this.options.stalledInterval !== undefined && {
        stalledInterval: this.options.stalledInterval,
      }),
    });
    const log = this.ctx.logger.child({ source: name });
    worker.on('failed', (job, err) => {
      const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1);
      log[final ? 'error' : 'warn'](
        { jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message },
        final ? 'source pull failed for good' : 'source pull failed; will retry',
      );
    });
    worker.on('error', (err) => log.error({ err: err.message }, 'source worker error'));
    return worker;
  }

  private async process(name: string, job: Job): Promise<PullResult> {
    const run = {
      jobId: runJobId(name, job.id!),
      attempt: Math.max(job.attemptsMade + 1, job.attemptsStarted),
      dueAt: dueAtOf(job),
      progress: (value: number | object) => job.updateProgress(value),
    };
    try {
      return await executeJob(this.ctx, pullSourceJob, job.data, run, 'bullmq');
    } catch (err) {
      if (err instanceof InvalidJobPayloadError) throw new UnrecoverableError(err.message);
      if (isEmutrackError(err, 'source_not_found')) {
        // Removed since its job was queued: no retry, and its scheduler goes.
        await this.lanes.get(name)?.queue.removeJobScheduler(sourceSchedulerId(name));
        throw new UnrecoverableError(`source ${name}: ${err.message}`);
      }
      throw err;
    } finally {
      // The next pull's first request comes no sooner than 1 / rate after this pull's last.
      const lane = this.lanes.get(name);
      if (lane) await lane.queue.rateLimit(sourcePullSpacingMs(lane.rate)).catch(() => {});
    }
  }

  /** Stops reading the table and taking pulls; resolves once running pulls have finished. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.sync.stop();
      await this.syncing;
      const lanes = [...this.lanes.values()];
      await Promise.allSettled(lanes.map((l) => l.worker.close()));
      await Promise.allSettled(lanes.map((l) => l.queue.close()));
      this.lanes.clear();
    })();
    return this.closing;
  }
}

/**
 * A queued pull the worker did not finish well (or not in time): one line naming the source; the
 * CLI answers it as it answers a pull failed in its own process.
 */
export class QueuedPullError extends EmutrackError {
  constructor(message: string) {
    super('source_queued_pull_failed', message);
  }
}

/**
 * Adds one pull of `source` to its queue (one attempt: whoever asked is waiting for it) and
 * waits for a worker to finish it, at most `timeoutMs`. Resolves with the pull's result, or
 * rejects with a QueuedPullError whose message names the source.
 */
export async function pullThroughQueue(
  connection: Redis,
  prefix: string,
  retention: JobRetentionOptions,
  payload: { source: string; from?: number; to?: number },
  timeoutMs: number,
): Promise<PullResult> {
  const data = parseJobPayload(pullSourceJob, payload);
  const name = sourceQueueName(data.source);
  const queue = new Queue(name, { connection, prefix });
  // QueueEvents reads blocking: a connection of its own, whose commands wait.
  const eventsConnection = connection.duplicate({ maxRetriesPerRequest: null });
  const events = new QueueEvents(name, { connection: eventsConnection, prefix });
  queue.on('error', () => {});
  events.on('error', () => {});
  try {
    await events.waitUntilReady();
    const job = await addSourcePull(queue, data, { ...sourceJobOptions(retention), attempts: 1 });
    try {
      return (await job.waitUntilFinished(events, timeoutMs)) as PullResult;
    } catch (err) {
      const message = (err as Error).message;
      if (/timed out before finishing/.test(message))
        throw new QueuedPullError(
          `source ${data.source}: job ${job.id} not finished after ${timeoutMs / 1000} s (is the worker running?); it stays queued`,
        );
      throw new QueuedPullError(
        message.startsWith(`source ${data.source}:`)
          ? message
          : `source ${data.source}: ${message}`,
      );
    }
  } finally {
    await events.close();
    await queue.close();
    eventsConnection.disconnect();
  }
}
