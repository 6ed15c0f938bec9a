import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/shared/app/app-context.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createRedisConnection } from '../../src/shared/queues/redis-connection.js';
import { startWebhookRuntime, type WebhookRuntime } from '../../src/worker/webhook-runtime.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import {
  createWebhookEndpoint,
  rotateWebhookSecret,
  type WebhookOwner,
} from '../../src/domain/webhooks/webhook-endpoints.js';
import { makeUser } from '../api/helpers/accounts.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';

const t = useTestDatabase();

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  answered: number;
}

/**
 * A receiver on the loopback: answers 500 to the first `failures` attempts of each message id,
 * then 200, and keeps every request.
 */
class Receiver {
  readonly requests: Received[] = [];
  private readonly server: http.Server;
  url = '';

  constructor(private readonly failures: number) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        const before = this.requests.filter((r) => r.id === id).length;
        const answered = before < this.failures ? 500 : 200;
        this.requests.push({
          id,
          timestamp: String(req.headers['webhook-timestamp']),
          signature: String(req.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
          answered,
        });
        res.writeHead(answered).end();
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  delivered(): Received[] {
    return this.requests.filter((r) => r.answered === 200);
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function context(env: Record<string, string> = {}): AppContext {
  return {
    db: t.current.db,
    logger: pino({ level: 'silent' }),
    config: loadConfig({
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      JOB_BACKOFF_MS: '40',
      WEBHOOK_POLL_MS: '50',
      ...env,
    }),
  };
}

async function owner(): Promise<WebhookOwner> {
  const user = await makeUser(t.current.db, 'hook');
  return { userId: user.userId, oauthClientId: null };
}

/** Parses and checks a delivery as a receiver would: signature, then body. */
function verified(r: Received, secret: string): { type: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': r.id,
    'webhook-timestamp': r.timestamp,
    'webhook-signature': r.signature,
  };
  return new Webhook(secret).verify(r.body, headers) as {
    type: string;
    data: Record<string, unknown>;
  };
}

describe('webhook deliveries', () => {
  const receivers: Receiver[] = [];
  const runtimes: WebhookRuntime[] = [];
  let redis: Redis | undefined;

  beforeAll(() => {
    redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  });
  afterEach(async () => {
    for (const r of runtimes.splice(0)) await r.close();
    for (const r of receivers.splice(0)) await r.close();
    // Endpoints of one test must not receive the next test's events.
    await t.current.db.query('DELETE FROM webhook_endpoints');
  });
  afterAll(async () => {
    await redis?.quit();
  });

  async function receiver(failures: number): Promise<Receiver> {
    const r = new Receiver(failures);
    await r.start();
    receivers.push(r);
    return r;
  }

  it('delivers each event once per delivery id through retries, after the receiver answered 500 twice, with a signature the receiver verifies (BullMQ)', async () => {
    const ctx = context();
    const prefix = `emutrack-test-${randomBytes(4).toString('hex')}`;
    const hook = await receiver(2);
    const { secret } = await createWebhookEndpoint(
      ctx.db,
      await owner(),
      {
        url: hook.url,
        events: ['day.rebuilt', 'records.changed', 'export.ready'],
        trains: ['G700'],
      },
      { allowLoopback: true, maxEndpoints: 10 },
    );
    runtimes.push(await startWebhookRuntime(ctx, { connection: redis!, prefix, concurrency: 2 }));
    await ingestSightings(ctx.db, [
      ...sightings('20261001', 'G700', 'CR400AF-7001', 2),
      ...sightings('20261001', 'G701', 'CR400AF-7002', 1),
    ]);
    await buildDailyRecords(ctx.db, serviceDayFromYmd('20261001'));
    await ctx.db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES ($1, 2026, 10, 'x', 1, 'abc')`,
      [serviceDayFromYmd('20261001')],
    );
    await until(() => hook.delivered().length === 3);
    const byId = new Map<string, Received[]>();
    for (const r of hook.requests) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    expect(byId.size).toBe(3);
    for (const attempts of byId.values()) {
      expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
      for (const a of attempts) expect(() => verified(a, secret)).not.toThrow();
    }
    const events = hook.delivered().map((r) => verified(r, secret));
    expect(events.map((e) => e.type).sort()).toEqual([
      'day.rebuilt',
      'export.ready',
      'records.changed',
    ]);
    expect(events.find((e) => e.type === 'day.rebuilt')!.data).toMatchObject({
      date: '20261001',
      cause: 'build',
      added: 2,
      changed: 0,
      removed: 0,
    });
    const changed = events.find((e) => e.type === 'records.changed')!.data;
    expect(changed.changes).toEqual([
      expect.objectContaining({ kind: 'added', trainCode: 'G700', emuCode: 'CR400AF-7001' }),
    ]);
    expect(events.find((e) => e.type === 'export.ready')!.data).toMatchObject({
      date: '20261001',
      rows: 1,
    });
    // A forged body fails the receiver's check.
    const forged = { ...hook.delivered()[0]!, body: hook.delivered()[0]!.body.replace('2', '3') };
    expect(() => verified(forged, secret)).toThrow();
    // The receiver answers before the attempt is recorded: wait for the records.
    await until(async () => {
      const r = await ctx.db.query(
        'SELECT 1 FROM webhook_deliveries WHERE delivered_at IS NOT NULL',
      );
      return r.rowCount === 3;
    });
    const rows = await ctx.db.query<{ attempts: number; delivered: boolean }>(
      'SELECT attempts, delivered_at IS NOT NULL AS delivered FROM webhook_deliveries',
    );
    expect(rows.rows).toEqual(Array(3).fill({ attempts: 3, delivered: true }));
  });

  it('delivers in-process, without Redis, with the same retries', async () => {
    const ctx = context();
    const hook = await receiver(1);
    const { secret } = await createWebhookEndpoint(
      ctx.db,
      await owner(),
      { url: hook.url, events: ['day.rebuilt'] },
      { allowLoopback: true, maxEndpoints: 10 },
    );
    runtimes.push(await startWebhookRuntime(ctx));
    await ingestSightings(ctx.db, sightings('20261002', 'G710', 'CR400AF-7101', 1));
    await buildDailyRecords(ctx.db, serviceDayFromYmd('20261002'));
    await until(() => hook.delivered().length === 1);
    expect(hook.requests.map((r) => r.answered)).toEqual([500, 200]);
    await until(async () => {
      const r = await ctx.db.query(
        'SELECT 1 FROM webhook_deliveries WHERE delivered_at IS NOT NULL',
      );
      return r.rowCount === 1;
    });
    const row = await ctx.db.query<{ attempts: number; last_status: number }>(
      'SELECT attempts, last_status FROM webhook_deliveries',
    );
    expect(row.rows).toEqual([{ attempts: 2, last_status: 200 }]);
    expect(verified(hook.delivered()[0]!, secret)).toMatchObject({
      type: 'day.rebuilt',
      data: { date: '20261002', added: 1 },
    });
  });

  it('signs with the old and the new secret while a rotation overlaps, so either verifies', async () => {
    const ctx = context();
    const hook = await receiver(0);
    const who = await owner();
    const first = await createWebhookEndpoint(
      ctx.db,
      who,
      { url: hook.url, events: ['day.rebuilt'] },
      { allowLoopback: true, maxEndpoints: 10 },
    );
    const rotated = await rotateWebhookSecret(ctx.db, who, first.endpoint.id, 3600);
    runtimes.push(await startWebhookRuntime(ctx));
    await ingestSightings(ctx.db, sightings('20261003', 'G720', 'CR400AF-7201', 1));
    await buildDailyRecords(ctx.db, serviceDayFromYmd('20261003'));
    await until(() => hook.delivered().length === 1);
    const got = hook.delivered()[0]!;
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(() => verified(got, first.secret)).not.toThrow();
    expect(() => verified(got, rotated.secret)).not.toThrow();
  });
});
