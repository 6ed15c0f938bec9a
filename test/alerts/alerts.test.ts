import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decrypt } from 'http_ece';
import type { ParsedMail } from 'mailparser';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { AlertDispatcher } from '../../src/worker/alert-dispatcher.js';
import { InProcessWebhookDeliveries } from '../../src/worker/webhook-deliveries.js';
import { createWebhookEndpoint } from '../../src/domain/webhooks/webhook-endpoints.js';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { bearer, makeKey, makeUser } from '../api/helpers/accounts.js';
import { makeApp, testConfig } from '../api/helpers/api-harness.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { MailCatcher } from '../helpers/mail-catcher.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/** A push service on the loopback: keeps each message's body and headers; answers `status`. */
class PushService {
  readonly received: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  status = 201;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(this.status).end();
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/push/abc`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const PUBLIC_URL = 'https://emutrack.example';
const NOW = new Date('2026-10-05T04:00:00Z');

describe('alerts', () => {
  const mail = new MailCatcher();
  const push = new PushService();
  let app: ApiApp;
  let env: Record<string, string>;
  const dispatchers: AlertDispatcher[] = [];

  beforeAll(async () => {
    await mail.start();
    await push.start();
    env = {
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL,
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ALERT_MAX_SUBSCRIPTIONS_PER_USER: '4',
      OAUTH_KEY_SECRET: 'a-test-secret-of-at-least-32-characters',
      JOB_BACKOFF_MS: '10',
    };
    app = await makeApp(t.current.db, { env });
    await t.current.db.query(
      `INSERT INTO emus (code, registered_by) VALUES
         ('CR400AF-7001', 'fleet'), ('CR400AF-7101', 'fleet'), ('CR400AF-7201', 'fleet'),
         ('CR400AF-7202', 'fleet'), ('CR400AF-7203', 'fleet')`,
    );
  });
  afterAll(async () => {
    for (const d of dispatchers) await d.stop();
    await app?.close();
    await mail.close();
    await push.close();
  });

  const context = () => ({
    db: t.current.db,
    logger: pino({ level: 'silent' }),
    config: testConfig(env),
  });

  function dispatcher(webhooks?: InProcessWebhookDeliveries): AlertDispatcher {
    const d = new AlertDispatcher(context(), { webhooks });
    dispatchers.push(d);
    return d;
  }

  const put = (key: string, body: Record<string, unknown>) =>
    app.inject({
      method: 'PUT',
      url: '/api/v2/auth/subscriptions',
      headers: bearer(key),
      payload: body,
    });

  async function rebuild(ymd: string, train: string, emu: string): Promise<void> {
    await ingestSightings(t.current.db, sightings(ymd, train, emu, 1));
    await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
  }

  const linkIn = (m: ParsedMail, path: string) =>
    new RegExp(`${PUBLIC_URL}(/alerts/${path}/[A-Za-z0-9_-]+)`).exec(m.text ?? '')?.[1];

  it('refuses a bad channel, address, endpoint or kind naming the field; another user’s id is 404; the limit holds under concurrency', async () => {
    const user = await makeUser(t.current.db, 'limits');
    const key = await makeKey(t.current.db, user);
    const bad = [
      [{ kind: 'train', code: 'G1', channel: 'sms' }, 'channel'],
      [{ kind: 'train', code: 'G1', channel: 'email', address: 'not an address' }, 'address'],
      [
        { kind: 'train', code: 'G1', channel: 'email', address: 'a@b.co\r\nBcc: x@y.co' },
        'address',
      ],
      [{ kind: 'bus', code: 'G1', channel: 'email', address: 'a@b.co' }, 'kind'],
      [{ kind: 'emu', code: 'XX-0000', channel: 'email', address: 'a@b.co' }, 'code'],
      [
        { kind: 'train', code: 'G1', channel: 'email', address: 'a@b.co', events: ['emu.seen'] },
        'events[0]',
      ],
      [
        {
          kind: 'train',
          code: 'G1',
          channel: 'webpush',
          subscription: { endpoint: 'https://10.1.2.3/x', keys: { p256dh: 'AA', auth: 'AA' } },
        },
        'subscription.endpoint',
      ],
    ] as const;
    for (const [body, field] of bad) {
      const r = await put(key, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().error.message).toContain(field);
    }
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const subscription = {
      endpoint: push.url,
      keys: {
        p256dh: ecdh.getPublicKey().toString('base64url'),
        auth: randomBytes(16).toString('base64url'),
      },
    };
    // Six at once for four places: exactly four are taken.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        put(key, { kind: 'train', code: `G${100 + i}`, channel: 'webpush', subscription }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(4);
    expect(answers.filter((a) => a.statusCode === 400)).toHaveLength(2);
    const list = await app.inject({ url: '/api/v2/auth/subscriptions', headers: bearer(key) });
    const items = list.json<{ data: { items: { id: string; status: string }[] } }>().data.items;
    expect(items).toHaveLength(4);
    expect(items.every((i) => i.status === 'active')).toBe(true);
    // The same again (at the limit): the one there is answered, no second one made.
    const taken = answers.findIndex((a) => a.statusCode === 200);
    const again = await put(key, {
      kind: 'train',
      code: `G${100 + taken}`,
      channel: 'webpush',
      subscription,
      events: ['train.unitChanged'],
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(answers[taken]!.json().data.id);
    const other = await makeKey(t.current.db, await makeUser(t.current.db, 'other'));
    const stolen = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/subscriptions/${items[0]!.id}`,
      headers: bearer(other),
    });
    expect(stolen.statusCode).toBe(404);
    const mine = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/subscriptions/${items[0]!.id}`,
      headers: bearer(key),
    });
    expect(mine.statusCode).toBe(200);
    await t.current.db.query('DELETE FROM alert_subscriptions');
  });

  it('mails a verification link first, then one alert after the day rebuilds, with a one-click unsubscribe that needs no sign-in', async () => {
    const key = await makeKey(t.current.db, await makeUser(t.current.db, 'mail'));
    const created = await put(key, {
      kind: 'emu',
      code: 'cr400af7001',
      channel: 'email',
      address: 'reader@example.com',
    });
    expect(created.statusCode).toBe(200);
    expect(created.json().data).toMatchObject({
      status: 'unverified',
      id: expect.stringMatching(/^als_/),
    });
    expect(mail.to('reader@example.com')).toHaveLength(1);
    const verification = mail.to('reader@example.com')[0]!;
    // Unverified: a day that changes sends nothing.
    await rebuild('20261001', 'G700', 'CR400AF-7001');
    await dispatcher().runOnce(NOW);
    expect(mail.to('reader@example.com')).toHaveLength(1);

    const verify = linkIn(verification, 'verify')!;
    expect((await app.inject({ url: verify })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: verify })).statusCode).toBe(200);
    await rebuild('20261002', 'G700', 'CR400AF-7001');
    await dispatcher().runOnce(NOW);
    const alerts = mail.to('reader@example.com').slice(1);
    expect(alerts).toHaveLength(1);
    const alert = alerts[0]!;
    expect(alert.subject).toContain('CR400AF-7001');
    expect(alert.text).toContain('2026-10-02');
    expect(alert.text).toContain(`${PUBLIC_URL}/emu/CR400AF-7001`);
    const unsubscribe = linkIn(alert, 'unsubscribe')!;
    const header = (name: string) => alert.headerLines.find((l) => l.key === name)?.line ?? '';
    expect(header('list-unsubscribe')).toContain(`<${PUBLIC_URL}${unsubscribe}>`);
    expect(header('list-unsubscribe-post')).toContain('List-Unsubscribe=One-Click');
    // No session: GET confirms, the mail client's one-click POST unsubscribes.
    const confirm = await app.inject({ url: unsubscribe });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<form method="post">');
    const done = await app.inject({
      method: 'POST',
      url: unsubscribe,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(done.statusCode).toBe(200);
    const left = await app.inject({ url: '/api/v2/auth/subscriptions', headers: bearer(key) });
    expect(left.json().data.items).toEqual([]);
    expect((await app.inject({ url: unsubscribe })).statusCode).toBe(404);
  });

  it('drops an address the mail server refuses for good (550)', async () => {
    const key = await makeKey(t.current.db, await makeUser(t.current.db, 'bounce'));
    // The verification goes to the good address's owner who then changes nothing: verify by hand.
    const id = await t.current.db.query<{ id: string }>(
      `INSERT INTO alert_subscriptions (public_id, user_id, kind, code, emu_id, channel, address,
         events, status, unsubscribe_token_hash)
       SELECT 'als_bounce', u.id, 'emu', e.code, e.id, 'email', 'gone@example.com', '{emu.seen}',
              'active', '\\x00'
         FROM users u, emus e WHERE u.username LIKE 'bounce%' AND e.code = 'CR400AF-7201'
       RETURNING id::text`,
    );
    expect(id.rowCount).toBe(1);
    await rebuild('20261003', 'G701', 'CR400AF-7201');
    await dispatcher().runOnce(NOW);
    const list = await app.inject({ url: '/api/v2/auth/subscriptions', headers: bearer(key) });
    expect(list.json().data.items[0]).toMatchObject({
      status: 'dropped',
      droppedReason: expect.stringContaining('550'),
    });
    await t.current.db.query('DELETE FROM alert_subscriptions');
  });

  it('sends Web Push the push service decrypts with the subscription’s keys (RFC 8291, VAPID), and drops the subscription on 410', async () => {
    const key = await makeKey(t.current.db, await makeUser(t.current.db, 'push'));
    const vapid = await app.inject({
      url: '/api/v2/auth/subscriptions/vapid-key',
      headers: bearer(key),
    });
    const publicKey = vapid.json<{ data: { publicKey: string } }>().data.publicKey;
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    const receiver: ECDH = createECDH('prime256v1');
    receiver.generateKeys();
    const auth = randomBytes(16);
    const created = await put(key, {
      kind: 'emu',
      code: 'CR400AF-7101',
      channel: 'webpush',
      subscription: {
        endpoint: push.url,
        expirationTime: null,
        keys: {
          p256dh: receiver.getPublicKey().toString('base64url'),
          auth: auth.toString('base64url'),
        },
      },
    });
    expect(created.json().data.status).toBe('active');
    await rebuild('20261004', 'G710', 'CR400AF-7101');
    await dispatcher().runOnce(NOW);
    expect(push.received).toHaveLength(1);
    const message = push.received[0]!;
    expect(message.headers['content-encoding']).toBe('aes128gcm');
    expect(String(message.headers.authorization)).toContain(`k=${publicKey}`);
    const plain = JSON.parse(
      decrypt(message.body, {
        version: 'aes128gcm',
        privateKey: receiver,
        authSecret: auth,
      }).toString('utf8'),
    ) as { title: string; body: string; url: string };
    expect(plain.url).toBe(`${PUBLIC_URL}/emu/CR400AF-7101`);
    expect(plain.body).toContain('G710');
    // The browser unsubscribed: the push service answers 410 and the subscription is dropped.
    push.status = 410;
    await rebuild('20261005', 'G711', 'CR400AF-7101');
    await dispatcher().runOnce(NOW);
    expect(push.received).toHaveLength(2);
    const list = await app.inject({ url: '/api/v2/auth/subscriptions', headers: bearer(key) });
    expect(list.json().data.items[0]).toMatchObject({ status: 'dropped' });
    await rebuild('20261006', 'G712', 'CR400AF-7101');
    await dispatcher().runOnce(NOW);
    expect(push.received).toHaveLength(2);
    await t.current.db.query('DELETE FROM alert_subscriptions');
  });

  it('sends each alert once with two workers dispatching at once', async () => {
    const user = await makeUser(t.current.db, 'twice');
    for (const [i, code] of ['CR400AF-7202', 'CR400AF-7203'].entries())
      await t.current.db.query(
        `INSERT INTO alert_subscriptions (public_id, user_id, kind, code, emu_id, channel, address,
           events, status, unsubscribe_token_hash)
         SELECT $1, $2, 'emu', code, id, 'email', 'twice@example.com', '{emu.seen}', 'active', $3
           FROM emus WHERE code = $4`,
        [`als_twice${i}`, user.userId, randomBytes(8), code],
      );
    const before = mail.to('twice@example.com').length;
    const [a, b] = [dispatcher(), dispatcher()];
    for (const day of ['20261007', '20261008', '20261009']) {
      await ingestSightings(t.current.db, [
        ...sightings(day, 'G720', 'CR400AF-7202', 1),
        ...sightings(day, 'G721', 'CR400AF-7203', 1),
      ]);
      await buildDailyRecords(t.current.db, serviceDayFromYmd(day));
      await Promise.all([a.runOnce(NOW), b.runOnce(NOW), a.runOnce(NOW), b.runOnce(NOW)]);
    }
    const got = mail.to('twice@example.com').slice(before);
    expect(got).toHaveLength(6);
    expect(new Set(got.map((m) => m.subject)).size).toBe(6);
    const rows = await t.current.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alert_deliveries d JOIN alert_subscriptions s ON s.id = d.subscription_id WHERE s.address = $1 AND d.sent_at IS NOT NULL',
      ['twice@example.com'],
    );
    expect(rows.rows[0]!.n).toBe(6);
  });
  it('subscribes by e-mail from the page a train page links to: signed out to sign-in, signed in a form with CSRF', async () => {
    const user = await makeUser(t.current.db, 'page');
    const { secret } = await issueCredential(t.current.db, {
      userId: user.userId,
      issuer: 'webapp',
      scopes: [...scopesOfRole('user')],
      dailyTokenLimit: 10_000,
    });
    const page = '/alerts/new?kind=train&code=G700';
    const anonymous = await app.inject({ url: page });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toContain('/login?next=');
    const cookie = { cookie: `token=${secret}` };
    const form = await app.inject({ url: page, headers: cookie });
    expect(form.statusCode).toBe(200);
    expect(form.headers['cache-control']).toBe('no-store');
    expect(form.body).toContain('data-alert-push');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const setCookies = ([] as string[]).concat(form.headers['set-cookie'] ?? []);
    const cookies = [`token=${secret}`, ...setCookies.map((c) => c.split(';')[0]!)].join('; ');
    const post = (body: string) =>
      app.inject({
        method: 'POST',
        url: page,
        headers: {
          cookie: cookies,
          origin: PUBLIC_URL,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: body,
      });
    expect((await post('address=page%40example.com')).statusCode).toBe(403);
    const sent = await post(`_csrf=${encodeURIComponent(csrf)}&address=page%40example.com`);
    expect(sent.statusCode).toBe(200);
    expect(sent.body).toContain('page@example.com');
    expect(mail.to('page@example.com')).toHaveLength(1);
    const refused = await post(`_csrf=${encodeURIComponent(csrf)}&address=nope`);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('address');
    await t.current.db.query('DELETE FROM alert_subscriptions');
  });
  it('sends an alert to one of the user’s webhooks as a signed delivery of that endpoint', async () => {
    const user = await makeUser(t.current.db, 'hook');
    const key = await makeKey(t.current.db, user);
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.headers['webhook-signature']) bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const deliveries = new InProcessWebhookDeliveries(context());
    try {
      const { endpoint } = await createWebhookEndpoint(
        t.current.db,
        { userId: user.userId, oauthClientId: null },
        {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
          events: ['export.ready'],
        },
        { allowLoopback: true, maxEndpoints: 10 },
      );
      const created = await put(key, {
        kind: 'emu',
        code: 'CR400AF-7001',
        channel: 'webhook',
        webhook: endpoint.id,
        events: ['emu.seen'],
      });
      expect(created.json().data.status).toBe('active');
      await rebuild('20261010', 'G730', 'CR400AF-7001');
      await dispatcher(deliveries).runOnce(NOW);
      const end = Date.now() + 5_000;
      while (bodies.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(bodies).toHaveLength(1);
      expect(JSON.parse(bodies[0]!)).toMatchObject({
        type: 'alert',
        data: { event: 'emu.seen', emuCode: 'CR400AF-7001', trainCode: 'G730', date: '20261010' },
      });
    } finally {
      await deliveries.close();
      await new Promise<void>((r) => server.close(() => r()));
      await t.current.db.query('DELETE FROM alert_subscriptions');
    }
  });
  it('tells a train’s followers of a unit it has not run in 30 days and of a unit change on a day already built', async () => {
    const user = await makeUser(t.current.db, 'train');
    await t.current.db.query(
      `INSERT INTO alert_subscriptions (public_id, user_id, kind, code, channel, address, events,
         status, unsubscribe_token_hash)
       VALUES ('als_train', $1, 'train', 'G800', 'email', 'train@example.com',
               '{train.rareUnit,train.unitChanged}', 'active', $2)`,
      [user.userId, randomBytes(8)],
    );
    const d = dispatcher();
    await rebuild('20261011', 'G800', 'CR400AF-7202');
    await d.runOnce(NOW);
    // The train's first day in the data: nothing is rare yet, and a first build changes nothing.
    expect(mail.to('train@example.com')).toHaveLength(0);
    await rebuild('20261012', 'G800', 'CR400AF-7203');
    await d.runOnce(NOW);
    const rare = mail.to('train@example.com');
    expect(rare).toHaveLength(1);
    expect(rare[0]!.subject).toContain('CR400AF-7203');
    expect(rare[0]!.text).toContain('30');
    // A second unit the same day, after the day was built: a unit change (and a rare unit).
    await ingestSightings(t.current.db, sightings('20261012', 'G800', 'CR400AF-7201', 3));
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20261012'));
    await d.runOnce(NOW);
    const changed = mail.to('train@example.com').slice(1);
    expect(changed.map((m) => m.subject).join('\n')).toContain('unit changed');
    await t.current.db.query('DELETE FROM alert_subscriptions');
  });
});
