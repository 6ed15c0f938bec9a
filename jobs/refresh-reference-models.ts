import { z } from 'zod';
import { refreshReferenceModels } from '../src/domain/records/reference-models.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * Recomputes every train's reference models over the REFERENCE_MODEL_WINDOW_DAYS days ending
 * with `serviceDay`. The nightly flow runs it once that day's build and export are done.
 */
export const refreshReferenceModelsJob = defineJob({
  name: 'refresh-reference-models',
  payload: z.object({ serviceDay: z.number().int().min(0) }),
  jobId: (p) => `refmodels-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  process: (ctx, p) =>
    refreshReferenceModels(ctx.db, {
      windowEnd: p.serviceDay,
      windowDays: ctx.config.REFERENCE_MODEL_WINDOW_DAYS,
      minShare: ctx.config.REFERENCE_MODEL_MIN_SHARE,
    }),
});
