import { z } from 'zod';
import { attemptWebhookDelivery } from '../src/domain/webhooks/webhook-delivery.js';
import { defineJob } from '../src/worker/job-definition.js';

/**
 * One attempt at one webhook delivery; the attempt numbered WEBHOOK_MAX_ATTEMPTS records the
 * delivery as given up when it fails. Outcome `retry` means another attempt is due: the runtime
 * schedules it (src/worker/webhook-deliveries.ts, on its own queue: the delivery row is the
 * record, so there is no job_runs row per attempt). What the address guard refused is logged for
 * the operator; the delivery and its owner only read that the address is not allowed.
 */
export const deliverWebhookJob = defineJob({
  name: 'deliver-webhook',
  payload: z.object({ deliveryId: z.string().min(1) }),
  // BullMQ adds nothing for an id it holds, so a delivery handed over twice runs once.
  jobId: (p) => `webhook-${p.deliveryId}`,
  process: async (ctx, p, run) => {
    const result = await attemptWebhookDelivery(ctx.db, p.deliveryId, {
      allowLoopback: ctx.config.WEBHOOK_ALLOW_LOOPBACK,
      timeoutMs: ctx.config.WEBHOOK_TIMEOUT_MS,
      disableAfterMs: ctx.config.WEBHOOK_DISABLE_AFTER_MS,
      lastAttempt: run.attempt >= ctx.config.WEBHOOK_MAX_ATTEMPTS,
    });
    if (result.detail) {
      ctx.logger.warn(
        { deliveryId: p.deliveryId, detail: result.detail },
        'webhook delivery address refused',
      );
    }
    return result;
  },
});
