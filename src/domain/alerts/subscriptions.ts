import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../../shared/db/db.js';
import { findEmuId } from '../emus/emu-registry.js';
import { MalformedTrainCodeError, normalizeTrainCode } from '../trains/train-code.js';
import { WebhookError } from '../webhooks/webhook-error.js';
import { checkWebhookUrl } from '../webhooks/webhook-url.js';
import { AlertError } from './alert-error.js';
import {
  ALERT_CHANNELS,
  ALERT_EVENTS,
  ALERT_KINDS,
  type AlertChannel,
  type AlertEvent,
  type AlertKind,
} from './alert-events.js';

/** The browser's PushSubscription as JSON (PushSubscription.toJSON()). */
export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface SubscriptionInput {
  kind: unknown;
  code: unknown;
  channel: unknown;
  address?: unknown;
  subscription?: unknown;
  /** The caller's webhook endpoint (whe_...) for channel 'webhook'. */
  webhook?: unknown;
  events?: unknown;
  digest?: unknown;
}

export interface AlertSubscription {
  id: string;
  kind: AlertKind;
  code: string;
  channel: AlertChannel;
  /** The e-mail address, the push endpoint's origin, or the webhook's id. */
  target: string;
  events: AlertEvent[];
  digest: boolean;
  status: 'unverified' | 'active' | 'dropped';
  droppedReason: string | null;
  createdAt: Date;
}

export interface CreateOptions {
  maxPerUser: number;
  /** WEBHOOK_ALLOW_LOOPBACK: push endpoints on the loopback, for development and tests. */
  allowLoopback: boolean;
}

export interface CreatedSubscription {
  subscription: AlertSubscription;
  /** For an e-mail: the token of the verification link (sent by mail, never shown by the API). */
  verificationToken?: string;
  unsubscribeToken: string;
}

