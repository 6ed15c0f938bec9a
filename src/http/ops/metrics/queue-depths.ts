import type { QueueList } from '../../../shared/queues/open-queues.js';
import type { StoredFamily } from './stored-metrics.js';

/** The BullMQ states counted per queue. */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'waiting-children',
  'prioritized',
  'failed',
  'completed',
] as const;

/** Jobs per queue and state, read from Redis at each scrape (none without Redis). */
export async function readQueueDepths(queues: QueueList | undefined): Promise<StoredFamily> {
  const values: StoredFamily['values'] = [];
  if (queues) {
    const counts = await Promise.all(queues.queues.map((q) => q.getJobCounts(...QUEUE_STATES)));
    queues.queues.forEach((q, i) => {
      for (const state of QUEUE_STATES) {
        values.push({ labels: { queue: q.name, state }, value: counts[i]![state] ?? 0 });
      }
    });
  }
  return {
    name: 'emutrack_queue_jobs',
    help: 'Jobs in each BullMQ queue per state (failed and completed: those Redis still keeps).',
    type: 'gauge',
    values,
  };
}
