import { z } from 'zod';
import { serviceDayOf } from '../src/time/service-day.js';
import { defineJob } from './job-definition.js';

/**
 * The nightly tick of the Job Scheduler. It computes the service day that just ended (the day
 * before the one the tick was due in, Shanghai time) and returns it; the queue layer then runs
 * build-daily-records and, after it, render-daily-export for that day (a BullMQ flow, or the
 * in-process runner in dependency order). An explicit serviceDay overrides the computation.
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
