import { z } from 'zod';
import { inferCirculations } from '../src/domain/circulation/infer-circulations.js';
import { defineJob } from '../src/worker/job-definition.js';
import { nightlyServiceDay } from './nightly.js';

/**
 * Infers circulations over the window that ends with `asOf` (a service day), or, when the
 * payload has none (the daily scheduler's ticks), with the service day that ended before the
 * tick was due, and replaces the current results atomically.
 */
export const inferCirculationsJob = defineJob({
  name: 'infer-circulations',
  payload: z.object({ asOf: z.number().int().min(0).optional() }),
  jobId: (p) => (p.asOf === undefined ? undefined : `circulations-${p.asOf}`),
  serviceDayOf: (p) => p.asOf,
  process: (ctx, p, run) =>
    inferCirculations(ctx.db, {
      asOf: p.asOf ?? nightlyServiceDay(run.dueAt),
      windowDays: ctx.config.CIRCULATION_WINDOW_DAYS,
      threshold: ctx.config.CIRCULATION_THRESHOLD,
      minSupport: ctx.config.CIRCULATION_MIN_SUPPORT,
    }),
});
