import { describe, expect, it } from 'vitest';
import { attemptWebhookDelivery } from '../../src/domain/webhooks/webhook-delivery.js';
import { dispatchWebhookEvents } from '../../src/domain/webhooks/webhook-dispatch.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  type WebhookOwner,
} from '../../src/domain/webhooks/webhook-endpoints.js';
import { postWebhook } from '../../src/domain/webhooks/webhook-post.js';
import { checkWebhookUrl } from '../../src/domain/webhooks/webhook-url.js';
import { makeUser } from '../api/helpers/accounts.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

async function owner(): Promise<WebhookOwner> {
  const user = await makeUser(t.current.db, 'hooks');
  return { userId: user.userId, oauthClientId: null };
}

describe('webhook endpoints: where deliveries may go', () => {
  it.each([
    ['http://example.com/hook', 'webhook_invalid_url', /must be https/],
    ['https://user:pw@example.com/hook', 'webhook_invalid_url', /user or password/],
    ['ftp://example.com/hook', 'webhook_invalid_url', /must be https/],
    ['not a url', 'webhook_invalid_url', /absolute URL/],
    ['https://example.com/<2000 x>', 'webhook_invalid_url', /longer than/],
    ['https://10.0.0.7/hook', 'webhook_address_refused', /private/],
    ['https://192.168.1.20/hook', 'webhook_address_refused', /private/],
    ['https://172.16.5.4/hook', 'webhook_address_refused', /private/],
    ['https://169.254.169.254/latest/meta-data', 'webhook_address_refused', /private/],
    ['https://[fd00::1]/hook', 'webhook_address_refused', /private/],
    ['https://[::ffff:10.0.0.1]/hook', 'webhook_address_refused', /private/],
    ['https://127.0.0.1/hook', 'webhook_address_refused', /loopback/],
    ['http://localhost:8080/hook', 'webhook_address_refused', /loopback/],
    ['https://[::1]/hook', 'webhook_address_refused', /loopback/],
  ])('refuses %s (%s) when the loopback is not allowed', (shown, code, message) => {
    const url = shown.replace('<2000 x>', 'x'.repeat(2_000));
    expect(() => checkWebhookUrl(url, false)).toThrow(
      expect.objectContaining({ code, field: 'url', message: expect.stringMatching(message) }),
    );
  });

  it('accepts https on a public host, and http on the loopback only where allowed', () => {
    expect(checkWebhookUrl('https://hooks.example.com/in?x=1', false).href).toBe(
      'https://hooks.example.com/in?x=1',
    );
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', true).port).toBe('9000');
    expect(() => checkWebhookUrl('https://10.0.0.7/hook', true)).toThrow(/private/);
    expect(() => checkWebhookUrl('http://hooks.example.com/hook', true)).toThrow(/must be https/);
  });

  it('refuses at delivery time a name that resolves to a private address, without connecting', async () => {
    const refused = await postWebhook('https://hooks.example.com/in', {}, '{}', {
      allowLoopback: false,
      timeoutMs: 1_000,
      lookupHost: async () => ({ address: '10.1.2.3', family: 4 }),
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'webhook_address_refused' });
    const loopback = await postWebhook('https://hooks.example.com/in', {}, '{}', {
      allowLoopback: false,
      timeoutMs: 1_000,
      lookupHost: async () => ({ address: '127.0.0.1', family: 4 }),
    }).catch((e: unknown) => e);
    expect(loopback).toMatchObject({ code: 'webhook_address_refused' });
  });

  it('refuses unknown events and records.changed without trains or units', async () => {
    const who = await owner();
    const create = (events: string[], trains: string[] = []) =>
      createWebhookEndpoint(
        t.current.db,
        who,
        { url: 'https://hooks.example.com/in', events, trains },
        { allowLoopback: false, maxEndpoints: 10 },
      );
    await expect(create([])).rejects.toMatchObject({ code: 'webhook_invalid_event' });
    await expect(create(['day.built'])).rejects.toMatchObject({
      code: 'webhook_invalid_event',
      field: 'events',
    });
    await expect(create(['records.changed'])).rejects.toMatchObject({
      code: 'webhook_invalid_filter',
    });
    await expect(create(['day.rebuilt'], ['G1'])).rejects.toMatchObject({
      code: 'webhook_invalid_filter',
      field: 'trains',
    });
    const { endpoint, secret } = await create(['day.rebuilt', 'records.changed'], ['G1']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(endpoint.events).toEqual(['day.rebuilt', 'records.changed']);
    // Listings never carry the secret.
    const listed = await listWebhookEndpoints(t.current.db, who);
    expect(JSON.stringify(listed)).not.toContain(secret);
  });
});

describe('webhook endpoints: health', () => {
  it('disables an endpoint whose deliveries have all failed for a day, gives up its deliveries, and shows its owner why', async () => {
    const db = t.current.db;
    const who = await owner();
    const { endpoint } = await createWebhookEndpoint(
      db,
      who,
      { url: 'https://hooks.example.com/in', events: ['export.ready'] },
      { allowLoopback: false, maxEndpoints: 10 },
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20400, 2025, 11, 'x', 0, 'a'), (20401, 2025, 11, 'y', 0, 'b')`,
    );
    const { deliveryIds } = await dispatchWebhookEvents(db);
    expect(deliveryIds).toHaveLength(2);
    const failing = async () => ({ status: 503 });
    const start = new Date('2026-11-01T00:00:00Z');
    const options = { allowLoopback: false, timeoutMs: 1_000, disableAfterMs: 86_400_000 };
    const first = await attemptWebhookDelivery(db, deliveryIds[0]!, {
      ...options,
      lastAttempt: false,
      now: start,
      post: failing,
    });
    expect(first).toMatchObject({ outcome: 'retry', status: 503 });
    const later = await attemptWebhookDelivery(db, deliveryIds[0]!, {
      ...options,
      lastAttempt: false,
      now: new Date(start.getTime() + 86_400_000),
      post: failing,
    });
    expect(later.outcome).toBe('failed');
    const [shown] = await listWebhookEndpoints(db, who);
    expect(shown).toMatchObject({ id: endpoint.id });
    expect(shown!.disabledAt).not.toBeNull();
    expect(shown!.disabledReason).toMatch(
      /failed since 2026-11-01T00:00:00.000Z; last: the endpoint answered 503/,
    );
    // The other delivery is given up without an attempt, and nothing new is dispatched to it.
    expect(
      await attemptWebhookDelivery(db, deliveryIds[1]!, {
        ...options,
        lastAttempt: false,
        post: failing,
      }),
    ).toEqual({ outcome: 'gone' });
    const rows = await db.query<{ failed: boolean }>(
      'SELECT failed_at IS NOT NULL AS failed FROM webhook_deliveries ORDER BY id',
    );
    expect(rows.rows).toEqual([{ failed: true }, { failed: true }]);
    await db.query(
      `UPDATE daily_exports SET content = 'z', sha256 = 'c' WHERE service_day = 20400`,
    );
    expect((await dispatchWebhookEvents(db)).deliveryIds).toEqual([]);
  });

  it("gives a delivery up after its last attempt, and a success clears the endpoint's failing state", async () => {
    const db = t.current.db;
    const who = await owner();
    await createWebhookEndpoint(
      db,
      who,
      { url: 'https://hooks.example.com/other', events: ['export.ready'] },
      { allowLoopback: false, maxEndpoints: 10 },
    );
    await db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (20410, 2025, 11, 'x', 0, 'a'), (20411, 2025, 11, 'y', 0, 'b')`,
    );
    const { deliveryIds } = await dispatchWebhookEvents(db);
    const options = { allowLoopback: false, timeoutMs: 1_000, disableAfterMs: 86_400_000 };
    const last = await attemptWebhookDelivery(db, deliveryIds[0]!, {
      ...options,
      lastAttempt: true,
      post: async () => ({ error: 'connect ECONNREFUSED' }),
    });
    expect(last).toMatchObject({ outcome: 'failed', error: 'connect ECONNREFUSED' });
    expect((await listWebhookEndpoints(db, who))[0]!.failingSince).not.toBeNull();
    const ok = await attemptWebhookDelivery(db, deliveryIds[1]!, {
      ...options,
      lastAttempt: false,
      post: async () => ({ status: 204 }),
    });
    expect(ok).toEqual({ outcome: 'delivered', status: 204 });
    const [shown] = await listWebhookEndpoints(db, who);
    expect(shown).toMatchObject({ failingSince: null, lastError: null, disabledAt: null });
  });
});
