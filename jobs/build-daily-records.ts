import { z } from 'zod';
import { recheckOfficialForDays } from '../src/domain/circulation/check-official.js';
import { buildDailyRecords } from '../src/domain/records/build-daily-records.js';
import { readStaleCauses, staleRebuildCause } from '../src/domain/records/stale-days.js';
import { defineJob } from '../src/worker/job-definition.js';

export const buildDailyRecordsJob = defineJob({
  name: 'build-daily-records',
  payload: z.object({
    serviceDay: z.number().int().min(0),
    /** Build even when the day's inputs did not change since its last build (default false). */
    force: z.boolean().optional(),
    /**
     * Why the day is built (the change feed's cause). Default: from the day's stale mark when
     * it is stale ('correction' when a correction marked it, else 'late-data'), else 'build'.
     */
    cause: z.enum(['build', 'late-data', 'correction']).optional(),
  }),
  jobId: (p) => `build-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  process: async (ctx, p) => {
    // Whoever builds a stale day (its stale rebuild, the nightly run, a replay) clears its mark,
    // so the cause follows the mark, not the caller: one build, one truthful cause.
    const causes = p.cause === undefined ? await readStaleCauses(ctx.db, p.serviceDay) : null;
    const cause = p.cause ?? (causes ? staleRebuildCause(causes) : 'build');
    const result = await buildDailyRecords(
      ctx.db,
      p.serviceDay,
      { confirmMinSupport: ctx.config.CONFIRM_MIN_SUPPORT },
      { force: p.force ?? false, cause },
    );
    // Official tables in force on a day whose records changed are judged again (their evidence).
    if (result.inserted + result.updated + result.deleted > 0)
      await recheckOfficialForDays(ctx.db, [p.serviceDay]);
    return result;
  },
});
