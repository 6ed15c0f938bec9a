import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptWebhookDelivery } from '../../src/domain/webhooks/webhook-delivery.js';
import { dispatchWebhookEvents } from '../../src/domain/webhooks/webhook-dispatch.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  recentWebhookDeliveries,
  type WebhookOwner,
} from '../../src/domain/webhooks/webhook-endpoints.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { InProcessWebhookDeliveries } from '../../src/worker/webhook-deliveries.js';
import { bearer, makeKey, makeUser } from '../api/helpers/accounts.js';
import { capturingLogger, makeApp } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/**
 * The attack: an endpoint at an internal name (`https://vm/hook`) whose refused deliveries told
 * its owner, in lastError, what the name resolves to inside the network ("the host vm is, or
 * resolves to, a private or loopback address (127.0.0.1)"). The owner gets that the address is
 * not allowed; what it resolved to goes to the server's log only.
 */
describe('an internal name’s address told to the endpoint’s owner', () => {
  let app: ApiApp;
  let key: string;
  let who: WebhookOwner;

  beforeAll(async () => {
    const user = await makeUser(t.current.db, 'prober');
    who = { userId: user.userId, oauthClientId: null };
    key = await makeKey(t.current.db, user);
    app = await makeApp(t.current.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('no delivery, endpoint health or disabling reason the owner can read names the address', async () => {
    const db = t.current.db;
    const { endpoint } = await createWebhookEndpoint(
      db,
      who,
      { url: 'https://vm/hook', events: ['export.ready'] },
      { allowLoopback: false, maxEndpoints: 10 },
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20500, 2026, 2, 'x', 0, 'a'), (20501, 2026, 2, 'y', 0, 'b')`,
    );
    const { deliveryIds } = await dispatchWebhookEvents(db);
    expect(deliveryIds).toHaveLength(2);
    const options = {
      allowLoopback: false,
      timeoutMs: 1_000,
      lookupHost: async () => ({ address: '127.0.0.1', family: 4 }),
    };
    const first = await attemptWebhookDelivery(db, deliveryIds[0]!, {
      ...options,
      disableAfterMs: 86_400_000,
      lastAttempt: false,
    });
    expect(first).toMatchObject({ outcome: 'retry', error: expect.stringMatching(/not allowed/) });
    // What the server logs: the address, kept out of what the owner reads.
    expect(first.detail).toMatch(/127\.0\.0\.1/);
    const last = await attemptWebhookDelivery(db, deliveryIds[1]!, {
      ...options,
      disableAfterMs: 0,
      lastAttempt: true,
    });
    expect(last.outcome).toBe('failed');

    const [shown] = await listWebhookEndpoints(db, who);
    expect(shown!.lastError).toMatch(/not allowed/);
    expect(shown!.disabledReason).toMatch(/not allowed/);
    const recent = await recentWebhookDeliveries(db, who, endpoint.id);
    expect(recent.map((d) => d.lastError)).toEqual([
      expect.stringMatching(/not allowed/),
      expect.stringMatching(/not allowed/),
    ]);

    // Through the API, as the owner reads them.
    const list = await app.inject({ url: '/api/v2/webhooks', headers: bearer(key) });
    const deliveries = await app.inject({
      url: `/api/v2/webhooks/${endpoint.id}/deliveries`,
      headers: bearer(key),
    });
    for (const res of [list, deliveries]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('not allowed');
      expect(res.body).not.toContain('127.0.0.1');
      expect(res.body).not.toMatch(/loopback|resolves to/);
    }
  });

  it('a name that does not resolve reads the same to the owner as one resolving inside', async () => {
    const db = t.current.db;
    await db.query('DELETE FROM webhook_endpoints');
    await createWebhookEndpoint(
      db,
      who,
      { url: 'https://no-such-host.internal/hook', events: ['export.ready'] },
      { allowLoopback: false, maxEndpoints: 10 },
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20510, 2026, 2, 'x', 0, 'a')`,
    );
    const { deliveryIds } = await dispatchWebhookEvents(db);
    const attempt = await attemptWebhookDelivery(db, deliveryIds[0]!, {
      allowLoopback: false,
      timeoutMs: 1_000,
      disableAfterMs: 86_400_000,
      lastAttempt: false,
      lookupHost: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.internal'), {
          code: 'ENOTFOUND',
        });
      },
    });
    expect(attempt.error).toBe('the address of the host no-such-host.internal is not allowed');
    expect(attempt.detail).toMatch(/ENOTFOUND/);
  });

  it('the worker logs the detail of a refusal, the delivery keeps only that it was not allowed', async () => {
    const db = t.current.db;
    await db.query('DELETE FROM webhook_endpoints');
    // An endpoint registered before the guard knew the IPv4-compatible form of the loopback.
    await db.query(
      `INSERT INTO webhook_endpoints (public_id, user_id, url, events, secret)
       VALUES ('whe_old', $1, 'https://[::7f00:1]/hook', '{export.ready}', 'whsec_AAAA')`,
      [who.userId],
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20520, 2026, 2, 'x', 0, 'a')`,
    );
    const { deliveryIds } = await dispatchWebhookEvents(db);
    const { logger, lines } = capturingLogger();
    const deliveries = new InProcessWebhookDeliveries({
      db,
      logger,
      config: loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_MAX_ATTEMPTS: '1' }),
    });
    await deliveries.deliver(deliveryIds);
    const end = Date.now() + 10_000;
    while (Date.now() < end) {
      const r = await db.query<{ failed: boolean }>(
        'SELECT failed_at IS NOT NULL AS failed FROM webhook_deliveries WHERE id = $1',
        [deliveryIds[0]],
      );
      if (r.rows[0]?.failed) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await deliveries.close();
    const row = await db.query<{ last_error: string }>(
      'SELECT last_error FROM webhook_deliveries WHERE id = $1',
      [deliveryIds[0]],
    );
    expect(row.rows[0]!.last_error).toBe('the address of the host ::7f00:1 is not allowed');
    expect(lines()).toContainEqual(
      expect.objectContaining({
        deliveryId: deliveryIds[0],
        detail: expect.stringMatching(/::7f00:1.*private or loopback/),
      }),
    );
  });
});
