import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import { allJobs, nightlyJob, type JobRunInfo } from '../../jobs/index.js';
import { dueAtOf } from './due-at.js';
import { executeJob, InvalidJobPayloadError } from './execute-job.js';
import type { AnyJobDefinition, JobQueues } from './job-queues.js';

export interface WorkerTuning {
  /** Jobs one worker (one queue) runs at once. Default config.WORKER_CONCURRENCY. */
  concurrency: number;
  /**
   * How long a job's lock lasts without renewal (ms). A running job renews it every half of
   * this; a worker that dies stops renewing, and once the lock has lapsed another worker's
   * stalled check puts the job back in the queue. Default BullMQ's 30 000 (the runtime passes
   * config.JOB_LOCK_MS, 10 000).
   */
  lockDuration?: number;
  /**
   * How often this worker looks for stalled jobs (ms). Default BullMQ's 30 000 (the runtime
   * passes config.JOB_STALLED_INTERVAL_MS, 5 000).
   */
  stalledInterval?: number;
  /** Times a job may stall and be restarted before it fails. Default 1. */
  maxStalledCount?: number;
}

export interface JobWorkersOptions {
  /** A worker connection (maxRetriesPerRequest: null); BullMQ duplicates it for blocking reads. */
  connection: Redis;
  /** The queues the workers serve (prefix) and add follow-up jobs to (the nightly's day flow). */
  queues: JobQueues;
  tuning: WorkerTuning;
  /** The jobs to serve, one worker each. Default: every job in jobs/. */
  definitions?: readonly AnyJobDefinition[];
}

/**
 * One BullMQ Worker per job definition. Each processor runs the definition through
 * executeJob (payload check, job_runs row), exactly as the in-process runner does. When a
 * nightly tick completes, its worker adds the nightly flow (JobQueues.enqueueNightlyFlow) for
 * the service day the tick computed.
 */
export class JobWorkers {
  readonly workers: Worker[];
  private closing: Promise<void> | undefined;
  private inProgress = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: JobWorkersOptions,
  ) {
    const name = `${hostname()}-${process.pid}`;
    this.workers = (options.definitions ?? allJobs).map((def) => {
      const worker = new Worker(def.name, (job: Job) => this.process(def, job), {
        connection: options.connection,
        prefix: options.queues.prefix,
        name,
        concurrency: options.tuning.concurrency,
        ...(options.tuning.lockDuration !== undefined && {
          lockDuration: options.tuning.lockDuration,
        }),
        ...(options.tuning.stalledInterval !== undefined && {
          stalledInterval: options.tuning.stalledInterval,
        }),
        ...(options.tuning.maxStalledCount !== undefined && {
          maxStalledCount: options.tuning.maxStalledCount,
        }),
      });
      this.observe(worker);
      return worker;
    });
  }

  async waitUntilReady(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.waitUntilReady()));
  }

  /** Jobs this process is running right now, over all queues. */
  get running(): number {
    return this.inProgress;
  }

  /** Stops taking jobs and resolves once the running ones have finished. */
  close(): Promise<void> {
    this.closing ??= Promise.allSettled(this.workers.map((w) => w.close())).then(() => {});
    return this.closing;
  }

  private async process(def: AnyJobDefinition, job: Job): Promise<unknown> {
    const run: JobRunInfo = {
      jobId: job.id!,
      // attemptsStarted counts restarts after a stall too, which attemptsMade does not.
      attempt: Math.max(job.attemptsMade + 1, job.attemptsStarted),
      dueAt: dueAtOf(job),
      progress: (value) => job.updateProgress(value),
    };
    this.inProgress++;
    try {
      const result = await executeJob(this.ctx, def, job.data, run, 'bullmq');
      if (def.name === nightlyJob.name) {
        const { serviceDay } = result as { serviceDay: number };
        const added = await this.options.queues.enqueueNightlyFlow(serviceDay);
        this.ctx.logger.info({ serviceDay, ...added }, 'nightly: day flow enqueued');
      }
      return result;
    } catch (err) {
      // A payload that fails its schema fails the same way on every attempt: no retries.
      if (err instanceof InvalidJobPayloadError) throw new UnrecoverableError(err.message);
      throw err;
    } finally {
      this.inProgress--;
    }
  }

  private observe(worker: Worker): void {
    const log = this.ctx.logger.child({ queue: worker.name });
    worker.on('active', (job) => log.debug({ jobId: job.id, data: job.data }, 'job started'));
    worker.on('completed', (job) =>
      log.info(
        { jobId: job.id, ms: (job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now()) },
        'job completed',
      ),
    );
    worker.on('failed', (job, err) => {
      const attempts = job?.opts.attempts ?? 1;
      const final = !job || job.attemptsMade >= attempts;
      log[final ? 'error' : 'warn'](
        { jobId: job?.id, attemptsMade: job?.attemptsMade, attempts, err: err.message },
        final ? 'job failed for good' : 'job failed; will retry',
      );
    });
    worker.on('stalled', (jobId) =>
      log.warn({ jobId }, 'job stalled (its worker was lost); put back in the queue'),
    );
    worker.on('error', (err) => log.error({ err: err.message }, 'worker error'));
  }
}
