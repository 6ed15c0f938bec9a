import type { Db, Queryable } from '../../shared/db/db.js';
import {
  ChangeCursorExpiredError,
  readChangeHead,
  readRecordChanges,
  type ChangeCursor,
  type RecordChange,
} from '../records/record-changes.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';
import type { WebhookEvent } from './webhook-endpoints.js';
import { newMessageId } from './webhook-secret.js';

/**
 * Turns what happened into deliveries: the change feed's new changes (day.rebuilt per service
 * day a transaction changed, records.changed per endpoint following a train or unit among them)
 * and the outbox's rows (export.ready). One transaction reads from the dispatcher's place,
 * writes the delivery rows and moves the place past what it read, so each event becomes one
 * delivery per endpoint, whoever runs it and however often; dispatchers on several workers take
 * turns on the place's row lock.
 *
 * What one user's endpoints receive of one event is bounded (boundPerUser), so that endpoints
 * cannot multiply an event into a flood at one address: one delivery per URL (endpoints of one
 * user at the same URL share it), at most `maxDeliveriesPerEvent` in all.
 */
export interface DispatchOptions {
  /** Changes read per call at most (a first build writes ~12k); the rest wait for the next. */
  maxChanges?: number;
  /** The `timestamp` of the bodies (default now). */
  now?: Date;
  /** WEBHOOK_MAX_DELIVERIES_PER_EVENT: deliveries of one event to one user's endpoints at most. */
  maxDeliveriesPerEvent?: number;
}

export interface DispatchResult {
  /** Ids of the deliveries written (to hand to the delivery queue). */
  deliveryIds: string[];
  changesRead: number;
  exportsRead: number;
  /** Whether more changes were waiting past maxChanges. */
  more: boolean;
  /** Deliveries the per-user bound left out (another endpoint of the user at the same URL, or past the bound). */
  leftOut: number;
}

interface ActiveEndpoint {
  id: string;
  userId: string;
  url: string;
  events: WebhookEvent[];
  trains: Set<string>;
  emuIds: Set<number>;
}

interface PendingDelivery {
  endpointId: string;
  eventType: WebhookEvent;
  body: string;
}

const DEFAULT_MAX_CHANGES = 5_000;
const DEFAULT_MAX_DELIVERIES_PER_EVENT = 10;

/** One event's delivery to one endpoint, before the per-user bound. */
interface Candidate {
  endpoint: ActiveEndpoint;
  /** records.changed: the changes of the event the endpoint follows. */
  changes?: RecordChange[];
}

/**
 * The deliveries of one event that go out, in endpoint order (the oldest endpoint first): one per
 * user and URL (records.changed carries the changes every endpoint of the user at that URL
 * follows, in the event's order), at most `max` per user. The rest are counted in `leftOut`.
 */
function boundPerUser(
  candidates: readonly Candidate[],
  max: number,
  counter: { leftOut: number },
  order?: readonly RecordChange[],
): Candidate[] {
  const kept = new Map<string, Candidate>();
  const perUser = new Map<string, number>();
  for (const c of candidates) {
    const key = `${c.endpoint.userId} ${c.endpoint.url}`;
    const same = kept.get(key);
    if (same) {
      if (same.changes && c.changes && order) {
        const union = new Set([...same.changes, ...c.changes]);
        same.changes = order.filter((change) => union.has(change));
      }
      counter.leftOut++;
      continue;
    }
    const n = perUser.get(c.endpoint.userId) ?? 0;
    if (n >= max) {
      counter.leftOut++;
      continue;
    }
    perUser.set(c.endpoint.userId, n + 1);
    kept.set(key, { ...c });
  }
  return [...kept.values()];
}