const MAX_ADDRESS = 254;
// One @, no spaces or angle brackets or commas (a header injection or a list), a dot in the domain.
const EMAIL = /^[^\s@<>,;"()\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$/;
const BASE64URL = /^[A-Za-z0-9_-]+=*$/;

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

const UNSUBSCRIBE_KEY = 'alert_unsubscribe_hmac_key';

/** The server's key the unsubscribe links are made with (server_secrets; made once). */
async function unsubscribeKey(db: Queryable): Promise<Buffer> {
  await db.query(
    'INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
    [UNSUBSCRIBE_KEY, randomBytes(32)],
  );
  const r = await db.query<{ value: Buffer }>('SELECT value FROM server_secrets WHERE name = $1', [
    UNSUBSCRIBE_KEY,
  ]);
  return Buffer.from(r.rows[0]!.value);
}

/**
 * The token of a subscription's unsubscribe link: an HMAC of its id under the server's key, so
 * every alert can carry it while the table keeps only its hash (a copy of the subscriptions
 * alone unsubscribes nobody).
 */
export async function unsubscribeTokenOf(db: Queryable, publicId: string): Promise<string> {
  return createHmac('sha256', await unsubscribeKey(db))
    .update(`unsubscribe:${publicId}`)
    .digest('base64url');
}

const invalid = (field: string, message: string) =>
  new AlertError('alert_invalid_input', `${field}: ${message}`, field);

function decodedLength(text: unknown, field: string): number {
  if (typeof text !== 'string' || text.length > 200 || !BASE64URL.test(text))
    throw invalid(field, 'expected base64url text');
  return Buffer.from(text, 'base64url').length;
}

/** Checks a PushSubscription: an endpoint the dispatcher may reach, keys of the right sizes. */
export function checkPushSubscription(
  value: unknown,
  allowLoopback: boolean,
): PushSubscriptionJson {
  if (typeof value !== 'object' || value === null)
    throw invalid('subscription', 'expected the PushSubscription JSON {endpoint, keys}');
  const { endpoint, keys } = value as { endpoint?: unknown; keys?: unknown };
  if (typeof endpoint !== 'string') throw invalid('subscription.endpoint', 'expected a URL');
  try {
    checkWebhookUrl(endpoint, allowLoopback);
  } catch (err) {
    if (!(err instanceof WebhookError)) throw err;
    throw new AlertError(
      err.code === 'webhook_address_refused' ? 'alert_address_refused' : 'alert_invalid_input',
      `subscription.endpoint: ${err.message.replace(/^url /, '')}`,
      'subscription.endpoint',
    );
  }
  if (typeof keys !== 'object' || keys === null)
    throw invalid('subscription.keys', 'expected {p256dh, auth}');
  const { p256dh, auth } = keys as { p256dh?: unknown; auth?: unknown };
  // An uncompressed P-256 point, and the 16-byte authentication secret (RFC 8291).
  if (decodedLength(p256dh, 'subscription.keys.p256dh') !== 65)
    throw invalid('subscription.keys.p256dh', 'expected a 65-byte P-256 public key');
  if (decodedLength(auth, 'subscription.keys.auth') !== 16)
    throw invalid('subscription.keys.auth', 'expected a 16-byte secret');
  return { endpoint, keys: { p256dh: p256dh as string, auth: auth as string } };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw invalid(field, `expected one of ${allowed.join(', ')}`);
  return value as T;
}

async function canonicalCode(
  db: Queryable,
  kind: AlertKind,
  code: unknown,
): Promise<{ code: string; emuId: number | null }> {
  if (typeof code !== 'string' || code.trim() === '' || code.length > 40)
    throw invalid('code', 'expected a train code, unit code or station name');
  if (kind === 'train') {
    try {
      return { code: normalizeTrainCode(code), emuId: null };
    } catch (err) {
      if (err instanceof MalformedTrainCodeError) throw invalid('code', err.message);
      throw err;
    }
  }
  if (kind === 'emu') {
    const id = await findEmuId(db, code);
    if (id === undefined) throw invalid('code', `no EMU is known as ${JSON.stringify(code)}`);
    const r = await db.query<{ code: string }>('SELECT code FROM emus WHERE id = $1', [id]);
    return { code: r.rows[0]!.code, emuId: id };
  }
  const name = code.trim();
  const r = await db.query('SELECT 1 FROM timetable_stops WHERE station_name = $1 LIMIT 1', [name]);
  if (r.rowCount === 0)
    throw invalid('code', `no train calls at a station ${JSON.stringify(name)}`);
  return { code: name, emuId: null };
}

function checkEvents(kind: AlertKind, events: unknown): AlertEvent[] {
  const allowed: readonly AlertEvent[] = ALERT_EVENTS[kind];
  if (events === undefined) return [...allowed];
  if (!Array.isArray(events) || events.length === 0 || events.length > allowed.length)
    throw invalid('events', `expected a list of ${allowed.join(', ')}`);
  for (const [i, e] of events.entries())
    if (!allowed.includes(e as AlertEvent))
      throw invalid(`events[${i}]`, `a ${kind} has the events ${allowed.join(', ')}`);
  return [...new Set(events as AlertEvent[])];
}

interface Row {
  public_id: string;
  kind: AlertKind;
  code: string;
  channel: AlertChannel;
  address: string | null;
  push_subscription: PushSubscriptionJson | null;
  webhook_public_id: string | null;
  events: AlertEvent[];
  digest: boolean;
  status: AlertSubscription['status'];
  dropped_reason: string | null;
  created_at: Date;
}

const SELECT = `SELECT s.public_id, s.kind, s.code, s.channel, s.address, s.push_subscription,
    w.public_id AS webhook_public_id, s.events, s.digest, s.status, s.dropped_reason, s.created_at
  FROM alert_subscriptions s LEFT JOIN webhook_endpoints w ON w.id = s.webhook_endpoint_id`;

function fromRow(r: Row): AlertSubscription {
  const target =
    r.address ??
    r.webhook_public_id ??
    (r.push_subscription ? new URL(r.push_subscription.endpoint).origin : '');
  return {
    id: r.public_id,
    kind: r.kind,
    code: r.code,
    channel: r.channel,
    target,
    events: r.events,
    digest: r.digest,
    status: r.status,
    droppedReason: r.dropped_reason,
    createdAt: r.created_at,
  };
}

/**
 * Subscribes a user. An e-mail subscription starts unverified (its verification token goes in
 * the first mail; nothing else is sent before it is followed); push and webhook ones are active
 * at once (the browser's permission, the user's own endpoint). At most `maxPerUser` per user,
 * counted under the user's row lock so two requests at once cannot both take the last place.
 */
export async function createSubscription(
  db: Db,
  userId: string,
  input: SubscriptionInput,
  options: CreateOptions,
): Promise<CreatedSubscription> {
  const kind = oneOf(input.kind, ALERT_KINDS, 'kind');
  const channel = oneOf(input.channel, ALERT_CHANNELS, 'channel');
  const events = checkEvents(kind, input.events);
  if (input.digest !== undefined && typeof input.digest !== 'boolean')
    throw invalid('digest', 'expected true or false');
  const digest = input.digest === true;
  if (digest && channel !== 'email') throw invalid('digest', 'only e-mail alerts have a digest');
  let address: string | null = null;
  let push: PushSubscriptionJson | null = null;
  let webhookId: string | null = null;
  if (channel === 'email') {
    if (typeof input.address !== 'string' || input.address.length > MAX_ADDRESS)
      throw invalid('address', 'expected an e-mail address');
    if (!EMAIL.test(input.address.trim())) throw invalid('address', 'not an e-mail address');
    address = input.address.trim();
  } else if (channel === 'webpush') {
    push = checkPushSubscription(input.subscription, options.allowLoopback);
  } else {
    if (typeof input.webhook !== 'string' || input.webhook.length > 60)
      throw invalid('webhook', 'expected the id (whe_...) of one of your webhook endpoints');
    const r = await db.query<{ id: string }>(
      'SELECT id::text FROM webhook_endpoints WHERE public_id = $1 AND user_id = $2',
      [input.webhook, userId],
    );
    if (r.rowCount === 0) throw invalid('webhook', `you have no webhook ${input.webhook}`);
    webhookId = r.rows[0]!.id;
  }
  const target = await canonicalCode(db, kind, input.code);
  const verificationToken = channel === 'email' ? newToken() : undefined;
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    // PUT of what the user already follows by the same channel and address: the events and
    // digest are replaced (and, unverified, a new link mailed), no second subscription made.
    const same = await tx.query<{ public_id: string; status: string }>(
      `SELECT public_id, status FROM alert_subscriptions
        WHERE user_id = $1 AND kind = $2 AND code = $3 AND channel = $4 AND status <> 'dropped'
          AND address IS NOT DISTINCT FROM $5
          AND (push_subscription ->> 'endpoint') IS NOT DISTINCT FROM $6
          AND webhook_endpoint_id IS NOT DISTINCT FROM $7
        FOR UPDATE`,
      [userId, kind, target.code, channel, address, push?.endpoint ?? null, webhookId],
    );
    if (same.rows[0]) {
      const publicId = same.rows[0].public_id;
      const unverified = same.rows[0].status === 'unverified';
      await tx.query(
        `UPDATE alert_subscriptions SET events = $2, digest = $3, push_subscription = $4,
           verification_token_hash = CASE WHEN $5::bytea IS NULL THEN verification_token_hash
                                          ELSE $5::bytea END
         WHERE public_id = $1`,
        [
          publicId,
          events,
          digest,
          push ? JSON.stringify(push) : null,
          unverified && verificationToken ? hashToken(verificationToken) : null,
        ],
      );
      const row = await tx.query<Row>(`${SELECT} WHERE s.public_id = $1`, [publicId]);
      return {
        subscription: fromRow(row.rows[0]!),
        verificationToken: unverified ? verificationToken : undefined,
        unsubscribeToken: await unsubscribeTokenOf(tx, publicId),
      };
    }
    const count = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = $1 AND status <> 'dropped'`,
      [userId],
    );
    if (count.rows[0]!.n >= options.maxPerUser)
      throw new AlertError(
        'alert_limit_reached',
        `you have ${options.maxPerUser} subscriptions, as many as one user may; delete one first`,
      );
    const publicId = `als_${randomBytes(12).toString('base64url')}`;
    const unsubscribeToken = await unsubscribeTokenOf(tx, publicId);
    await tx.query(
      `INSERT INTO alert_subscriptions (public_id, user_id, kind, code, emu_id, channel, address,
         push_subscription, webhook_endpoint_id, events, digest, status, verification_token_hash,
         unsubscribe_token_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        publicId,
        userId,
        kind,
        target.code,
        target.emuId,
        channel,
        address,
        push ? JSON.stringify(push) : null,
        webhookId,
        events,
        digest,
        verificationToken ? 'unverified' : 'active',
        verificationToken ? hashToken(verificationToken) : null,
        hashToken(unsubscribeToken),
      ],
    );
    const row = await tx.query<Row>(`${SELECT} WHERE s.public_id = $1`, [publicId]);
    return { subscription: fromRow(row.rows[0]!), verificationToken, unsubscribeToken };
  });
}

