import { z } from 'zod';
import { serviceDayOf } from '../src/shared/time/service-day.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * The nightly tick of the Job Scheduler. It computes the service day that just ended (the day
 * before the one the tick was due in, Shanghai time) and returns it; the queue layer then
 * follows that day's nightly plan (src/worker/nightly-plan.ts: D-1 and D built and exported,
 * then the reference models), as a BullMQ flow or in-process. An explicit serviceDay overrides
 * the computation.
 */
export const nightlyJob = defineJob({
  name: 'nightly',
  payload: z.object({ serviceDay: z.number().int().min(0).optional() }),
  jobId: () => undefined,
  process: async (_ctx, p, run) => ({ serviceDay: p.serviceDay ?? nightlyServiceDay(run.dueAt) }),
});

/** The service day a nightly tick due at `dueAtMs` works on. */
export function nightlyServiceDay(dueAtMs: number): number {
  return serviceDayOf(Math.floor(dueAtMs / 1000)) - 1;
}
