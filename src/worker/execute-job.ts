import type { AppContext } from '../shared/app/app-context.js';
import type { JobDefinition, JobRunInfo } from './job-definition.js';
import type { z } from 'zod';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

/** A payload that does not match its job's schema; names the field. */
export class InvalidJobPayloadError extends EmutrackError {
  constructor(job: string, detail: string) {
    super('job_payload_invalid', `${job}: invalid payload: ${detail}`);
  }
}

export type JobVia = 'bullmq' | 'in-process';

/** Validates a payload against its job's zod schema; throws InvalidJobPayloadError naming the field. */
export function parseJobPayload<P extends z.ZodType, R>(
  def: JobDefinition<P, R>,
  rawPayload: unknown,
): z.infer<P> {
  const parsed = def.payload.safeParse(rawPayload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidJobPayloadError(
      def.name,
      `${issue.path.join('.') || '(payload)'}: ${issue.message}`,
    );
  }
  return parsed.data as z.infer<P>;
}

export const ABANDONED_RUN_ERROR =
  'abandoned: the job was started again (the worker running it was lost or stalled)';

/**
 * BullMQ hands a job id to one worker at a time, so when a job starts, an earlier run of the same
 * id still marked running belongs to a worker that died or lost its lock: job_runs says so
 * instead of showing it running forever. (A run that lost its lock but still finishes later
 * overwrites this with its real outcome.)
 */
async function markAbandonedRuns(ctx: AppContext, job: string, jobId: string): Promise<void> {
  await ctx.db.query(
    `UPDATE job_runs SET status = 'failed', finished_at = now(), error = $3
      WHERE job = $1 AND job_id = $2 AND via = 'bullmq' AND status = 'running'`,
    [job, jobId, ABANDONED_RUN_ERROR],
  );
}

/**
 * Runs one job's processor, validating its payload and recording the run in job_runs, whoever
 * drives it: a BullMQ worker or the in-process runner. Failures are recorded and rethrown.
 */
export async function executeJob<P extends z.ZodType, R>(
  ctx: AppContext,
  def: JobDefinition<P, R>,
  rawPayload: unknown,
  run: JobRunInfo,
  via: JobVia,
): Promise<R> {
  // Every line logged about this run, here and in the job's own code, names the job and its id.
  const logger = ctx.logger.child({ job: def.name, jobId: run.jobId, attempt: run.attempt, via });
  const payload = parseJobPayload(def, rawPayload);
  const serviceDay = def.serviceDayOf?.(payload) ?? null;
  if (via === 'bullmq') await markAbandonedRuns(ctx, def.name, run.jobId);
  const started = await ctx.db.query<{ id: number }>(
    `INSERT INTO job_runs (job, job_id, service_day, via, attempt, status) VALUES ($1, $2, $3, $4, $5, 'running') RETURNING id`,
    [def.name, run.jobId, serviceDay, via, run.attempt],
  );
  const runId = started.rows[0]!.id;
  const startedAt = Date.now();
  logger.info({ runId, serviceDay }, 'job run started');
  try {
    const result = await def.process({ ...ctx, logger }, payload, run);
    await ctx.db.query(
      `UPDATE job_runs SET status = 'completed', finished_at = now(), result = $2::jsonb WHERE id = $1`,
      [runId, JSON.stringify(result ?? null)],
    );
    logger.info({ runId, ms: Date.now() - startedAt }, 'job run completed');
    return result;
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    logger.warn({ runId, ms: Date.now() - startedAt, err: message }, 'job run failed');
    try {
      await ctx.db.query(
        `UPDATE job_runs SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1`,
        [runId, message],
      );
    } catch (recordErr) {
      // The database is likely down (the job's own failure may say so). The job's error is the
      // one to throw; the run stays 'running' until the next start of this job id marks it
      // abandoned (markAbandonedRuns), so say here what happened.
      logger.error(
        {
          runId,
          err: message,
          recordErr: (recordErr as Error).message,
        },
        'job failed, and recording the failure in job_runs failed too',
      );
    }
    throw err;
  }
}
