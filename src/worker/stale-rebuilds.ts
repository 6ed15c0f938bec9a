import type { Queryable } from '../shared/db/db.js';
import type { Logger } from '../shared/log/logger.js';
import {
  dueStaleDays,
  type StaleCause,
  type StaleRebuildTiming,
} from '../domain/records/stale-days.js';
import { IntervalTask } from '../shared/time/interval-task.js';

/** Longest pause between two looks for due stale days (ms). */
export const MAX_STALE_POLL_MS = 5_000;
/** Shortest pause between two looks (ms): a small delay (tests) does not make a busy loop. */
export const MIN_STALE_POLL_MS = 100;

/** How often the worker looks for due stale days: a quarter of the delay, within the bounds. */
export function stalePollMs(delayMs: number): number {
  return Math.min(MAX_STALE_POLL_MS, Math.max(MIN_STALE_POLL_MS, Math.floor(delayMs / 4)));
}

export interface StaleRebuildsOptions {
  db: Queryable;
  timing: StaleRebuildTiming;
  /**
   * Starts the rebuild and re-export of one day (BullMQ: its day flow, deduplicated under
   * build-<day>; in-process: the build and the export in turn). May resolve before the work
   * is done; the day leaves stale_days when a build that saw its last mark commits.
   */
  rebuildDay(serviceDay: number, causes: readonly StaleCause[]): Promise<unknown>;
  logger: Logger;
  /** Default stalePollMs(timing.delayMs). */
  pollMs?: number;
  /**
   * Runs a whole poll (the look and the rebuilds it starts) in the caller's turn: the
   * in-process runner's one-job-at-a-time lane (the embedded database has one session).
   * Default: at once.
   */
  exclusive?: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * The worker's side of stale days: every poll, the days that are due (quiet for the delay, or
 * stale for the max wait: stale-days.ts dueStaleDays) are handed to `rebuildDay`. The marks
 * live in Postgres, written with the sightings, so nothing is lost when a worker or Redis
 * restarts: the next poll of any worker finds them again. Several workers may poll: on BullMQ
 * the day flow's deduplication (build-<day>) keeps one build of a day pending or running at a
 * time, and the build's advisory lock makes any other build of the day (a replay, the nightly
 * run) wait for it. A day handed over is not handed over again for one delay (at least one
 * poll), so a pending or failing day is not enqueued on every poll.
 */
export class StaleRebuilds {
  private readonly task: IntervalTask;
  private readonly handedAt = new Map<number, number>();
  /** Days handed to rebuildDay so far (tests; a log line). */
  handedOver = 0;

  constructor(private readonly options: StaleRebuildsOptions) {
    this.task = new IntervalTask(
      'stale day rebuilds',
      options.pollMs ?? stalePollMs(options.timing.delayMs),
      () => this.poll(),
      options.logger,
    );
  }

  start(): void {
    this.task.start();
  }

  /** Stops polling; resolves once a poll under way has handed its days over. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One look: hands every due day over (oldest first), unless handed over within the delay. */
  poll(): Promise<number> {
    return this.options.exclusive ? this.options.exclusive(() => this.look()) : this.look();
  }

  private async look(): Promise<number> {
    const due = await dueStaleDays(this.options.db, this.options.timing);
    const now = performance.now();
    const again = Math.max(this.options.timing.delayMs, MIN_STALE_POLL_MS);
    for (const [day, at] of this.handedAt) if (now - at >= again) this.handedAt.delete(day);
    let handed = 0;
    for (const { serviceDay, causes } of due) {
      if (this.handedAt.has(serviceDay)) continue;
      this.handedAt.set(serviceDay, now);
      try {
        await this.options.rebuildDay(serviceDay, causes);
        handed++;
        this.handedOver++;
      } catch (err) {
        // Tried again at a later poll (the day stays stale until a build clears it).
        this.handedAt.delete(serviceDay);
        this.options.logger.warn(
          { serviceDay, err: (err as Error).message },
          'stale day: rebuild could not be started',
        );
      }
    }
    if (handed > 0) this.options.logger.info({ days: handed }, 'stale days: rebuilds started');
    return handed;
  }
}
