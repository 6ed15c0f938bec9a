import { z } from 'zod';
import { renderDailyExport } from '../src/domain/exports/daily-export-csv.js';
import { defineJob } from '../src/worker/job-definition.js';

export const renderDailyExportJob = defineJob({
  name: 'render-daily-export',
  payload: z.object({ serviceDay: z.number().int().min(0) }),
  jobId: (p) => `export-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  process: (ctx, p) => renderDailyExport(ctx.db, p.serviceDay),
});
