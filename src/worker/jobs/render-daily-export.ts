import { z } from 'zod';
import { renderDailyExport } from '../../domain/exports/daily-export-csv.js';
import { defineJob } from './job-definition.js';

export const renderDailyExportJob = defineJob({
  name: 'render-daily-export',
  payload: z.object({ serviceDay: z.number().int().min(0) }),
  jobId: (p) => `export-${p.serviceDay}`,
  serviceDayOf: (p) => p.serviceDay,
  process: (ctx, p) => renderDailyExport(ctx.db, p.serviceDay),
});
