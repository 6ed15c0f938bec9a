import { z } from 'zod';
import { recheckOfficialForDays } from '../src/circulation/check-official.js';
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
  process: async (ctx, p) => {
    const result = await buildDailyRecords(
      ctx.db,
      p.serviceDay,
      { confirmMinSupport: ctx.config.CONFIRM_MIN_SUPPORT },
      { force: p.force ?? false },
    );
    // Official tables in force on a day whose records changed are judged again (their evidence).
    if (result.inserted + result.updated + result.deleted > 0)
      await recheckOfficialForDays(ctx.db, [p.serviceDay]);
    return result;
  },
});
