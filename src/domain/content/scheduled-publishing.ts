import type { Queryable } from '../../shared/db/db.js';

/**
 * Publishes every scheduled (`future`) item whose date has come (WordPress's
 * publish_future_post). One statement: two processes running it at once publish each item once
 * (the second waits for the first's row locks and then finds the rows no longer `future`).
 * Returns how many it published.
 */
export async function publishDuePosts(db: Queryable, now: Date): Promise<number> {
  // (type, status, date_gmt) is the list index: finding none is one index probe per type.
  const r = await db.query(
    `UPDATE site_posts SET status = 'publish' WHERE status = 'future' AND date_gmt <= $1`,
    [now],
  );
  return r.rowCount;
}

/** When the next scheduled item is due, ms since the epoch; null when none is scheduled. */
export async function nextScheduledMs(db: Queryable): Promise<number | null> {
  const r = await db.query<{ next: Date | null }>(
    `SELECT min(date_gmt) AS next FROM site_posts WHERE status = 'future'`,
  );
  const next = r.rows[0]?.next ?? null;
  return next === null ? null : new Date(next).getTime();
}

export interface ScheduledPublisherOptions {
  /** Milliseconds since the epoch (the site's clock; tests inject time). Default Date.now. */
  clock?: () => number;
  /**
   * How often the next due date is read again even when nothing here scheduled one: another
   * process may have, and may stop before its own timer fires. Default 60 s.
   */
  recheckMs?: number;
  onError?: (err: unknown) => void;
}

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * The one scheduled job of the site's content: a timer armed for the next scheduled item's date
 * (re-armed when an item is scheduled and after each run, and re-read every `recheckMs` for what
 * other processes scheduled) that runs publishDuePosts without any read asking for it.
 *
 * `catchUp` is the same job run at once when the clock has passed the next known due date: the
 * site calls it before it answers a request, so that an answer never shows a scheduled item
 * as unpublished after its time (the timer may be late, and tests move a fake clock that no
 * timer follows). Runs are shared: one in flight at a time, and a catch-up waits for it.
 */
export class ScheduledPublisher {
  private readonly clock: () => number;
  private readonly recheckMs: number;
  private nextDueMs: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly db: Queryable,
    private readonly options: ScheduledPublisherOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.recheckMs = options.recheckMs ?? 60_000;
  }

  /** Publishes what is due now and arms the timer for the next. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.run();
  }

  /** Disarms the timer; resolves once a run in flight has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** An item is scheduled for `atMs` (here, or seen in another process's writes). */
  scheduled(atMs: number | null | undefined): void {
    if (atMs === null || atMs === undefined) return;
    if (this.nextDueMs !== null && this.nextDueMs <= atMs) return;
    this.nextDueMs = atMs;
    this.arm();
  }

  /**
   * The job, at once, when an item known to be scheduled (here, or `knownNextDueMs` as a reader
   * saw it) is due by the clock; otherwise nothing (undefined: no promise, no await).
   */
  catchUp(knownNextDueMs?: number | null): Promise<void> | undefined {
    this.scheduled(knownNextDueMs);
    if (!this.due()) return undefined;
    // A run already in flight may have begun before the clock reached the due date: once it
    // ends, one more run if the item is still due.
    return this.run().then(() => (this.due() ? this.run() : undefined));
  }

  private due(): boolean {
    return this.nextDueMs !== null && this.nextDueMs <= this.clock();
  }

  /** Publishes what is due, then reads the next due date and arms the timer for it. */
  run(): Promise<void> {
    this.running ??= this.publish().finally(() => (this.running = undefined));
    return this.running;
  }

  private async publish(): Promise<void> {
    try {
      await publishDuePosts(this.db, new Date(this.clock()));
      this.nextDueMs = await nextScheduledMs(this.db);
      this.arm();
    } catch (err) {
      this.options.onError?.(err);
      // Not at once again (a due item would make that a loop): at the next re-check.
      this.arm(this.recheckMs);
    }
  }

  private arm(atLeastMs = 0): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const untilDue = this.nextDueMs === null ? Infinity : this.nextDueMs - this.clock();
    const delay = Math.max(atLeastMs, Math.min(untilDue, this.recheckMs, MAX_DELAY_MS));
    // Never keeps the process alive: the site's server does, and close() stops the job.
    this.timer = setTimeout(() => void this.run(), delay).unref();
  }
}
