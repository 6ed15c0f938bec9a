import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { defaultJobOptions } from './job-options.js';

/** BullMQ queues to look at: the operators' metrics and dashboard read them, the worker fills them. */
export interface QueueList {
  readonly queues: readonly Queue[];
}

export interface OpenQueuesOptions {
  connection: Redis;
  prefix: string;
  /** What every job added to the queues gets (defaultJobOptions of the retention). */
  jobOptions: ReturnType<typeof defaultJobOptions>;
  /** Without a listener an EventEmitter 'error' (Redis down, say) would crash the process. */
  onError: (err: Error) => void;
}

/** One BullMQ queue per name (a job's queue has the job's name), on one connection. */
export function openQueues(names: readonly string[], options: OpenQueuesOptions): Queue[] {
  return names.map((name) => {
    const queue = new Queue(name, {
      connection: options.connection,
      prefix: options.prefix,
      defaultJobOptions: options.jobOptions,
    });
    queue.on('error', options.onError);
    return queue;
  });
}
