import type { Logger } from '../shared/log/logger.js';
import { nextCronFire } from './nightly-schedule.js';

// setTimeout fires at once for delays over 2^31-1 ms (~24.8 days); longer waits are re-armed.
const MAX_TIMER_MS = 2_147_483_647;

export interface CronTickerOptions {
  /** Cron pattern, read in Asia/Shanghai; a leading seconds field is allowed. */
  pattern: string;
  /** Called with each fire time (ms since epoch). Its errors are logged, not rethrown. */
  onTick: (dueAt: number) => Promise<void>;
  logger: Logger;
  /** Default Date.now. */
  now?: () => number;
}

/**
 * Calls onTick at each fire time of a cron pattern, one tick at a time, in this process: the
 * scheduler used when there is no Redis. A tick that comes due while the previous one is still
 * running starts when it ends, so no fire time is skipped while the process runs.
 */
export class CronTicker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly now: () => number;

  constructor(private readonly options: CronTickerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The next fire time armed, if any. */
  nextDueAt: number | undefined;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.arm(nextCronFire(this.options.pattern, this.now()));
  }

  /** Stops arming ticks and resolves once a running tick has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.nextDueAt = undefined;
    await this.running;
  }

  private arm(dueAt: number): void {
    if (this.stopped) return;
    this.nextDueAt = dueAt;
    const wait = dueAt - this.now();
    if (wait > MAX_TIMER_MS) {
      this.timer = setTimeout(() => this.arm(dueAt), MAX_TIMER_MS);
      return;
    }
    this.timer = setTimeout(() => this.fire(dueAt), Math.max(0, wait));
  }

  private fire(dueAt: number): void {
    if (this.stopped) return;
    this.running = this.options
      .onTick(dueAt)
      .catch((err: unknown) =>
        this.options.logger.error(
          { dueAt: new Date(dueAt).toISOString(), err: (err as Error).message },
          'scheduled tick failed',
        ),
      )
      .finally(() => {
        this.running = undefined;
        this.arm(nextCronFire(this.options.pattern, dueAt));
      });
  }
}
