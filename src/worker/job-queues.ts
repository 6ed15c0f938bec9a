import { randomBytes } from 'node:crypto';
import { FlowProducer, Queue, type FlowJob, type Job, type JobsOptions } from 'bullmq';
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
import { defaultJobOptions, type JobRetentionOptions } from '../shared/queues/job-options.js';
import { closeRedisConnection } from '../shared/queues/redis-connection.js';
import { openQueues } from '../shared/queues/open-queues.js';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

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
 * - `already-pending`: BullMQ found a job of the same deduplication id waiting, delayed or
 *   running; it is the one that will do the work, so nothing was added.
 */
export type EnqueueOutcome = 'added' | 'already-pending';

export interface EnqueueResult {
  /** The BullMQ job id: the new job's, or the pending one's. */
  jobId: string;
  outcome: EnqueueOutcome;
}

/** A day flow: `jobId` is the export's, `buildJobId` the build it waits for. */
export interface DayFlowResult extends EnqueueResult {
  buildJobId: string;
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
 * - a job whose definition gives an id (build-<day>, export-<day>, ...) is added with BullMQ's
 *   deduplication under that id, and a job id of its own (`<id>-<token>`): while one is
 *   waiting, delayed or running, BullMQ adds nothing and answers that job's id. BullMQ
 *   releases the id when the job finishes (completed, or failed for good), so a finished day
 *   runs again when enqueued again; its finished job stays in Redis as history beside the new
 *   one (the run history proper is job_runs).
 *
 * BullMQ refuses deduplication on flow nodes (a node with children: flow-producer.js
 * validateFlowJobs; a node with a parent: Job.validateOptions, "Deduplication and parent
 * options cannot be used together"). The flows therefore deduplicate through their builds:
 * each build is added alone with deduplication, and the flow's nodes above it get job ids made
 * from the build's, so that adding the same flow again is a duplicate BullMQ ignores (a job id
 * that exists is never added twice) and a pending lone build becomes the flow's child (BullMQ
 * gives an existing job without a parent the new flow's parent).
 */
export class JobQueues {
  readonly prefix: string;
  private readonly connection: Redis;
  private readonly ownsConnection: boolean;
  private readonly byName = new Map<string, Queue>();
  private readonly jobOptions: ReturnType<typeof defaultJobOptions>;
  private readonly flows: FlowProducer;
  private closing: Promise<void> | undefined;

