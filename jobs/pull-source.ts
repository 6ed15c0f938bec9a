import { z } from 'zod';
import { pullSource } from '../src/domain/sources/pull-source.js';
import { serviceDayOf } from '../src/shared/time/service-day.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * One pull of one source by name (src/domain/sources/pull-source.ts). Without a range it pulls
 * the service day the run was due in and the day before, by the due time, not the clock: a
 * scheduler's tick retried an hour later still pulls the days of its tick (a v2-feed source takes
 * no days: it follows its feed from its stored cursor). The source's own
 * queue (src/worker/source-pulls.ts) runs one pull of it at a time, at its rate.
 */
export const pullSourceJob = defineJob({
  name: 'pull-source',
  payload: z
    .object({
      source: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/),
      from: z.number().int().min(0).optional(),
      to: z.number().int().min(0).optional(),
    })
    .refine((p) => (p.from === undefined) === (p.to === undefined), {
      message: 'from and to go together',
      path: ['to'],
    }),
  // Pulls of one source are kept apart by their queue (one at a time), not by an id.
  jobId: () => undefined,
  process: async (ctx, p, run) => {
    const today = serviceDayOf(Math.floor(run.dueAt / 1000));
    return pullSource(ctx.db, p.source, {
      from: p.from ?? today - 1,
      to: p.to ?? today,
      allowUnknownEmuForms: ctx.config.ALLOW_UNKNOWN_EMU_FORMS,
      userAgent: 'emutrack worker',
    });
  },
});
