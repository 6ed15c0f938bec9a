import type { AppContext } from '../shared/app/app-context.js';
import type { DbListener } from '../shared/db/db.js';
import { pruneRecordChanges } from '../domain/records/record-changes.js';
import {
  deliveriesNotEnqueued,
  dispatchWebhookEvents,
  markDeliveriesEnqueued,
  pendingDeliveries,
} from '../domain/webhooks/webhook-dispatch.js';
import { IntervalTask } from '../shared/time/interval-task.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';

/** Channel the change capture and the export trigger notify (migrations 023, 024). */
export const WEBHOOK_CHANNEL = 'emutrack_webhooks';

export interface WebhookDispatcherOptions {
  /** Default config.WEBHOOK_POLL_MS. */
  pollMs?: number;
  /** How often old changes are pruned (default hourly). */
  pruneEveryMs?: number;
  /** Hand over every delivery still to make on start (in-process: timers died with the process). */
  resumePending?: boolean;
}

/**
 * Runs the dispatch (webhook-dispatch.ts) every WEBHOOK_POLL_MS, and sooner when Postgres
 * notifies that records or exports changed: the notice only wakes it, what it dispatches is
 * what it reads, so a missed notice costs at most one poll. Hands the deliveries written to the
 * delivery queue, hands over again those a stopped dispatcher left, and prunes the change feed
 * past its retention. Runs in every worker; dispatchers take turns on the dispatch state's lock.
 */
export class WebhookDispatcher {
  private readonly task: IntervalTask;
  private stopped = true;
  private listener: DbListener | undefined;
  private lastPrune = 0;
  private readonly pruneEveryMs: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly deliveries: WebhookDeliveries,
    private readonly options: WebhookDispatcherOptions = {},
  ) {
    this.pruneEveryMs = options.pruneEveryMs ?? 3_600_000;
    this.task = new IntervalTask(
      'webhook dispatch',
      options.pollMs ?? ctx.config.WEBHOOK_POLL_MS,
      () => this.runOnce(),
      ctx.logger,
    );
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.options.resumePending)
      await this.deliveries.deliver(await pendingDeliveries(this.ctx.db));
    await this.listen();
    if (!this.stopped) this.task.start();
  }

  /** Runs one dispatch now (or right after the one running). */
  wake(): void {
    this.task.wake();
  }

  private async listen(): Promise<void> {
    const { db, logger } = this.ctx;
    if (!db.listen) return;
    try {
      this.listener = await db.listen({
        channels: [WEBHOOK_CHANNEL],
        onNotification: () => this.wake(),
        onLost: (err) => {
          logger.warn({ err: err.message }, 'webhook notices lost; polling until they are back');
          this.listener = undefined;
        },
      });
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'webhook notices unavailable; polling');
    }
  }

  /** One round: dispatch until caught up, hand over, sweep, prune. */
  async runOnce(): Promise<void> {
    const { db, config } = this.ctx;
    for (;;) {
      const result = await dispatchWebhookEvents(db, {
        maxDeliveriesPerEvent: config.WEBHOOK_MAX_DELIVERIES_PER_EVENT,
      });
      if (result.leftOut > 0)
        this.ctx.logger.info(
          { leftOut: result.leftOut },
          'webhook deliveries left out by the per-user bound of one event',
        );
      await this.handOver(result.deliveryIds);
      if (!result.more || this.stopped) break;
    }
    await this.handOver(await deliveriesNotEnqueued(db, 30));
    if (!this.listener && db.listen && !this.stopped) await this.listen();
    if (Date.now() - this.lastPrune >= this.pruneEveryMs) {
      this.lastPrune = Date.now();
      await pruneRecordChanges(db, config.RECORD_CHANGES_RETENTION_DAYS);
    }
  }

  private async handOver(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deliveries.deliver(ids);
    await markDeliveriesEnqueued(this.ctx.db, ids);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
    await this.listener?.close();
    this.listener = undefined;
  }
}
