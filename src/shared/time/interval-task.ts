import type { Logger } from '../log/logger.js';

/**
 * Runs a task now and then again `intervalMs` after each run ends (never two at once), until
 * stopped; wake() runs it sooner. Errors are logged and the next run happens as planned. Used to
 * sweep the inbox, to prune, to look for stale days and to dispatch webhooks.
 */
export class IntervalTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private woken = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Runs the task now instead of at the end of the interval. Wakes before that run starts are
   * the same run; a wake during a run asks for one more run right after it (whatever the run
   * read, it may have read before what woke it). No-op when stopped.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.woken = true;
    else this.schedule(0);
  }

  /** Stops and resolves once a running task has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.task()
        .then(
          () => {},
          (err: unknown) =>
            this.logger.error({ task: this.name, err: (err as Error).message }, 'task failed'),
        )
        .finally(() => {
          this.running = undefined;
          const again = this.woken;
          this.woken = false;
          this.schedule(again ? 0 : this.intervalMs);
        });
    }, delay);
  }
}
