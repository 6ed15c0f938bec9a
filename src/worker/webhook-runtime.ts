import type { Redis } from 'ioredis';
import type { AppContext } from '../shared/app/app-context.js';
import { closeRedisConnection, createRedisConnection } from '../shared/queues/redis-connection.js';
import {
  BullmqWebhookDeliveries,
  InProcessWebhookDeliveries,
  type WebhookDeliveries,
} from './webhook-deliveries.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { AlertDispatcher } from './alert-dispatcher.js';
import type { WorkerRuntime } from './worker-runtime.js';

export interface WebhookRuntime {
  dispatcher: WebhookDispatcher;
  deliveries: WebhookDeliveries;
  /** Alerts ride with the webhooks: the same feed, and their webhook channel is these deliveries. */
  alerts: AlertDispatcher;
  close(): Promise<void>;
}

/**
 * The worker's webhook half: a dispatcher and the deliveries, on BullMQ when the worker has a
 * Redis connection, else in this process.
 */
export async function startWebhookRuntime(
  ctx: AppContext,
  redis?: { connection: Redis; prefix: string; concurrency: number },
): Promise<WebhookRuntime> {
  let deliveries: WebhookDeliveries;
  if (redis) {
    const bullmq = new BullmqWebhookDeliveries(ctx, redis);
    await bullmq.waitUntilReady();
    deliveries = bullmq;
  } else {
    deliveries = new InProcessWebhookDeliveries(ctx);
  }
  const dispatcher = new WebhookDispatcher(ctx, deliveries, { resumePending: !redis });
  await dispatcher.start();
  const alerts = new AlertDispatcher(ctx, { webhooks: deliveries });
  await alerts.start();
  return {
    dispatcher,
    deliveries,
    alerts,
    close: async () => {
      await alerts.stop();
      await dispatcher.stop();
      await deliveries.close();
    },
  };
}

/**
 * A worker runtime with the webhook half started beside it (on `connection`, or a connection of
 * its own to REDIS_URL, when the runtime is BullMQ's), stopped before it on close.
 */
export async function withWebhooks(
  ctx: AppContext,
  runtime: WorkerRuntime,
  connection?: Redis,
): Promise<WorkerRuntime> {
  const redisUrl = ctx.config.REDIS_URL;
  const own =
    runtime.mode === 'bullmq' && !connection && redisUrl
      ? createRedisConnection(redisUrl, 'worker')
      : undefined;
  const redis = runtime.mode === 'bullmq' ? (connection ?? own) : undefined;
  let webhooks: WebhookRuntime;
  try {
    webhooks = await startWebhookRuntime(
      ctx,
      redis && {
        connection: redis,
        prefix: ctx.config.QUEUE_PREFIX,
        concurrency: ctx.config.WORKER_CONCURRENCY,
      },
    );
  } catch (err) {
    if (own) await closeRedisConnection(own);
    await runtime.close();
    throw err;
  }
  return {
    ...runtime,
    close: async () => {
      await webhooks.close();
      if (own) await closeRedisConnection(own);
      await runtime.close();
    },
  };
}
