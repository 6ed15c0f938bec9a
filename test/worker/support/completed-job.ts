import type { Job } from 'bullmq';
import type { JobQueues } from '../../../src/worker/job-queues.js';
import { waitFor } from './wait-for.js';

/**
 * Waits until a job has completed and returns it as read after that: a Job read before its
 * completion keeps what it held then (no return value, no finishedOn) even when a later
 * getState() says 'completed', so returning the object whose state was asked raced the worker.
 */
export async function completedJob(
  queues: JobQueues,
  jobName: string,
  jobId: string,
  what: string,
): Promise<Job> {
  await waitFor(
    what,
    async () => (await (await queues.getJob(jobName, jobId))?.getState()) === 'completed',
  );
  const job = await queues.getJob(jobName, jobId);
  if (!job) throw new Error(`${jobName} ${jobId}: completed, then gone`);
  return job;
}
