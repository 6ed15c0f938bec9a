import type { z } from 'zod';
import type { AppContext } from '../shared/app/app-context.js';

/** What a processor learns about the execution it serves, whoever runs it (BullMQ or in-process). */
export interface JobRunInfo {
  /** BullMQ job id, or a synthetic one in-process. */
  jobId: string;
  attempt: number;
  /** When the run was due (ms since epoch): a scheduler's fire time, else when it was enqueued. */
  dueAt: number;
  /** Report progress (0-100 or an object); a no-op in-process. */
  progress(value: number | object): Promise<void>;
}

/**
 * One BullMQ job: its name (also its queue's name), zod payload, the id that keeps one logical
 * unit of work from running twice at once, and a processor that only calls src/.
 */
export interface JobDefinition<P extends z.ZodType, R> {
  name: string;
  payload: P;
  /**
   * The id of the unit of work (build-<day>, ...): on BullMQ, the deduplication id (the job id
   * is this id and a token of its own, see JobQueues); in-process, the run's job id. It may not
   * contain ':'. Undefined = no deduplication, the queue chooses the job id.
   */
  jobId(payload: z.infer<P>): string | undefined;
  /** The service day the job is about, for job_runs; undefined when it has none. */
  serviceDayOf?(payload: z.infer<P>): number | undefined;
  process(ctx: AppContext, payload: z.infer<P>, run: JobRunInfo): Promise<R>;
}

export function defineJob<P extends z.ZodType, R>(def: JobDefinition<P, R>): JobDefinition<P, R> {
  return def;
}