export async function dispatchWebhookEvents(
  db: Db,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  const now = options.now ?? new Date();
  const max = options.maxChanges ?? DEFAULT_MAX_CHANGES;
  const perEvent = options.maxDeliveriesPerEvent ?? DEFAULT_MAX_DELIVERIES_PER_EVENT;
  const counter = { leftOut: 0 };
  return db.transaction(async (tx) => {
    const state = await tx.query<{ position: string; record_id: string }>(
      'SELECT position::text, record_id::text FROM webhook_dispatch_state FOR UPDATE',
    );
    const from: ChangeCursor = {
      position: BigInt(state.rows[0]!.position),
      recordId: BigInt(state.rows[0]!.record_id),
    };
    const endpoints = await activeEndpoints(tx);
    const pending: PendingDelivery[] = [];
    let next = from;
    let changesRead = 0;
    let more = false;
    if (endpoints.length === 0) {
      // Nobody listens: the place moves to the head without reading what is there.
      next = await readChangeHead(tx);
    } else {
      const page = await readFrom(tx, from, max);
      next = page.next;
      more = page.more;
      changesRead = page.changes.length;
      const codes = await emuCodesOf(tx, page.changes, endpoints);
      pending.push(
        ...changeDeliveries(page.changes, endpoints, codes, now, (c, order) =>
          boundPerUser(c, perEvent, counter, order),
        ),
      );
    }
    const exports = await tx.query<{ event_type: WebhookEvent; data: unknown }>(
      `DELETE FROM webhook_outbox WHERE id IN (
         SELECT id FROM webhook_outbox ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED)
       RETURNING event_type, data`,
    );
    for (const row of exports.rows) {
      const asking = endpoints.filter((e) => e.events.includes(row.event_type));
      for (const { endpoint } of boundPerUser(
        asking.map((endpoint) => ({ endpoint })),
        perEvent,
        counter,
      ))
        pending.push({
          endpointId: endpoint.id,
          eventType: row.event_type,
          body: body(row.event_type, now, row.data),
        });
    }
    const deliveryIds = await insertDeliveries(tx, pending);
    await tx.query('UPDATE webhook_dispatch_state SET position = $1, record_id = $2', [
      next.position.toString(),
      next.recordId.toString(),
    ]);
    return {
      deliveryIds,
      changesRead,
      exportsRead: exports.rowCount,
      more,
      leftOut: counter.leftOut,
    };
  });
}

async function activeEndpoints(tx: Queryable): Promise<ActiveEndpoint[]> {
  const r = await tx.query<{
    id: string;
    user_id: string;
    url: string;
    events: WebhookEvent[];
    trains: string[];
    emu_ids: number[];
  }>(
    `SELECT id::text, user_id::text, url, events, trains, emu_ids FROM webhook_endpoints
      WHERE disabled_at IS NULL ORDER BY id`,
  );
  return r.rows.map((row) => ({
    id: row.id,
    userId: row.user_id,
    url: row.url,
    events: row.events,
    trains: new Set(row.trains),
    emuIds: new Set(row.emu_ids),
  }));
}

/** The feed from a dispatcher's place; past the retention, from the oldest change kept (the alerts' dispatcher reads it so too). */
export async function readFrom(tx: Queryable, from: ChangeCursor, max: number) {
  try {
    return await readRecordChanges(tx, from, max);
  } catch (err) {
    if (!(err instanceof ChangeCursorExpiredError)) throw err;
    const bound = await tx.query<{ position: string; record_id: string }>(
      `SELECT pruned_position::text AS position, pruned_record_id::text AS record_id
         FROM record_change_clock`,
    );
    const row = bound.rows[0]!;
    return readRecordChanges(
      tx,
      { position: BigInt(row.position), recordId: BigInt(row.record_id) },
      max,
    );
  }
}

/** The codes of the units in changes some endpoint follows (records.changed names them). */
async function emuCodesOf(
  tx: Queryable,
  changes: readonly RecordChange[],
  endpoints: readonly ActiveEndpoint[],
): Promise<Map<number, string>> {
  const followed = endpoints.filter((e) => e.events.includes('records.changed'));
  const ids = new Set<number>();
  for (const c of changes)
    if (followed.some((e) => e.trains.has(c.trainCode) || e.emuIds.has(c.emuId))) ids.add(c.emuId);
  if (ids.size === 0) return new Map();
  const r = await tx.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
    [[...ids]],
  );
  return new Map(r.rows.map((row) => [row.id, row.code]));
}

function body(type: WebhookEvent, now: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: now.toISOString(), data });
}

