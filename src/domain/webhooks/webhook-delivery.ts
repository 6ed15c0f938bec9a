import type { Queryable } from '../../shared/db/db.js';
import { WebhookError } from './webhook-error.js';
import { postWebhook, type WebhookPostOptions, type WebhookPostResult } from './webhook-post.js';
import { webhookSignature } from './webhook-secret.js';

export interface DeliveryOptions extends WebhookPostOptions {
  /** An endpoint whose every attempt has failed for this long is disabled (default: a day). */
  disableAfterMs: number;
  /** Whether this is the last attempt the queue will make (then a failure is final). */
  lastAttempt: boolean;
  /** Default new Date(); tests move it. */
  now?: Date;
  /** Default postWebhook. */
  post?: typeof postWebhook;
}

/**
 * - `delivered`: the receiver answered 2xx;
 * - `retry`: it did not; the queue tries again after its backoff;
 * - `failed`: it did not, and this was the last attempt, or the endpoint is now disabled;
 * - `gone`: nothing to do (delivered or given up before, the endpoint deleted or disabled).
 */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'gone';

export interface DeliveryAttempt {
  outcome: DeliveryOutcome;
  status?: number;
  /** What the endpoint's owner reads (recorded on the delivery and the endpoint). */
  error?: string;
  /** Why the address guard refused, for the server's log only (never recorded). */
  detail?: string;
}

interface DeliveryRow {
  id: string;
  message_id: string;
  body: string;
  created_at: Date;
  delivered_at: Date | null;
  failed_at: Date | null;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_current: boolean;
  disabled_at: Date | null;
}

/**
 * Makes one attempt at one delivery: signs the body with the endpoint's secrets (the rotated-out
 * one too while it counts), POSTs it with the Standard Webhooks headers, and records the attempt
 * on the delivery and the endpoint's health. The webhook-id is the delivery's, the same on every
 * attempt, so a receiver drops repeats by it; webhook-timestamp is the attempt's own time (the
 * receiver's replay window applies to the attempt, not to when the event happened).
 */
export async function attemptWebhookDelivery(
  db: Queryable,
  deliveryId: string,
  options: DeliveryOptions,
): Promise<DeliveryAttempt> {
  const now = options.now ?? new Date();
  const r = await db.query<DeliveryRow>(
    `SELECT d.id::text, d.message_id, d.body, d.created_at, d.delivered_at, d.failed_at,
            e.id::text AS endpoint_id, e.url, e.secret, e.previous_secret,
            coalesce(e.previous_secret_expires_at > $2, false) AS previous_current, e.disabled_at
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = $1`,
    [deliveryId, now],
  );
  const d = r.rows[0];
  if (!d || d.delivered_at || d.failed_at) return { outcome: 'gone' };
  if (d.disabled_at) {
    await giveUp(db, deliveryId, 'the endpoint is disabled');
    return { outcome: 'gone' };
  }
  const secrets = [
    d.secret,
    ...(d.previous_secret && d.previous_current ? [d.previous_secret] : []),
  ];
  const headers = {
    'webhook-id': d.message_id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': webhookSignature(secrets, d.message_id, now, d.body),
  };
  let result: WebhookPostResult;
  let detail: string | undefined;
  try {
    result = await (options.post ?? postWebhook)(d.url, headers, d.body, options);
  } catch (err) {
    if (!(err instanceof WebhookError)) throw err;
    result = { error: err.message };
    detail = err.detail;
  }
  const ok = 'status' in result && result.status >= 200 && result.status < 300;
  const status = 'status' in result ? result.status : null;
  const error = ok
    ? null
    : 'error' in result
      ? result.error.slice(0, 500)
      : `the endpoint answered ${result.status}`;
  await db.query(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, last_attempt_at = $2::timestamptz, last_status = $3,
            last_error = $4, delivered_at = CASE WHEN $5::boolean THEN $2::timestamptz END
      WHERE id = $1`,
    [deliveryId, now, status, error, ok],
  );
  if (ok) {
    await db.query(
      `UPDATE webhook_endpoints SET failing_since = NULL, last_success_at = $2, last_error = NULL
        WHERE id = $1`,
      [d.endpoint_id, now],
    );
    return { outcome: 'delivered', status: status! };
  }
  const failure = { ...(status !== null && { status }), error: error!, ...(detail && { detail }) };
  const health = await db.query<{ failing_since: Date }>(
    `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2::timestamptz),
            last_error = $3
      WHERE id = $1 RETURNING failing_since`,
    [d.endpoint_id, now, error],
  );
  const failingSince = health.rows[0]?.failing_since;
  if (failingSince && now.getTime() - failingSince.getTime() >= options.disableAfterMs) {
    await disableEndpoint(
      db,
      d.endpoint_id,
      `every delivery has failed since ${failingSince.toISOString()}; last: ${error}`,
    );
    return { outcome: 'failed', ...failure };
  }
  if (options.lastAttempt) {
    await giveUp(db, deliveryId, `attempts used up; last: ${error}`);
    return { outcome: 'failed', ...failure };
  }
  return { outcome: 'retry', ...failure };
}

async function giveUp(db: Queryable, deliveryId: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET failed_at = now(), last_error = coalesce(last_error, $2)
      WHERE id = $1 AND delivered_at IS NULL AND failed_at IS NULL`,
    [deliveryId, reason],
  );
}

/** Disables an endpoint (its owner sees why) and gives up its deliveries still to make. */
async function disableEndpoint(db: Queryable, endpointId: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = $2
      WHERE id = $1 AND disabled_at IS NULL`,
    [endpointId, reason],
  );
  await db.query(
    `UPDATE webhook_deliveries SET failed_at = now(),
            last_error = coalesce(last_error, 'the endpoint is disabled')
      WHERE endpoint_id = $1 AND delivered_at IS NULL AND failed_at IS NULL`,
    [endpointId],
  );
}
