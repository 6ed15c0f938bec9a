import { z } from 'zod';
import { ingestTimetables } from '../src/domain/timetables/ingest-timetables.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * Ingests the timetables of one file or directory. The records of days whose timetable in force
 * changed (from the result's changedFrom) get it when they are rebuilt.
 */
export const ingestTimetablesJob = defineJob({
  name: 'ingest-timetables',
  payload: z.object({ path: z.string().min(1) }),
  jobId: () => undefined,
  process: async (ctx, p) => {
    const result = await ingestTimetables(ctx.db, p.path);
    return { ...result, files: result.files.length };
  },
});