  constructor(options: JobQueuesOptions) {
    this.prefix = options.prefix ?? 'emutrack';
    this.connection = options.connection;
    this.ownsConnection = options.ownsConnection ?? false;
    this.jobOptions = defaultJobOptions(options.retention);
    const onError = options.onError ?? (() => {});
    const names = (options.definitions ?? allJobs).map((def) => def.name);
    const queues = openQueues(names, {
      connection: this.connection,
      prefix: this.prefix,
      jobOptions: this.jobOptions,
      onError,
    });
    for (const queue of queues) this.byName.set(queue.name, queue);
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

  /**
   * Validates the payload and adds the job, unless BullMQ finds one of the same id pending
   * (deduplication): then the pending job's id comes back, with outcome already-pending.
   */
  async enqueue<P extends z.ZodType, R>(
    def: JobDefinition<P, R>,
    payload: z.input<P>,
  ): Promise<EnqueueResult> {
    const data = parseJobPayload(def, payload);
    const id = def.jobId(data);
    if (id === undefined) {
      const job = await this.queue(def.name).add(def.name, data);
      return { jobId: job.id!, outcome: 'added' };
    }
    return this.addDeduplicated(def.name, data, id, LONE_JOB_OPTIONS[def.name] ?? {});
  }

  /**
   * The flow of one service day: build-daily-records, then, once it has completed,
   * render-daily-export. When the build fails for good, the export fails with it.
   *
   * The build is added alone with deduplication (build-<day>), so a build of the day already
   * pending (alone or in a flow) is the one the export waits for; the export's job id is made
   * from the build's (export-<day>-<token>), so a day flow still pending is not added twice:
   * outcome already-pending, with the pending export's id.
   *
   * Between the two adds the build may finish. Completed, BullMQ counts it as the export's
   * processed child and the export runs; failed for good (its last attempt ending in those
   * milliseconds), BullMQ attaches it as a pending child (updateExistingJobsParent.lua looks
   * only at the completed set) and the export stays waiting for children: `emutrack status`
   * counts it, the dashboard removes it, and enqueueing the day again runs the day afresh.
   */
  async enqueueDayFlow(serviceDay: number): Promise<DayFlowResult> {
    const day = await this.dayFlow(serviceDay);
    // Only the outcome is read here: what is added is decided by BullMQ in the add itself.
    const pending = day.build.outcome === 'already-pending' && (await this.exists(day.node));
    await this.flows.add(day.node);
    return {
      jobId: day.node.opts.jobId,
      buildJobId: day.build.jobId,
      outcome: pending ? 'already-pending' : 'added',
    };
  }

  /**
   * The nightly flow of the service day D that just ended, as nightlyPlan describes it: the day
   * flow of each planned day (D-1 again, then D), and refresh-reference-models for the window
   * ending with D as the parent of both, waiting for them to finish whether they succeed or fail
   * (ignoreDependencyOnFailure). The refresh's job id is made from D's build
   * (refmodels-<D>-<token>): while that build is pending, enqueueing the night again adds
   * nothing (outcome already-pending). A day whose export is already the child of another
   * pending refresh (the night before's, say) runs once, for that refresh; this one does not
   * wait for it (a job has at most one parent in BullMQ: handleDuplicatedJob.lua answers -7 for
   * that child, which FlowProducer.add does not report, and leaves this refresh the children it
   * could take). Were both days' exports another pending night's children, this refresh would
   * have none and wait until removed: that takes a night enqueued by hand between two pending
   * ones whose builds are all still pending.
   */
  async enqueueNightlyFlow(serviceDay: number): Promise<EnqueueResult> {
    const plan = nightlyPlan(serviceDay);
    const refresh = parseJobPayload(refreshReferenceModelsJob, {
      serviceDay: plan.refreshWindowEnd,
    });
    const days = [];
    for (const day of plan.days) days.push(await this.dayFlow(day));
    const last = days.find((d) => d.serviceDay === plan.refreshWindowEnd) ?? days.at(-1)!;
    const refreshId = jobIdAfter(
      dayJobId(refreshReferenceModelsJob, refresh),
      last.build.jobId,
      dayJobId(buildDailyRecordsJob, { serviceDay: last.serviceDay }),
    );
    const node = {
      name: refreshReferenceModelsJob.name,
      queueName: refreshReferenceModelsJob.name,
      data: refresh,
      opts: { ...this.jobOptions, jobId: refreshId },
      children: days.map((d) => d.node),
    };
    const pending = last.build.outcome === 'already-pending' && (await this.exists(node));
    await this.flows.add(node);
    return { jobId: refreshId, outcome: pending ? 'already-pending' : 'added' };
  }

  /**
   * Adds the build of one day (deduplicated: a pending one is kept) and returns the flow node
   * of the day: the export, whose job id is made from the build's, with that build as its child.
   * The export carries ignoreDependencyOnFailure and the build failParentOnFailure whether or
   * not they are in a nightly flow: a node that exists already keeps the options it was added
   * with, and a pending day flow may become a child of a night.
   */
  private async dayFlow(serviceDay: number) {
    const build = parseJobPayload(buildDailyRecordsJob, { serviceDay });
    const exp = parseJobPayload(renderDailyExportJob, { serviceDay });
    const buildDedupId = dayJobId(buildDailyRecordsJob, build);
    const added = await this.addDeduplicated(
      buildDailyRecordsJob.name,
      build,
      buildDedupId,
      LONE_JOB_OPTIONS[buildDailyRecordsJob.name] ?? {},
    );
    const exportId = jobIdAfter(dayJobId(renderDailyExportJob, exp), added.jobId, buildDedupId);
    return {
      serviceDay,
      build: added,
      node: {
        name: renderDailyExportJob.name,
        queueName: renderDailyExportJob.name,
        data: exp,
        opts: { ...this.jobOptions, jobId: exportId, ignoreDependencyOnFailure: true },
        children: [
          {
            name: buildDailyRecordsJob.name,
            queueName: buildDailyRecordsJob.name,
            data: build,
            opts: { ...this.jobOptions, jobId: added.jobId, failParentOnFailure: true },
          },
        ],
      },
    } satisfies { node: FlowJob } & Record<string, unknown>;
  }

  /**
   * Adds one job with BullMQ's deduplication under `id` and a job id of its own. BullMQ answers
   * the id of the job it kept: ours when it added it, the pending job's otherwise.
   */
  private async addDeduplicated(
    name: string,
    data: unknown,
    id: string,
    opts: JobsOptions,
  ): Promise<EnqueueResult> {
    const proposed = `${id}-${randomBytes(9).toString('base64url')}`;
    const job = await this.queue(name).add(name, data, {
      ...opts,
      jobId: proposed,
      deduplication: { id },
    });
    return { jobId: job.id!, outcome: job.id === proposed ? 'added' : 'already-pending' };
  }

  /** Whether the flow's root job exists (for the reported outcome only). */
  private async exists(node: { queueName: string; opts: { jobId: string } }): Promise<boolean> {
    return (await this.queue(node.queueName).getJob(node.opts.jobId)) !== undefined;
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
}

function dayJobId<P extends z.ZodType, R>(def: JobDefinition<P, R>, payload: z.infer<P>): string {
  const id = def.jobId(payload);
  if (id === undefined) throw new Error(`${def.name}: a day's job must have a job id`);
  return id;
}

/**
 * The job id of a node that waits for `jobId` (a build): its own deduplication id followed by
 * the build's token, so that it is the same for as long as that build is.
 */
function jobIdAfter(id: string, jobId: string, jobDedupId: string): string {
  const token = jobId.startsWith(`${jobDedupId}-`) ? jobId.slice(jobDedupId.length + 1) : jobId;
  return `${id}-${token}`;
}

/**
 * Options a job gets when added alone. A build may become a flow's child later (a day flow
 * enqueued while it is pending), and BullMQ keeps the options a job was added with.
 */
const LONE_JOB_OPTIONS: Record<string, JobsOptions> = {
  [buildDailyRecordsJob.name]: { failParentOnFailure: true },
};
