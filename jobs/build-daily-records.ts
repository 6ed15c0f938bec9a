import { z } from 'zod';
import { buildDailyRecords } from '../src/records/build-daily-records.js';
import { defineJob } from './job-definition.js';

export const buildDailyRecordsJob = defineJob({
  name: 'build-daily-records',
  payload: z.object({
    serviceDay: z.number().int().min(0),
    /** Build even when the day's inputs did not change since its last build (default false). */
    force: z.boolean().optional(),
  }),
  jobId: (p) => `build-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  process: (ctx, p) =>
    buildDailyRecords(
      ctx.db,
      p.serviceDay,
      { confirmMinSupport: ctx.config.CONFIRM_MIN_SUPPORT },
      { force: p.force ?? false },
    ),
});
