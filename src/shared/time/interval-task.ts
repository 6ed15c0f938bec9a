import type { Logger } from '../log/logger.js';

/**
 * Runs a task now and then again `intervalMs` after each run ends (never two at once), until
 * stopped. Errors are logged and the next run happens as planned. Used to sweep the inbox.
 */
export class IntervalTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

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

  /** Stops and resolves once a running task has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.task()
        .then(
          () => {},
          (err: unknown) =>
            this.logger.error({ task: this.name, err: (err as Error).message }, 'task failed'),
        )
        .finally(() => {
          this.running = undefined;
          this.schedule(this.intervalMs);
        });
    }, delay);
  }
}
