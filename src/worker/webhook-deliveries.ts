import { hostname } from 'node:os';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import type { DeliveryAttempt } from '../domain/webhooks/webhook-delivery.js';
import { deliverWebhookJob } from '../../jobs/index.js';
import { dueAtOf } from './due-at.js';
import { parseJobPayload } from './execute-job.js';

/** Where deliveries go once written: a BullMQ queue, or timers in this process. */
export interface WebhookDeliveries {
  /** Hands deliveries over; one already handed over and not finished is not added twice. */
  deliver(deliveryIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The queue (and its jobs' name) deliveries go through on BullMQ. */
export const WEBHOOK_QUEUE = deliverWebhookJob.name;

/**
 * Deliveries as BullMQ jobs of deliverWebhookJob (under its job id: a delivery handed over twice
 * runs once), WEBHOOK_MAX_ATTEMPTS attempts, exponential backoff starting at JOB_BACKOFF_MS as
 * the other jobs. A failed attempt throws, so BullMQ schedules the next; the last records the
 * delivery as given up.
 */
export class BullmqWebhookDeliveries implements WebhookDeliveries {
  private readonly queue: Queue;
  private readonly worker: Worker;

  constructor(
    private readonly ctx: AppContext,
    options: { connection: Redis; prefix: string; concurrency: number },
  ) {
    this.queue = new Queue(WEBHOOK_QUEUE, {
      connection: options.connection,
      prefix: options.prefix,
    });
    this.worker = new Worker(
      WEBHOOK_QUEUE,
      (job: Job<{ deliveryId: string }>) => this.process(job),
      {
        connection: options.connection,
        prefix: options.prefix,
        name: `${hostname()}-${process.pid}`,
        concurrency: options.concurrency,
      },
    );
    this.worker.on('error', (err) => ctx.logger.warn({ err: err.message }, 'webhook worker error'));
    this.queue.on('error', (err) => ctx.logger.warn({ err: err.message }, 'webhook queue error'));
  }

  async waitUntilReady(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.worker.waitUntilReady()]);
  }

  async deliver(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    const { config } = this.ctx;
    await this.queue.addBulk(
      deliveryIds.map((deliveryId) => ({
        name: WEBHOOK_QUEUE,
        data: { deliveryId },
        opts: {
          jobId: deliverWebhookJob.jobId({ deliveryId }),
          attempts: config.WEBHOOK_MAX_ATTEMPTS,
          backoff: { type: 'exponential', delay: config.JOB_BACKOFF_MS },
          // The delivery row is the record; the job is kept a while for the dashboard.
          removeOnComplete: { age: 3_600, count: 1_000 },
          removeOnFail: { age: 7 * 86_400 },
        },
      })),
    );
  }

  private async process(job: Job<{ deliveryId: string }>): Promise<DeliveryAttempt> {
    const result = await deliverWebhookJob.process(
      this.ctx,
      parseJobPayload(deliverWebhookJob, job.data),
      {
        jobId: job.id!,
        attempt: job.attemptsMade + 1,
        dueAt: dueAtOf(job),
        progress: (value) => job.updateProgress(value),
      },
    );
    if (result.outcome === 'retry') throw new Error(result.error ?? 'delivery failed');
    return result;
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }
}

/**
 * Deliveries without Redis: each attempt on a timer in this process, the same attempts and
 * backoff as on BullMQ. Timers do not survive a restart; the runtime hands over every delivery
 * still to make when it starts.
 */
export class InProcessWebhookDeliveries implements WebhookDeliveries {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly ctx: AppContext) {}

  async deliver(deliveryIds: readonly string[]): Promise<void> {
    for (const id of deliveryIds) if (!this.timers.has(id)) this.schedule(id, 1, 0);
  }

  private schedule(id: string, attempt: number, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      const run = this.attempt(id, attempt).finally(() => this.running.delete(run));
      this.running.add(run);
    }, delayMs);
    this.timers.set(id, timer);
  }

  private async attempt(id: string, attempt: number): Promise<void> {
    const { config, logger } = this.ctx;
    const last = attempt >= config.WEBHOOK_MAX_ATTEMPTS;
    try {
      const result = await deliverWebhookJob.process(
        this.ctx,
        { deliveryId: id },
        {
          jobId: deliverWebhookJob.jobId({ deliveryId: id }) ?? id,
          attempt,
          dueAt: Date.now(),
          progress: async () => {},
        },
      );
      if (result.outcome === 'retry') {
        this.schedule(id, attempt + 1, config.JOB_BACKOFF_MS * 2 ** (attempt - 1));
        return;
      }
    } catch (err) {
      logger.error({ deliveryId: id, err: (err as Error).message }, 'webhook delivery failed');
      if (!last) {
        this.schedule(id, attempt + 1, config.JOB_BACKOFF_MS * 2 ** (attempt - 1));
        return;
      }
    }
    this.timers.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }
}
