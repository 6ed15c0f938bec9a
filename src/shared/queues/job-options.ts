import type { JobsOptions } from 'bullmq';
import type { Config } from '../config/config.js';

/** How jobs are retried and how long finished ones are kept in Redis. */
export interface JobRetentionOptions {
  /** Tries per job, the first included. Default config.JOB_ATTEMPTS (5). */
  attempts: number;
  /** First retry delay; each further retry waits twice as long. Default config.JOB_BACKOFF_MS (5 s). */
  backoffMs: number;
  /** Completed jobs kept at most this long (seconds) and this many per queue. Default 7 days, 1000. */
  keepCompleted: { age: number; count: number };
  /** Failed jobs kept at most this long (seconds) and this many per queue. Default 30 days, 5000. */
  keepFailed: { age: number; count: number };
}

/** The run history lives in job_runs; Redis keeps finished jobs only for a look at recent ones. */
export const DEFAULT_KEEP_COMPLETED = { age: 7 * 24 * 3600, count: 1000 };
export const DEFAULT_KEEP_FAILED = { age: 30 * 24 * 3600, count: 5000 };

export function jobRetentionFromConfig(
  config: Pick<Config, 'JOB_ATTEMPTS' | 'JOB_BACKOFF_MS'>,
): JobRetentionOptions {
  return {
    attempts: config.JOB_ATTEMPTS,
    backoffMs: config.JOB_BACKOFF_MS,
    keepCompleted: DEFAULT_KEEP_COMPLETED,
    keepFailed: DEFAULT_KEEP_FAILED,
  };
}

/** BullMQ options every job gets, whether added to a queue, a flow or by the scheduler. */
export function defaultJobOptions(o: JobRetentionOptions) {
  return {
    attempts: o.attempts,
    backoff: { type: 'exponential', delay: o.backoffMs },
    removeOnComplete: o.keepCompleted,
    removeOnFail: o.keepFailed,
  } satisfies JobsOptions;
}
