import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../../shared/db/db.js';
import { WebhookError } from './webhook-error.js';
import { newWebhookSecret } from './webhook-secret.js';
import { checkWebhookUrl } from './webhook-url.js';

/** The events an endpoint can ask for. */
export const WEBHOOK_EVENTS = ['day.rebuilt', 'export.ready', 'records.changed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Most trains or EMUs one endpoint may filter records.changed on. */
export const MAX_WEBHOOK_FILTER = 200;

/** Who owns an endpoint: a user, and the OAuth app that registered it for them, if one did. */
export interface WebhookOwner {
  userId: string;
  /** An OAuth app sees and manages only the endpoints it registered; null: the user's own. */
  oauthClientId: string | null;
}

export interface WebhookEndpoint {
  /** whe_...: what the API and pages show. */
  id: string;
  userId: string;
  oauthClientId: string | null;
  url: string;
  events: WebhookEvent[];
  trains: string[];
  emuIds: number[];
  createdAt: Date;
  failingSince: Date | null;
  lastError: string | null;
  lastSuccessAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

export interface NewWebhookEndpoint {
  url: string;
  events: readonly string[];
  /** Canonical train codes (the caller normalises them). */
  trains?: readonly string[];
  emuIds?: readonly number[];
}

export interface WebhookEndpointOptions {
  /** WEBHOOK_ALLOW_LOOPBACK: http and the loopback allowed (development and tests). */
  allowLoopback: boolean;
  /** WEBHOOK_MAX_ENDPOINTS_PER_USER: endpoints one user may have, their OAuth apps' included. */
  maxEndpoints: number;
}

/** Each column named as its WebhookEndpoint field, in the interface's order. */
const COLUMNS = `public_id AS id, user_id::text AS "userId", oauth_client_id AS "oauthClientId", url,
  events, trains, emu_ids AS "emuIds", created_at AS "createdAt", failing_since AS "failingSince",
  last_error AS "lastError", last_success_at AS "lastSuccessAt", disabled_at AS "disabledAt",
  disabled_reason AS "disabledReason"`;

function checkEvents(events: readonly string[]): WebhookEvent[] {
  if (events.length === 0)
    throw new WebhookError(
      'webhook_invalid_event',
      'events must name at least one event',
      'events',
    );
  const known = new Set<string>(WEBHOOK_EVENTS);
  const unknown = events.find((e) => !known.has(e));
  if (unknown !== undefined)
    throw new WebhookError(
      'webhook_invalid_event',
      `events: ${JSON.stringify(unknown.slice(0, 40))} is not an event; known: ${WEBHOOK_EVENTS.join(', ')}`,
      'events',
    );
  return WEBHOOK_EVENTS.filter((e) => events.includes(e));
}

/**
 * Registers an endpoint; its secret is returned this once (only its holder can sign). A user
 * has at most `maxEndpoints` (each event becomes a delivery per endpoint: endpoints without a
 * bound would multiply one event into a flood at an address of the user's choosing).
 */
export async function createWebhookEndpoint(
  db: Db,
  owner: WebhookOwner,
  input: NewWebhookEndpoint,
  options: WebhookEndpointOptions,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = checkWebhookUrl(input.url, options.allowLoopback);
  const events = checkEvents(input.events);
  const trains = [...new Set(input.trains ?? [])];
  const emuIds = [...new Set(input.emuIds ?? [])];
  for (const [field, list] of [
    ['trains', trains],
    ['emus', emuIds],
  ] as const) {
    if (list.length > MAX_WEBHOOK_FILTER)
      throw new WebhookError(
        'webhook_invalid_filter',
        `${field}: at most ${MAX_WEBHOOK_FILTER} per endpoint`,
        field,
      );
    if (list.length > 0 && !events.includes('records.changed'))
      throw new WebhookError(
        'webhook_invalid_filter',
        `${field} filters records.changed, which events does not ask for`,
        field,
      );
  }
  if (events.includes('records.changed') && trains.length === 0 && emuIds.length === 0)
    throw new WebhookError(
      'webhook_invalid_filter',
      'records.changed needs trains or emus to follow (day.rebuilt tells of every day)',
      'trains',
    );
  const secret = newWebhookSecret();
  const endpoint = await db.transaction(async (tx) => {
    // One user's registrations queue here, so two at once cannot both pass the bound.
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [owner.userId]);
    const count = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1',
      [owner.userId],
    );
    if (count.rows[0]!.n >= options.maxEndpoints)
      throw new WebhookError(
        'webhook_limit_reached',
        `at most ${options.maxEndpoints} webhook endpoints per user; delete one you no longer use`,
      );
    const r = await tx.query<WebhookEndpoint>(
      `INSERT INTO webhook_endpoints (public_id, user_id, oauth_client_id, url, events, trains,
                                      emu_ids, secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        `whe_${randomBytes(12).toString('base64url')}`,
        owner.userId,
        owner.oauthClientId,
        url.href,
        events,
        trains,
        emuIds,
        secret,
      ],
    );
    return r.rows[0]!;
  });
  return { endpoint, secret };
}

const OWNED = `user_id = $1 AND ($2::text IS NULL OR oauth_client_id = $2)`;

/** The owner's endpoints, newest first (an OAuth app: only those it registered). */
export async function listWebhookEndpoints(
  q: Queryable,
  owner: WebhookOwner,
): Promise<WebhookEndpoint[]> {
  const r = await q.query<WebhookEndpoint>(
    // The table's id: "id" alone would be the output column (the public id).
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE ${OWNED} ORDER BY webhook_endpoints.id DESC`,
    [owner.userId, owner.oauthClientId],
  );
  return r.rows;
}

/** Deletes an endpoint of the owner (its pending deliveries go with it). */
export async function deleteWebhookEndpoint(
  q: Queryable,
  owner: WebhookOwner,
  id: string,
): Promise<WebhookEndpoint> {
  const r = await q.query<WebhookEndpoint>(
    `DELETE FROM webhook_endpoints WHERE public_id = $3 AND ${OWNED} RETURNING ${COLUMNS}`,
    [owner.userId, owner.oauthClientId, id],
  );
  if (!r.rows[0]) throw new WebhookError('webhook_not_found', `you have no webhook ${id}`);
  return r.rows[0];
}

/**
 * A new secret for an endpoint, returned this once. The old one keeps signing beside it for
 * `overlapSeconds` (each message then carries both signatures), so the receiver can switch
 * without a delivery failing. Rotating also re-enables a disabled endpoint: its owner has
 * looked at it.
 */
export async function rotateWebhookSecret(
  q: Queryable,
  owner: WebhookOwner,
  id: string,
  overlapSeconds: number,
  now: Date = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  // The overlap is counted on the clock the deliveries sign with (attemptWebhookDelivery's
  // `now`), not the database's: two clocks apart would cut the overlap short or stretch it.
  const r = await q.query<WebhookEndpoint>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, secret = $4,
            previous_secret_expires_at = $6::timestamptz + make_interval(secs => $5),
            disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
      WHERE public_id = $3 AND ${OWNED} RETURNING ${COLUMNS}`,
    [owner.userId, owner.oauthClientId, id, secret, overlapSeconds, now],
  );
  if (!r.rows[0]) throw new WebhookError('webhook_not_found', `you have no webhook ${id}`);
  return { endpoint: r.rows[0], secret };
}

export interface WebhookDeliverySummary {
  messageId: string;
  eventType: string;
  createdAt: Date;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

/** The latest deliveries to an endpoint of the owner (what its owner looks at when it fails). */
export async function recentWebhookDeliveries(
  q: Queryable,
  owner: WebhookOwner,
  id: string,
  limit = 20,
): Promise<WebhookDeliverySummary[]> {
  const r = await q.query<WebhookDeliverySummary>(
    `SELECT d.message_id AS "messageId", d.event_type AS "eventType", d.created_at AS "createdAt",
            d.attempts, d.last_status AS "lastStatus", d.last_error AS "lastError",
            d.delivered_at AS "deliveredAt", d.failed_at AS "failedAt"
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE e.public_id = $3 AND e.user_id = $1 AND ($2::text IS NULL OR e.oauth_client_id = $2)
      ORDER BY d.id DESC LIMIT $4`,
    [owner.userId, owner.oauthClientId, id, limit],
  );
  return r.rows;
}
