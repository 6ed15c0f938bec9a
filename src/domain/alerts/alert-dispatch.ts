import type { Db, Queryable } from '../../shared/db/db.js';
import { readChangeHead, type ChangeCursor } from '../records/record-changes.js';
import { readFrom } from '../webhooks/webhook-dispatch.js';
import type { AlertData, AlertKind, AlertEvent, AlertChannel } from './alert-events.js';
import { matchChanges, type ActiveSubscription, type MatchedAlert } from './alert-matching.js';
import type { PushSubscriptionJson } from './subscriptions.js';

export interface AlertDispatchOptions {
  now?: Date;
  maxChanges?: number;
  /** ALERT_DIGEST_HOUR: the hour (Shanghai) a day's digest goes out. */
  digestHour: number;
}

/**
 * Turns the change feed's new changes (and the outbox's depot moves) into delivery rows, in one
 * transaction with moving the dispatcher's place: dispatchers in several workers take turns on
 * the place's row lock, and the (subscription, event key) unique key keeps an event seen twice
 * (a rebuild, a place moved back) to one delivery.
 */
export async function dispatchAlerts(
  db: Db,
  options: AlertDispatchOptions,
): Promise<{ written: number; more: boolean }> {
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const state = await tx.query<{ position: string; record_id: string }>(
      'SELECT position::text, record_id::text FROM alert_dispatch_state FOR UPDATE',
    );
    const from: ChangeCursor = {
      position: BigInt(state.rows[0]!.position),
      recordId: BigInt(state.rows[0]!.record_id),
    };
    const subs = await activeSubscriptions(tx);
    const matched: MatchedAlert[] = [];
    let next: ChangeCursor;
    let more = false;
    if (subs.length === 0) {
      next = await readChangeHead(tx);
    } else {
      const page = await readFrom(tx, from, options.maxChanges ?? 5_000);
      next = page.next;
      more = page.more;
      matched.push(...(await matchChanges(tx, page.changes, subs)));
    }
    const moves = await tx.query<{
      id: string;
      data: { emuId: number; emuCode: string; from: string; to: string };
    }>(
      `DELETE FROM alert_outbox WHERE id IN (
         SELECT id FROM alert_outbox ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED)
       RETURNING id::text, data`,
    );
    for (const m of moves.rows)
      for (const s of subs)
        if (s.kind === 'emu' && s.emuId === m.data.emuId && s.events.includes('emu.movedDepot'))
          matched.push({
            subscriptionId: s.id,
            eventKey: `emu.movedDepot:${m.id}`,
            digest: s.digest,
            data: {
              event: 'emu.movedDepot',
              kind: 'emu',
              code: s.code,
              emuCode: m.data.emuCode,
              from: m.data.from,
              to: m.data.to,
            },
          });
    const written = await insertDeliveries(tx, matched, now, options.digestHour);
    await tx.query('UPDATE alert_dispatch_state SET position = $1, record_id = $2', [
      next.position.toString(),
      next.recordId.toString(),
    ]);
    return { written, more };
  });
}

async function activeSubscriptions(tx: Queryable): Promise<ActiveSubscription[]> {
  const r = await tx.query<{
    id: string;
    kind: AlertKind;
    code: string;
    emu_id: number | null;
    events: AlertEvent[];
    digest: boolean;
  }>(
    `SELECT id::text, kind, code, emu_id, events, digest FROM alert_subscriptions
      WHERE status = 'active' ORDER BY id`,
  );
  return r.rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    code: row.code,
    emuId: row.emu_id,
    events: row.events,
    digest: row.digest,
  }));
}

/** The next time the digest hour strikes in Shanghai (UTC+8, no daylight saving) after `now`. */
export function nextDigestAt(now: Date, hour: number): Date {
  const shanghai = new Date(now.getTime() + 8 * 3_600_000);
  const at =
    Date.UTC(shanghai.getUTCFullYear(), shanghai.getUTCMonth(), shanghai.getUTCDate(), hour) -
    8 * 3_600_000;
  return new Date(at > now.getTime() ? at : at + 86_400_000);
}

async function insertDeliveries(
  tx: Queryable,
  matched: readonly MatchedAlert[],
  now: Date,
  digestHour: number,
): Promise<number> {
  if (matched.length === 0) return 0;
  const digestAt = nextDigestAt(now, digestHour);
  const r = await tx.query(
    `INSERT INTO alert_deliveries (subscription_id, event_key, event_type, data, due_at)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[])
     ON CONFLICT (subscription_id, event_key) DO NOTHING`,
    [
      matched.map((m) => m.subscriptionId),
      matched.map((m) => m.eventKey),
      matched.map((m) => m.data.event),
      matched.map((m) => JSON.stringify(m.data)),
      matched.map((m) => (m.digest ? digestAt : now)),
    ],
  );
  return r.rowCount;
}

