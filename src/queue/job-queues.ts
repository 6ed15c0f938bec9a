import { FlowProducer, Queue, type FlowJob, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import {
  allJobs,
  buildDailyRecordsJob,
  refreshReferenceModelsJob,
  renderDailyExportJob,
  type JobDefinition,
} from '../../jobs/index.js';
import { parseJobPayload } from './execute-job.js';
import { nightlyPlan } from './nightly-plan.js';
import { defaultJobOptions, type JobRetentionOptions } from './job-options.js';
import { closeRedisConnection } from './redis-connection.js';
import { EmutrackError } from '../errors/emutrack-error.js';

/** Any job definition, whatever its payload and result (for lists of them). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobDefinition = JobDefinition<z.ZodType, any>;

export interface JobQueuesOptions {
  /** Redis connection the queues share. Not closed by close() unless `ownsConnection`. */
  connection: Redis;
  /** Prefix of every BullMQ key. Default "emutrack". */
  prefix?: string;
  /** Attempts, backoff and retention of finished jobs. */
  retention: JobRetentionOptions;
  /** The jobs that get a queue (queue name = job name). Default: every job in jobs/. */
  definitions?: readonly AnyJobDefinition[];
  /** Close the connection in close(). Default false. */
  ownsConnection?: boolean;
  /**
   * Told of connection errors (Redis down, say; commands wait or fail on their own). Default:
   * ignore them. Without a listener an EventEmitter 'error' would crash the process.
   */
  onError?: (err: Error) => void;
}

/**
 * - `added`: a new job was queued.
 * - `already-pending`: a job with the same id was waiting, delayed or running; it is the one
 *   that will do the work, so nothing was added.
 */
export type EnqueueOutcome = 'added' | 'already-pending';

export interface EnqueueResult {
  jobId: string;
  outcome: EnqueueOutcome;
}

/** A job name no queue was opened for. */
export class UnknownQueueError extends EmutrackError {
  constructor(name: string) {
    super('unknown_queue', `no queue for job "${name}"`);
  }
}

/**
 * One BullMQ queue per job definition (queue name = job name) and a FlowProducer, with the
 * enqueue rules of the project:
 *
 * - payloads are validated by the job's zod schema before anything reaches Redis;
 * - a job whose definition gives an id (build-<day>, export-<day>) exists once while pending:
 *   enqueueing it again adds nothing. Once finished (completed or failed) it is history (kept
 *   in job_runs), and enqueueing the same id again replaces it, so the day runs again.
 */
export class JobQueues {
  readonly prefix: string;
  private readonly connection: Redis;
  private readonly ownsConnection: boolean;
  private readonly byName = new Map<string, Queue>();
  private readonly jobOptions: ReturnType<typeof defaultJobOptions>;
  private readonly flows: FlowProducer;
  private closing: Promise<void> | undefined;
  private readonly onError: (err: Error) => void;

  constructor(options: JobQueuesOptions) {
    this.prefix = options.prefix ?? 'emutrack';
    this.connection = options.connection;
    this.ownsConnection = options.ownsConnection ?? false;
    this.jobOptions = defaultJobOptions(options.retention);
    const onError = options.onError ?? (() => {});
    this.onError = onError;
    for (const def of options.definitions ?? allJobs) {
      const queue = new Queue(def.name, {
        connection: this.connection,
        prefix: this.prefix,
        defaultJobOptions: this.jobOptions,
      });
      queue.on('error', onError);
      this.byName.set(def.name, queue);
    }
    this.flows = new FlowProducer({ connection: this.connection, prefix: this.prefix });
    this.flows.on('error', onError);
  }

  /** Options every job gets (attempts, backoff, retention): for flows and schedulers too. */
  get defaultJobOptions(): ReturnType<typeof defaultJobOptions> {
    return { ...this.jobOptions };
  }

  queue(name: string): Queue {
    const q = this.byName.get(name);
    if (!q) throw new UnknownQueueError(name);
    return q;
  }

  get queues(): Queue[] {
    return [...this.byName.values()];
  }

  /** Validates the payload and adds the job, unless one with the same id is pending. */
  async enqueue<P extends z.ZodType, R>(
    def: JobDefinition<P, R>,
    payload: z.input<P>,
  ): Promise<EnqueueResult> {
    const data = parseJobPayload(def, payload);
    const queue = this.queue(def.name);
    const jobId = def.jobId(data);
    if (jobId !== undefined && (await this.isPending(queue, jobId))) {
      return { jobId, outcome: 'already-pending' };
    }
    const job = await queue.add(def.name, data, jobId === undefined ? {} : { jobId });
    return { jobId: job.id!, outcome: 'added' };
  }