export async function listSubscriptions(
  db: Queryable,
  userId: string,
): Promise<AlertSubscription[]> {
  const r = await db.query<Row>(`${SELECT} WHERE s.user_id = $1 ORDER BY s.id DESC`, [userId]);
  return r.rows.map(fromRow);
}

/** Deletes one of the user's subscriptions; another user's id is not found, as an unknown one. */
export async function deleteSubscription(
  db: Queryable,
  userId: string,
  publicId: string,
): Promise<void> {
  const r = await db.query(
    'DELETE FROM alert_subscriptions WHERE public_id = $1 AND user_id = $2',
    [publicId, userId],
  );
  if (r.rowCount === 0)
    throw new AlertError('alert_not_found', `you have no subscription ${publicId}`);
}

/** Follows a verification link: the subscription becomes active. False for an unknown token. */
export async function verifySubscription(
  db: Queryable,
  token: string,
): Promise<AlertSubscription | undefined> {
  const r = await db.query<{ public_id: string }>(
    `UPDATE alert_subscriptions SET status = 'active', verified_at = now(),
       verification_token_hash = NULL
     WHERE verification_token_hash = $1 AND status = 'unverified' RETURNING public_id`,
    [hashToken(token)],
  );
  if (r.rowCount === 0) return undefined;
  const row = await db.query<Row>(`${SELECT} WHERE s.public_id = $1`, [r.rows[0]!.public_id]);
  return fromRow(row.rows[0]!);
}

/** The subscription an unsubscribe link stands for (to show before confirming). */
export async function subscriptionOfUnsubscribeToken(
  db: Queryable,
  token: string,
): Promise<AlertSubscription | undefined> {
  const r = await db.query<Row>(`${SELECT} WHERE s.unsubscribe_token_hash = $1`, [
    hashToken(token),
  ]);
  return r.rows[0] ? fromRow(r.rows[0]) : undefined;
}

/** Follows an unsubscribe link: the subscription is deleted. False for an unknown token. */
export async function unsubscribe(db: Queryable, token: string): Promise<boolean> {
  const r = await db.query('DELETE FROM alert_subscriptions WHERE unsubscribe_token_hash = $1', [
    hashToken(token),
  ]);
  return r.rowCount > 0;
}