/** A subscription's due alerts, claimed by one sender. */
export interface ClaimedAlerts {
  subscription: {
    id: string;
    publicId: string;
    channel: AlertChannel;
    address: string | null;
    push: PushSubscriptionJson | null;
    webhookEndpointId: string | null;
    digest: boolean;
  };
  deliveries: { id: string; data: AlertData; attempts: number }[];
}

/**
 * Claims due deliveries of active subscriptions (FOR UPDATE SKIP LOCKED: another sender skips
 * the rows this one takes) and leases them for `leaseMs` by moving their due time, committed
 * before anything is sent: a second sender then sees them as not due, and a sender that dies
 * mid-way leaves them to be tried again when the lease ends. A digest subscription's due alerts
 * go together, one message; every other alert goes alone.
 */
export async function claimDueAlerts(
  db: Db,
  options: { now?: Date; limit?: number; leaseMs: number },
): Promise<ClaimedAlerts[]> {
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const r = await tx.query<{
      id: string;
      data: AlertData;
      attempts: number;
      subscription_id: string;
      public_id: string;
      channel: AlertChannel;
      address: string | null;
      push_subscription: PushSubscriptionJson | null;
      webhook_endpoint_id: string | null;
      digest: boolean;
    }>(
      `SELECT d.id::text, d.data, d.attempts, s.id::text AS subscription_id, s.public_id, s.channel,
              s.address, s.push_subscription, s.webhook_endpoint_id::text, s.digest
         FROM alert_deliveries d JOIN alert_subscriptions s ON s.id = d.subscription_id
        WHERE d.sent_at IS NULL AND d.failed_at IS NULL AND d.due_at <= $1 AND s.status = 'active'
        ORDER BY d.id LIMIT $2
        FOR UPDATE OF d SKIP LOCKED`,
      [now, options.limit ?? 100],
    );
    if (r.rows.length === 0) return [];
    await tx.query(
      `UPDATE alert_deliveries SET due_at = $2, attempts = attempts + 1 WHERE id = ANY($1::bigint[])`,
      [r.rows.map((row) => row.id), new Date(now.getTime() + options.leaseMs)],
    );
    const out: ClaimedAlerts[] = [];
    const digests = new Map<string, ClaimedAlerts>();
    for (const row of r.rows) {
      const delivery = { id: row.id, data: row.data, attempts: row.attempts + 1 };
      const existing = row.digest ? digests.get(row.subscription_id) : undefined;
      if (existing) {
        existing.deliveries.push(delivery);
        continue;
      }
      const claimed: ClaimedAlerts = {
        subscription: {
          id: row.subscription_id,
          publicId: row.public_id,
          channel: row.channel,
          address: row.address,
          push: row.push_subscription,
          webhookEndpointId: row.webhook_endpoint_id,
          digest: row.digest,
        },
        deliveries: [delivery],
      };
      if (row.digest) digests.set(row.subscription_id, claimed);
      out.push(claimed);
    }
    return out;
  });
}

/** What a channel made of one send. */
export type SendOutcome =
  | { outcome: 'sent' }
  | { outcome: 'retry'; error: string }
  /** The address or push subscription is gone for good: the subscription is dropped. */
  | { outcome: 'dead'; error: string };

/**
 * Records a send: sent; or retried after JOB_BACKOFF_MS doubling per attempt, given up after
 * `maxAttempts`; or, for a dead address, the subscription dropped with its pending alerts.
 */
export async function recordOutcome(
  db: Db,
  claimed: ClaimedAlerts,
  result: SendOutcome,
  options: { now?: Date; backoffMs: number; maxAttempts: number },
): Promise<void> {
  const now = options.now ?? new Date();
  const ids = claimed.deliveries.map((d) => d.id);
  if (result.outcome === 'sent') {
    await db.query(
      'UPDATE alert_deliveries SET sent_at = $2, last_error = NULL WHERE id = ANY($1::bigint[])',
      [ids, now],
    );
    return;
  }
  const error = result.error.slice(0, 500);
  if (result.outcome === 'dead') {
    await db.transaction(async (tx) => {
      await tx.query(
        `UPDATE alert_subscriptions SET status = 'dropped', dropped_reason = $2 WHERE id = $1`,
        [claimed.subscription.id, error],
      );
      await tx.query(
        `UPDATE alert_deliveries SET failed_at = $2, last_error = $3
          WHERE subscription_id = $1 AND sent_at IS NULL AND failed_at IS NULL`,
        [claimed.subscription.id, now, error],
      );
    });
    return;
  }
  const attempts = Math.max(...claimed.deliveries.map((d) => d.attempts));
  if (attempts >= options.maxAttempts) {
    await db.query(
      'UPDATE alert_deliveries SET failed_at = $2, last_error = $3 WHERE id = ANY($1::bigint[])',
      [ids, now, error],
    );
    return;
  }
  const due = new Date(now.getTime() + options.backoffMs * 2 ** (attempts - 1));
  await db.query(
    'UPDATE alert_deliveries SET due_at = $2, last_error = $3 WHERE id = ANY($1::bigint[])',
    [ids, due, error],
  );
}