/**
 * day.rebuilt: one per (transaction, service day) the changes came from, with the counts.
 * records.changed: one per (transaction, service day, endpoint) for the changes of the trains
 * and units the endpoint follows. A transaction split over two reads (past maxChanges) gives
 * two events for its day; each says what it carries.
 */
function changeDeliveries(
  changes: readonly RecordChange[],
  endpoints: readonly ActiveEndpoint[],
  codes: ReadonlyMap<number, string>,
  now: Date,
  bound: (candidates: Candidate[], order?: readonly RecordChange[]) => Candidate[],
): PendingDelivery[] {
  const groups = new Map<string, RecordChange[]>();
  for (const c of changes) {
    const key = `${c.cursor.position}:${c.serviceDay}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(c);
  }
  const out: PendingDelivery[] = [];
  for (const list of groups.values()) {
    const first = list[0]!;
    const day = { serviceDay: first.serviceDay, date: ymdOfServiceDay(first.serviceDay) };
    const counts = { added: 0, changed: 0, removed: 0 };
    for (const c of list) counts[c.kind]++;
    const rebuilt = endpoints.filter((e) => e.events.includes('day.rebuilt'));
    for (const { endpoint } of bound(rebuilt.map((e) => ({ endpoint: e }))))
      out.push({
        endpointId: endpoint.id,
        eventType: 'day.rebuilt',
        body: body('day.rebuilt', now, { ...day, cause: first.cause, ...counts }),
      });
    const following: Candidate[] = [];
    for (const e of endpoints) {
      if (!e.events.includes('records.changed')) continue;
      const mine = list.filter((c) => e.trains.has(c.trainCode) || e.emuIds.has(c.emuId));
      if (mine.length > 0) following.push({ endpoint: e, changes: mine });
    }
    for (const { endpoint, changes: mine } of bound(following, list))
      out.push({
        endpointId: endpoint.id,
        eventType: 'records.changed',
        body: body('records.changed', now, {
          ...day,
          cause: first.cause,
          changes: mine!.map((c) => ({
            kind: c.kind,
            id: c.recordId,
            trainCode: c.trainCode,
            emuId: c.emuId,
            emuCode: codes.get(c.emuId) ?? '',
            status: c.record?.status ?? null,
          })),
        }),
      });
  }
  return out;
}

async function insertDeliveries(
  tx: Queryable,
  pending: readonly PendingDelivery[],
): Promise<string[]> {
  if (pending.length === 0) return [];
  const r = await tx.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (message_id, endpoint_id, event_type, body)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
     RETURNING id::text`,
    [
      pending.map(() => newMessageId()),
      pending.map((p) => p.endpointId),
      pending.map((p) => p.eventType),
      pending.map((p) => p.body),
    ],
  );
  return r.rows.map((row) => row.id);
}

/** Marks deliveries as handed to the queue (the sweep hands over those that are not). */
export async function markDeliveriesEnqueued(q: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await q.query('UPDATE webhook_deliveries SET enqueued_at = now() WHERE id = ANY($1::bigint[])', [
    ids,
  ]);
}

/**
 * Deliveries written but never handed to the queue (a dispatcher stopped between its commit and
 * the hand-over), older than `olderThanSeconds`: to be handed over again.
 */
export async function deliveriesNotEnqueued(
  q: Queryable,
  olderThanSeconds: number,
): Promise<string[]> {
  const r = await q.query<{ id: string }>(
    `SELECT id::text FROM webhook_deliveries
      WHERE delivered_at IS NULL AND failed_at IS NULL AND enqueued_at IS NULL
        AND created_at < now() - make_interval(secs => $1)
      ORDER BY id LIMIT 1000`,
    [olderThanSeconds],
  );
  return r.rows.map((row) => row.id);
}

/** Every delivery still to make (the in-process runner picks them up when it starts). */
export async function pendingDeliveries(q: Queryable): Promise<string[]> {
  const r = await q.query<{ id: string }>(
    `SELECT id::text FROM webhook_deliveries
      WHERE delivered_at IS NULL AND failed_at IS NULL ORDER BY id LIMIT 10000`,
  );
  return r.rows.map((row) => row.id);
}
