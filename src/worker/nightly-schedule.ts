import { CronExpressionParser } from 'cron-parser';
import { ConfigError, type Config } from '../shared/config/config.js';
import { SERVICE_TIME_ZONE } from '../shared/time/service-day.js';
import { inferCirculationsJob, nightlyJob } from '../../jobs/index.js';
import { dueAtOf } from './due-at.js';
import type { JobQueues } from './job-queues.js';

/** The id of the nightly Job Scheduler in the nightly queue. */
export const NIGHTLY_SCHEDULER_ID = 'nightly';
/** The id of the daily circulation-inference Job Scheduler in the infer-circulations queue. */
export const CIRCULATION_SCHEDULER_ID = 'infer-circulations';

/** The first time after `afterMs` that a cron pattern (read in Asia/Shanghai) fires, in ms. */
export function nextCronFire(pattern: string, afterMs: number): number {
  return CronExpressionParser.parse(pattern, {
    tz: SERVICE_TIME_ZONE,
    currentDate: new Date(afterMs),
  })
    .next()
    .getTime();
}

/** Checks a cron pattern from the configuration; a bad one is a ConfigError naming the variable. */
export function assertCronPattern(variable: string, pattern: string): void {
  try {
    nextCronFire(pattern, Date.now());
  } catch (err) {
    throw new ConfigError(
      variable,
      `not a cron pattern (${(err as Error).message}) (got ${JSON.stringify(pattern)})`,
    );
  }
}

/** Checks NIGHTLY_CRON and CIRCULATION_CRON; a bad one is a ConfigError naming the variable. */
export function assertCronSettings(
  config: Pick<Config, 'NIGHTLY_CRON' | 'CIRCULATION_CRON'>,
): void {
  assertCronPattern('NIGHTLY_CRON', config.NIGHTLY_CRON);
  assertCronPattern('CIRCULATION_CRON', config.CIRCULATION_CRON);
}

export interface UpsertedScheduler {
  schedulerId: string;
  pattern: string;
  /** When the next tick is due (ms since epoch). */
  nextDueAt: number;
}

/**
 * Creates or updates the nightly Job Scheduler: a tick at each `pattern` time, Asia/Shanghai,
 * whose job (nightly) works out the service day that just ended; its worker then adds that
 * day's flow. This is the only place the scheduler is upserted (the worker calls it on
 * start-up); upserting with a changed pattern replaces the pending tick.
 */
export async function upsertNightlyScheduler(
  queues: JobQueues,
  pattern: string,
): Promise<UpsertedScheduler> {
  assertCronPattern('NIGHTLY_CRON', pattern);
  const job = await queues
    .queue(nightlyJob.name)
    .upsertJobScheduler(
      NIGHTLY_SCHEDULER_ID,
      { pattern, tz: SERVICE_TIME_ZONE },
      { name: nightlyJob.name, data: {}, opts: queues.defaultJobOptions },
    );
  return { schedulerId: NIGHTLY_SCHEDULER_ID, pattern, nextDueAt: dueAtOf(job) };
}

/**
 * Creates or updates the daily circulation-inference Job Scheduler (CIRCULATION_CRON, default
 * 02:00 Asia/Shanghai): each tick's job infers over the window ending with the service day that
 * ended before the tick. Upserted here, next to the nightly one, and nowhere else.
 */
export async function upsertCirculationScheduler(
  queues: JobQueues,
  pattern: string,
): Promise<UpsertedScheduler> {
  assertCronPattern('CIRCULATION_CRON', pattern);
  const job = await queues
    .queue(inferCirculationsJob.name)
    .upsertJobScheduler(
      CIRCULATION_SCHEDULER_ID,
      { pattern, tz: SERVICE_TIME_ZONE },
      { name: inferCirculationsJob.name, data: {}, opts: queues.defaultJobOptions },
    );
  return { schedulerId: CIRCULATION_SCHEDULER_ID, pattern, nextDueAt: dueAtOf(job) };
}
