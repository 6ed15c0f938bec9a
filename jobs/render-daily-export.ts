import { z } from 'zod';
import { renderDailyExport } from '../src/domain/exports/daily-export-csv.js';
import { serviceDayOf } from '../src/shared/time/service-day.js';
import { defineJob } from '../src/worker/job-definition.js';

export const renderDailyExportJob = defineJob({
  name: 'render-daily-export',
  payload: z.object({ serviceDay: z.number().int().min(0) }),
  jobId: (p) => `export-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  // "Today" (no later day is exported) is the run's own clock when that is ahead of this
  // machine's: an in-process run given its moment (the demo, a test) exports up to that day.
  // A queued run is never taken before it is due, so there the machine's day holds.
  process: (ctx, p, run) =>
    renderDailyExport(ctx.db, p.serviceDay, {
      today: serviceDayOf(Math.floor(Math.max(Date.now(), run.dueAt) / 1000)),
    }),
});
