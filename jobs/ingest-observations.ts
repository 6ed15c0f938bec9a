import { z } from 'zod';
import { ingestInbox } from '../src/domain/ingest/ingest-inbox.js';
import { ingestObservations } from '../src/domain/ingest/ingest-observations.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * Ingests one file or directory (`path`), or sweeps an inbox directory (`inbox`): each file in
 * it is ingested and then moved to inbox/done (or inbox/failed when it could not be read).
 */
export const ingestObservationsJob = defineJob({
  name: 'ingest-observations',
  payload: z.union([z.object({ path: z.string().min(1) }), z.object({ inbox: z.string().min(1) })]),
  // Sweeping one inbox twice at once would ingest its files twice over; a path may run again.
  jobId: (p) => ('inbox' in p ? `inbox-${Buffer.from(p.inbox).toString('base64url')}` : undefined),
  process: async (ctx, p) => {
    const options = { allowUnknownEmuForms: ctx.config.ALLOW_UNKNOWN_EMU_FORMS };
    const result =
      'inbox' in p
        ? await ingestInbox(ctx.db, p.inbox, options)
        : await ingestObservations(ctx.db, p.path, options);
    return { ...result, files: result.files.length };
  },
});
