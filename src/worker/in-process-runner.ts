import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app/app-context.js';
import {
  buildDailyRecordsJob,
  nightlyJob,
  refreshReferenceModelsJob,
  renderDailyExportJob,
  type JobDefinition,
  type JobRunInfo,
} from '../../jobs/index.js';
import type { BuildResult } from '../domain/records/build-daily-records.js';
import type { ReferenceModelRefresh } from '../domain/records/reference-models.js';
import type { StoredExportResult } from '../domain/exports/daily-export-csv.js';
import { executeJob } from './execute-job.js';
import { nightlyPlan, NightlyIncompleteError } from './nightly-plan.js';
import type { z } from 'zod';

/**
 * Runs jobs in this process, through the same job code as the BullMQ workers, when there is no
 * Redis (the embedded default) and for operators' commands. Dependencies run in order: a day's
 * build completes before its export starts.
 */
export function runInProcess<P extends z.ZodType, R>(
  ctx: AppContext,
  def: JobDefinition<P, R>,
  payload: z.infer<P>,
  dueAt: number = Date.now(),
): Promise<R> {
  const info: JobRunInfo = {
    jobId: def.jobId(payload) ?? `${def.name}-${randomUUID()}`,
    attempt: 1,
    dueAt,
    progress: async () => {},
  };
  return executeJob(ctx, def, payload, info, 'in-process');
}

export interface DayRunResult {
  serviceDay: number;
  build: BuildResult;
  export: StoredExportResult;
}

/** Build, then export, one service day: the nightly flow's two steps, both due at `dueAt`. */
export async function runDayInProcess(
  ctx: AppContext,
  serviceDay: number,
  dueAt: number = Date.now(),
): Promise<DayRunResult> {
  const build = await runInProcess(ctx, buildDailyRecordsJob, { serviceDay }, dueAt);
  const exported = await runInProcess(ctx, renderDailyExportJob, { serviceDay }, dueAt);
  return { serviceDay, build, export: exported };
}

export interface NightlyRunResult extends DayRunResult {
  /** The day before, built and exported again. */
  previousDay: DayRunResult;
  referenceModels: ReferenceModelRefresh;
}

/**
 * One nightly tick due at dueAt: works out the day D that just ended and follows its plan
 * (nightlyPlan, the same one JobQueues.enqueueNightlyFlow follows): each day flow in turn, a
 * failing one not stopping the next, then the reference models. When a day flow failed, this
 * throws NightlyIncompleteError once the rest has run.
 */
export async function runNightlyInProcess(
  ctx: AppContext,
  dueAt: number = Date.now(),
): Promise<NightlyRunResult> {
  const { serviceDay } = await runInProcess(ctx, nightlyJob, {}, dueAt);
  const plan = nightlyPlan(serviceDay);
  const done = new Map<number, DayRunResult>();
  const failures: { serviceDay: number; error: Error }[] = [];
  for (const day of plan.days) {
    try {
      done.set(day, await runDayInProcess(ctx, day));
    } catch (err) {
      failures.push({ serviceDay: day, error: err as Error });
    }
  }
  const referenceModels = await runInProcess(ctx, refreshReferenceModelsJob, {
    serviceDay: plan.refreshWindowEnd,
  });
  if (failures.length > 0) throw new NightlyIncompleteError(serviceDay, failures);
  return { ...done.get(serviceDay)!, previousDay: done.get(serviceDay - 1)!, referenceModels };
}