  /**
   * The flow of one service day: build-daily-records (build-<day>), then, once it has
   * completed, render-daily-export (export-<day>). When the build fails for good, the export
   * fails with it. A flow of that day still pending is left alone (outcome already-pending);
   * a build of that day already pending on its own becomes the flow's child.
   */
  async enqueueDayFlow(serviceDay: number): Promise<EnqueueResult> {
    const day = await this.pendingDayFlow(serviceDay);
    if (day.outcome === 'already-pending') return day;
    await this.flows.add(day.node);
    return { jobId: day.jobId, outcome: 'added' };
  }

  /**
   * The nightly flow of the service day D that just ended, as nightlyPlan describes it: the day
   * flow of each planned day (D-1 again, then D), and refresh-reference-models for the window
   * ending with D as the parent of both, waiting for them to finish whether they succeed or fail
   * (ignoreDependencyOnFailure). The outcome is the refresh's; a refresh of D still pending is
   * left alone. A day whose flow is already pending on its own runs on its own: the refresh does
   * not wait for it.
   */
  async enqueueNightlyFlow(serviceDay: number): Promise<EnqueueResult> {
    const plan = nightlyPlan(serviceDay);
    const refresh = parseJobPayload(refreshReferenceModelsJob, {
      serviceDay: plan.refreshWindowEnd,
    });
    const refreshId = dayJobId(refreshReferenceModelsJob, refresh);
    if (await this.isPending(this.queue(refreshReferenceModelsJob.name), refreshId)) {
      return { jobId: refreshId, outcome: 'already-pending' };
    }
    const children: FlowJob[] = [];
    for (const day of plan.days) {
      const flow = await this.pendingDayFlow(day);
      if (flow.outcome === 'new') {
        children.push({
          ...flow.node,
          opts: { ...flow.node.opts, ignoreDependencyOnFailure: true },
        });
      }
    }
    await this.flows.add({
      name: refreshReferenceModelsJob.name,
      queueName: refreshReferenceModelsJob.name,
      data: refresh,
      opts: { ...this.jobOptions, jobId: refreshId },
      children,
    });
    return { jobId: refreshId, outcome: 'added' };
  }

  /**
   * The flow tree of one day (export-<day> waiting for build-<day>), unless that day's export
   * is pending already. Finished jobs with those ids are removed so that the ids can be reused.
   */
  private async pendingDayFlow(
    serviceDay: number,
  ): Promise<
    { outcome: 'already-pending'; jobId: string } | { outcome: 'new'; jobId: string; node: FlowJob }
  > {
    const build = parseJobPayload(buildDailyRecordsJob, { serviceDay });
    const exp = parseJobPayload(renderDailyExportJob, { serviceDay });
    const buildId = dayJobId(buildDailyRecordsJob, build);
    const exportId = dayJobId(renderDailyExportJob, exp);
    const exportQueue = this.queue(renderDailyExportJob.name);
    const buildQueue = this.queue(buildDailyRecordsJob.name);
    if (await this.isPending(exportQueue, exportId)) {
      return { outcome: 'already-pending', jobId: exportId };
    }
    // Pending or not, the build goes in as the export's child: a pending lone build of the day
    // becomes that child (BullMQ re-parents a job added again under a parent), and a finished
    // one is removed here so that its id can be added afresh. Only the removal matters here.
    await this.isPending(buildQueue, buildId);
    return {
      outcome: 'new',
      jobId: exportId,
      node: {
        name: renderDailyExportJob.name,
        queueName: renderDailyExportJob.name,
        data: exp,
        opts: { ...this.jobOptions, jobId: exportId },
        children: [
          {
            name: buildDailyRecordsJob.name,
            queueName: buildDailyRecordsJob.name,
            data: build,
            opts: { ...this.jobOptions, jobId: buildId, failParentOnFailure: true },
          },
        ],
      },
    };
  }

  /** The job with this id in this job's queue, if Redis still has it. */
  async getJob(jobName: string, jobId: string): Promise<Job | undefined> {
    return this.queue(jobName).getJob(jobId);
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.queues.map((q) => q.close()), this.flows.close()]);
      if (this.ownsConnection) await closeRedisConnection(this.connection);
    })();
    return this.closing;
  }

  /**
   * True when a job with this id is waiting, delayed, waiting for children or running. A
   * finished one is removed (with its finished children) so that the id can be used again.
   */
  private async isPending(queue: Queue, jobId: string): Promise<boolean> {
    const job = await queue.getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') {
      // Fails only when a concurrent enqueue re-added the id and a worker took it: then the
      // add that follows finds the id taken and adds nothing, which is what we want. Said, all
      // the same, in case it failed for another reason.
      await job
        .remove({ removeChildren: true })
        .catch((err: Error) =>
          this.onError(new Error(`removing finished job ${jobId}: ${err.message}`, { cause: err })),
        );
      return false;
    }
    return state !== 'unknown';
  }
}

function dayJobId<P extends z.ZodType, R>(def: JobDefinition<P, R>, payload: z.infer<P>): string {
  const id = def.jobId(payload);
  if (id === undefined) throw new Error(`${def.name}: a day's job must have a job id`);
  return id;
}
