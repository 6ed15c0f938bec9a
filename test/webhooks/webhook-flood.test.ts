import { afterEach, describe, expect, it } from 'vitest';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { dispatchWebhookEvents } from '../../src/domain/webhooks/webhook-dispatch.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { bearer, makeKey, makeUser } from '../api/helpers/accounts.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/**
 * The attack: one ordinary user registered 500 endpoints in 18 s, all at one victim's URL, for
 * free; one correction then became 500 deliveries (each retried up to 15 times) to that URL.
 * Endpoints are capped per user (atomically), the routes charge the caller's quota, and one
 * event reaches one user's endpoints at most once per URL and WEBHOOK_MAX_DELIVERIES_PER_EVENT
 * times in all.
 */
describe('webhooks as an amplifier', () => {
  afterEach(async () => {
    await t.current.db.query('DELETE FROM webhook_endpoints');
  });

  it('registering endpoints in a flood of parallel requests stops at the per-user cap (10 by default)', async () => {
    const app = await makeApp(t.current.db);
    try {
      const user = await makeUser(t.current.db, 'flooder');
      const key = await makeKey(t.current.db, user);
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          app.inject({
            method: 'POST',
            url: '/api/v2/webhooks',
            headers: bearer(key),
            payload: { url: `https://victim.example/hook?n=${i}`, events: ['day.rebuilt'] },
          }),
        ),
      );
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 400)).toHaveLength(20);
      const refused = responses.find((r) => r.statusCode === 400)!.json();
      expect(refused.error).toMatchObject({
        code: 'invalid_param',
        message: expect.stringMatching(/at most 10 webhook endpoints per user/),
      });
      const count = await t.current.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1',
        [user.userId],
      );
      expect(count.rows[0]!.n).toBe(10);
      // Another user has a cap of their own.
      const other = await makeKey(t.current.db, await makeUser(t.current.db, 'other'));
      const theirs = await app.inject({
        method: 'POST',
        url: '/api/v2/webhooks',
        headers: bearer(other),
        payload: { url: 'https://hooks.example.com/in', events: ['day.rebuilt'] },
      });
      expect(theirs.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('takes the cap from WEBHOOK_MAX_ENDPOINTS_PER_USER, and a deleted endpoint frees its place', async () => {
    const app = await makeApp(t.current.db, { env: { WEBHOOK_MAX_ENDPOINTS_PER_USER: '2' } });
    try {
      const key = await makeKey(t.current.db, await makeUser(t.current.db, 'small'));
      const create = (n: number) =>
        app.inject({
          method: 'POST',
          url: '/api/v2/webhooks',
          headers: bearer(key),
          payload: { url: `https://hooks.example.com/${n}`, events: ['export.ready'] },
        });
      const made = await Promise.all([create(1), create(2), create(3), create(4)]);
      expect(made.map((r) => r.statusCode).sort()).toEqual([200, 200, 400, 400]);
      const first = made.find((r) => r.statusCode === 200)!.json().data.id as string;
      const deleted = await app.inject({
        method: 'DELETE',
        url: `/api/v2/webhooks/${first}`,
        headers: bearer(key),
      });
      expect(deleted.statusCode).toBe(200);
      expect((await create(5)).statusCode).toBe(200);
      expect((await create(6)).statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });

  it("charges every webhook route to the caller's quota, like the other API routes", async () => {
    const app = await makeApp(t.current.db, { env: { QUOTA_MIN_COST: '1' } });
    try {
      const user = await makeUser(t.current.db, 'payer');
      const key = await makeKey(t.current.db, user, { dailyTokenLimit: 5 });
      const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
        app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
      const created = await call('POST', '/api/v2/webhooks', {
        url: 'https://hooks.example.com/paid',
        events: ['day.rebuilt'],
      });
      const id = created.json().data.id as string;
      const answers = [
        created,
        await call('GET', '/api/v2/webhooks'),
        await call('GET', `/api/v2/webhooks/${id}/deliveries`),
        await call('POST', `/api/v2/webhooks/${id}/rotate-secret`),
        await call('DELETE', `/api/v2/webhooks/${id}`),
      ];
      expect(answers.map((r) => [r.statusCode, r.json().meta.cost])).toEqual(
        Array(5).fill([200, 1]),
      );
      // The key's daily limit (5) is spent: the next call is refused.
      const spent = await call('GET', '/api/v2/webhooks');
      expect(spent.statusCode).toBe(429);
      expect(spent.json().error.code).toBe('rate_limited');
    } finally {
      await app.close();
    }
  });

  it('one event to 500 endpoints of one user at one victim URL is one delivery there, and at most 10 to that user', async () => {
    const db = t.current.db;
    const flooder = await makeUser(db, 'amplifier');
    const bystander = await makeUser(db, 'bystander');
    // Endpoints made before the cap: 500 at the victim's URL, 50 more at variants of it.
    await db.query(
      `INSERT INTO webhook_endpoints (public_id, user_id, url, events, secret)
       SELECT 'whe_flood' || g, $1, 'https://victim.example/hook', '{day.rebuilt,export.ready}', 'whsec_AAAA'
         FROM generate_series(1, 500) g`,
      [flooder.userId],
    );
    await db.query(
      `INSERT INTO webhook_endpoints (public_id, user_id, url, events, secret)
       SELECT 'whe_variant' || g, $1, 'https://victim.example/hook?n=' || g, '{export.ready}', 'whsec_AAAA'
         FROM generate_series(1, 50) g`,
      [flooder.userId],
    );
    // Another user at the same URL is another owner: theirs is delivered too.
    await db.query(
      `INSERT INTO webhook_endpoints (public_id, user_id, url, events, secret)
       VALUES ('whe_bystander', $1, 'https://victim.example/hook', '{export.ready}', 'whsec_AAAA')`,
      [bystander.userId],
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20600, 2026, 5, 'x', 0, 'a')`,
    );
    const result = await dispatchWebhookEvents(db, { maxDeliveriesPerEvent: 10 });
    const rows = await db.query<{ user_id: string; url: string; n: number }>(
      `SELECT e.user_id::text, e.url, count(*)::int AS n
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        GROUP BY e.user_id, e.url`,
    );
    const of = (userId: string) => rows.rows.filter((r) => r.user_id === userId);
    expect(of(flooder.userId).reduce((sum, r) => sum + r.n, 0)).toBe(10);
    expect(of(flooder.userId).every((r) => r.n === 1)).toBe(true);
    expect(of(flooder.userId).find((r) => r.url === 'https://victim.example/hook')?.n).toBe(1);
    expect(of(bystander.userId)).toEqual([
      { user_id: bystander.userId, url: 'https://victim.example/hook', n: 1 },
    ]);
    expect(result.deliveryIds).toHaveLength(11);
    expect(result.leftOut).toBe(540);
  });

  it("records.changed to one user's endpoints sharing a URL is one delivery carrying what each follows", async () => {
    const db = t.current.db;
    const user = await makeUser(db, 'follower');
    await db.query(
      `INSERT INTO webhook_endpoints (public_id, user_id, url, events, trains, secret)
       VALUES ('whe_a', $1, 'https://hooks.example.com/rc', '{day.rebuilt,records.changed}', '{G800}', 'whsec_AAAA'),
              ('whe_b', $1, 'https://hooks.example.com/rc', '{day.rebuilt,records.changed}', '{G801}', 'whsec_AAAA')`,
      [user.userId],
    );
    // Whatever the change feed holds from before is not this test's event.
    await dispatchWebhookEvents(db);
    await db.query('DELETE FROM webhook_deliveries');
    await ingestSightings(db, [
      ...sightings('20261101', 'G800', 'CR400AF-8001', 1),
      ...sightings('20261101', 'G801', 'CR400AF-8002', 1),
      ...sightings('20261101', 'G802', 'CR400AF-8003', 1),
    ]);
    await buildDailyRecords(db, serviceDayFromYmd('20261101'));
    await dispatchWebhookEvents(db);
    const rows = await db.query<{ event_type: string; public_id: string; body: string }>(
      `SELECT d.event_type, e.public_id, d.body
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id ORDER BY d.id`,
    );
    expect(rows.rows.map((r) => [r.event_type, r.public_id])).toEqual([
      ['day.rebuilt', 'whe_a'],
      ['records.changed', 'whe_a'],
    ]);
    const changed = JSON.parse(rows.rows[1]!.body) as {
      data: { changes: { trainCode: string }[] };
    };
    expect(changed.data.changes.map((c) => c.trainCode).sort()).toEqual(['G800', 'G801']);
  });
});
