import type { Job } from 'bullmq';

// BullMQ names each job a Job Scheduler produces "repeat:<schedulerId>:<due time in ms>".
const SCHEDULER_JOB_ID = /^repeat:.+:(\d+)$/;

/**
 * When a BullMQ job was due (ms since epoch). For a Job Scheduler's job that is the tick it was
 * created for, not when it was added (the scheduler adds the next tick's job early, as a delayed
 * job) nor when a worker got to it (a retry or a backlog can run it hours later): the nightly job
 * works out its service day from it. For any other job: when it was added, plus its delay.
 */
export function dueAtOf(job: Pick<Job, 'id' | 'repeatJobKey' | 'opts' | 'timestamp'>): number {
  if (job.repeatJobKey) {
    const m = job.id ? SCHEDULER_JOB_ID.exec(job.id) : null;
    if (m) return Number(m[1]);
    if (job.opts.prevMillis) return job.opts.prevMillis;
  }
  return job.timestamp + (job.opts.delay ?? 0);
}
