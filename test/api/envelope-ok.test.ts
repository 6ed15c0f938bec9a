import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import type { User } from '../../src/domain/accounts/users.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { midnightOfServiceDay, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { seedLoop, TODAY } from '../circulation/circulation-fixture.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser, TEST_PASSWORD } from '../oauth/oauth-fixtures.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { codeFor, oauthApp, oauthConfig, type TestBrowser } from '../oauth/oauth-harness.js';

/**
 * `ok` on every /api/v2 JSON answer: the routes come from the app's own route table
 * (app.emutrackV2Routes), so an operation added later without a case here fails this test.
 * Each has a request that succeeds (`ok: true`, `data`, `error: ""`) and one that fails
 * (`ok: false`, `error: {code, message}`); `meta` stays on both.
 */

type Who = 'anonymous' | 'key' | 'browser';
interface Call {
  url: string;
  who?: Who;
  body?: unknown;
  /** The status expected (200 for a success unless told). */
  status?: number;
}
interface Case {
  success: () => Promise<Call> | Call;
  failure: () => Promise<Call> | Call;
}

const clock = () => (midnightOfServiceDay(TODAY) + 10 * 3600) * 1000;
const YESTERDAY = ymdOfServiceDay(TODAY - 1);
/** Credentials active at the app's clock (a day before it), not at the wall clock's now. */
const ACTIVE_FROM = new Date(clock() - 86_400_000);

/** A web session of the user (as the sign-in makes it), active at the app's clock. */
async function signIn(db: Parameters<typeof issueCredential>[0], user: User): Promise<TestBrowser> {
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'webapp',
    scopes: scopesOfRole(user.role),
    dailyTokenLimit: 1_000_000,
    activeFrom: ACTIVE_FROM,
  });
  return { cookie: `token=${secret}`, csrf: '' };
}

describe('the ok member on every v2 route (the route table enumerated)', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let admin: User;
  let adminKey: string;
  let browser: TestBrowser;
  const run = { n: 0 };

  beforeAll(async () => {
    const { db } = t.current;
    await seedLoop(db);
    await seedDay(db, '20260810', busyDay(2000));
    app = await oauthApp(db, {
      config: oauthConfig({ QUOTA_ANONYMOUS_CAPACITY: '100000', QUOTA_USER_CAPACITY: '100000' }),
      clock,
    });
    admin = await makeUser(db, 'admin');
    browser = await signIn(db, admin);
    ({ secret: adminKey } = await issueCredential(db, {
      userId: admin.userId,
      issuer: 'api',
      scopes: scopesOfRole('admin'),
      dailyTokenLimit: 1_000_000,
      activeFrom: ACTIVE_FROM,
    }));
  });
  afterAll(async () => app?.close());

  const headersOf = (who: Who | undefined, body: unknown): Record<string, string> => ({
    ...(who === 'key' ? { authorization: `Bearer ${adminKey}` } : {}),
    ...(who === 'browser' ? { cookie: browser.cookie } : {}),
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
  });

  const newClientId = async () => (await makeClient(t.current.db, admin)).clientId;
  const username = () => `ok_user_${++run.n}_${Math.random().toString(36).slice(2, 7)}`;
  const NOT_A_CLIENT = 'no-such-client';

  const cases: Record<string, Case> = {
    'GET /api/v2/records/daily': {
      success: () => ({ url: `/api/v2/records/daily?date=${YESTERDAY}` }),
      failure: () => ({ url: '/api/v2/records/daily?date=2026-08-10', status: 400 }),
    },
    'GET /api/v2/exports/daily': {
      success: () => ({ url: '/api/v2/exports/daily' }),
      failure: () => ({ url: '/api/v2/exports/daily?year=2026&month=13', status: 400 }),
    },
    'GET /api/v2/exports/daily/:date': {
      success: () => ({ url: '/api/v2/exports/daily/20260810', who: 'key' }),
      failure: () => ({ url: '/api/v2/exports/daily/20200101', who: 'key', status: 404 }),
    },
    'GET /api/v2/timetable/train/:trainCode/current': {
      success: () => ({ url: '/api/v2/timetable/train/g11/current' }),
      failure: () => ({ url: '/api/v2/timetable/train/G9999/current', status: 404 }),
    },
    'GET /api/v2/timetable/train/:trainCode/history': {
      success: () => ({ url: '/api/v2/timetable/train/G11/history' }),
      failure: () => ({ url: '/api/v2/timetable/train/G12X/history', status: 400 }),
    },
    'GET /api/v2/timetable/station/:stationName': {
      success: () => ({ url: `/api/v2/timetable/station/${encodeURIComponent('上海虹桥')}` }),
      failure: () => ({
        url: `/api/v2/timetable/station/${encodeURIComponent('无此站')}`,
        status: 404,
      }),
    },
    'GET /api/v2/history/train/:trainCode': {
      success: () => ({ url: '/api/v2/history/train/G11' }),
      failure: () => ({ url: '/api/v2/history/train/G11?limit=0', status: 400 }),
    },
    'GET /api/v2/history/emu/:emuCode': {
      success: () => ({ url: '/api/v2/history/emu/CR400AF-2001' }),
      failure: () => ({ url: '/api/v2/history/emu/CR999-0000', status: 404 }),
    },
    'GET /api/v2/allocation/emu/:emuCode': {
      success: () => ({ url: '/api/v2/allocation/emu/CR400AF-2001' }),
      failure: () => ({ url: '/api/v2/allocation/emu/CR999-0000', status: 404 }),
    },
    'GET /api/v2/timetable/train/:trainCode/circulation/image': {
      success: () => ({ url: '/api/v2/timetable/train/G11/circulation/image' }),
      failure: () => ({
        url: '/api/v2/timetable/train/G11/circulation/image?format=gif',
        status: 400,
      }),
    },
    // Serves the picture itself (not JSON) on success: only its failure is an envelope.
    'GET /api/v2/circulation-images/:file': {
      success: () => ({ url: '' }),
      failure: () => ({ url: '/api/v2/circulation-images/abc.png', status: 400 }),
    },
    'GET /api/v2/search': {
      success: () => ({ url: '/api/v2/search?q=G11' }),
      failure: () => ({ url: '/api/v2/search?q=', status: 400 }),
    },
    'GET /api/v2/prediction/train/:trainCode': {
      success: () => ({ url: '/api/v2/prediction/train/G13' }),
      failure: () => ({ url: '/api/v2/prediction/train/G9999', status: 404 }),
    },
    'POST /api/v2/auth/register': {
      success: () => ({
        url: '/api/v2/auth/register',
        body: { username: username(), password: TEST_PASSWORD },
      }),
      failure: () => ({
        url: '/api/v2/auth/register',
        body: { username: 'x', password: TEST_PASSWORD },
        status: 400,
      }),
    },
    'POST /api/v2/auth/login': {
      success: () => ({
        url: '/api/v2/auth/login',
        body: { username: admin.username, password: TEST_PASSWORD },
      }),
      failure: () => ({
        url: '/api/v2/auth/login',
        body: { username: admin.username, password: 'wrong password' },
        status: 401,
      }),
    },
    'POST /api/v2/auth/logout': {
      success: () => ({ url: '/api/v2/auth/logout' }),
      failure: () => ({
        url: '/api/v2/auth/logout',
        body: '{"a":' + '1'.repeat(20_000) + '}',
        status: 413,
      }),
    },
    'PATCH /api/v2/auth/password': {
      success: async () => {
        const user = await makeUser(t.current.db);
        const own = await signIn(t.current.db, user);
        return {
          url: '/api/v2/auth/password',
          who: 'browser',
          body: { currentPassword: TEST_PASSWORD, newPassword: 'another password 1' },
          browser: own,
        } as Call;
      },
      failure: () => ({
        url: '/api/v2/auth/password',
        who: 'key',
        body: { currentPassword: TEST_PASSWORD, newPassword: 'another password 1' },
        status: 403,
      }),
    },
    'GET /api/v2/auth/me': {
      success: () => ({ url: '/api/v2/auth/me', who: 'key' }),
      failure: () => ({ url: '/api/v2/auth/me', status: 401 }),
    },
    'GET /api/v2/auth/api-keys': {
      success: () => ({ url: '/api/v2/auth/api-keys', who: 'key' }),
      failure: () => ({ url: '/api/v2/auth/api-keys', status: 401 }),
    },
    'POST /api/v2/auth/api-keys': {
      success: () => ({ url: '/api/v2/auth/api-keys', who: 'browser', body: { name: 'ok test' } }),
      failure: () => ({
        url: '/api/v2/auth/api-keys',
        who: 'browser',
        body: { name: 'ok test', scopes: ['no.such.scope'] },
        status: 400,
      }),
    },
    'DELETE /api/v2/auth/api-keys/:revokeId': {
      success: async () => {
        const { credential } = await issueCredential(t.current.db, {
          userId: admin.userId,
          issuer: 'api',
          scopes: [],
          dailyTokenLimit: 10,
          activeFrom: ACTIVE_FROM,
        });
        return { url: `/api/v2/auth/api-keys/${credential.revokeId}`, who: 'key' };
      },
      failure: () => ({ url: '/api/v2/auth/api-keys/nothing', who: 'key', status: 404 }),
    },
    'POST /api/v2/oauth/clients': {
      success: () => ({
        url: '/api/v2/oauth/clients',
        who: 'browser',
        body: { name: 'Board', redirectUris: [CALLBACK], requestedScopes: ['api.auth.me.read'] },
      }),
      failure: () => ({
        url: '/api/v2/oauth/clients',
        who: 'browser',
        body: { name: 'Board', redirectUris: ['not a url'], requestedScopes: [] },
        status: 400,
      }),
    },
    'GET /api/v2/oauth/clients': {
      success: () => ({ url: '/api/v2/oauth/clients', who: 'browser' }),
      failure: () => ({ url: '/api/v2/oauth/clients', who: 'key', status: 403 }),
    },
    'GET /api/v2/oauth/clients/:clientId': {
      success: async () => ({
        url: `/api/v2/oauth/clients/${await newClientId()}`,
        who: 'browser',
      }),
      failure: () => ({
        url: `/api/v2/oauth/clients/${NOT_A_CLIENT}`,
        who: 'browser',
        status: 404,
      }),
    },
    'PATCH /api/v2/oauth/clients/:clientId': {
      success: async () => ({
        url: `/api/v2/oauth/clients/${await newClientId()}`,
        who: 'browser',
        body: { name: 'Renamed' },
      }),
      failure: () => ({
        url: `/api/v2/oauth/clients/${NOT_A_CLIENT}`,
        who: 'browser',
        body: { name: 'Renamed' },
        status: 404,
      }),
    },
    'DELETE /api/v2/oauth/clients/:clientId': {
      success: async () => ({
        url: `/api/v2/oauth/clients/${await newClientId()}`,
        who: 'browser',
      }),
      failure: () => ({
        url: `/api/v2/oauth/clients/${NOT_A_CLIENT}`,
        who: 'browser',
        status: 404,
      }),
    },
    'GET /api/v2/admin/oauth/clients': {
      success: () => ({ url: '/api/v2/admin/oauth/clients', who: 'key' }),
      failure: () => ({ url: '/api/v2/admin/oauth/clients', status: 401 }),
    },
    'PATCH /api/v2/admin/oauth/clients/:clientId': {
      success: async () => ({
        url: `/api/v2/admin/oauth/clients/${await newClientId()}`,
        who: 'key',
        body: { status: 'disabled' },
      }),
      failure: () => ({
        url: `/api/v2/admin/oauth/clients/${NOT_A_CLIENT}`,
        who: 'key',
        body: { status: 'disabled' },
        status: 404,
      }),
    },
    'POST /api/v2/admin/oauth/clients/:clientId/revoke-tokens': {
      success: async () => ({
        url: `/api/v2/admin/oauth/clients/${await newClientId()}/revoke-tokens`,
        who: 'key',
      }),
      failure: () => ({
        url: `/api/v2/admin/oauth/clients/${NOT_A_CLIENT}/revoke-tokens`,
        who: 'key',
        status: 404,
      }),
    },
    'GET /api/v2/auth/authorizations': {
      success: () => ({ url: '/api/v2/auth/authorizations', who: 'browser' }),
      failure: () => ({ url: '/api/v2/auth/authorizations', status: 401 }),
    },
    'DELETE /api/v2/auth/authorizations/:clientId': {
      success: async () => {
        const clientId = await newClientId();
        await codeFor(t.current.db, admin, {
          client_id: clientId,
          redirect_uri: CALLBACK,
          scope: 'api.auth.me.read',
        });
        return { url: `/api/v2/auth/authorizations/${clientId}`, who: 'browser' };
      },
      failure: () => ({
        url: `/api/v2/auth/authorizations/${NOT_A_CLIENT}`,
        who: 'browser',
        status: 404,
      }),
    },
  };

  // The endpoints and corrections the cases below act on, made through the API itself.
  const newWebhook = async () => {
    const res = await send('POST', {
      url: '/api/v2/webhooks',
      who: 'key',
      body: { url: 'https://hooks.example.com/ok', events: ['day.rebuilt'] },
    });
    return res.json().data.id as string;
  };
  const anObservation = async () => {
    const r = await t.current.db.query<{ id: string }>(
      `SELECT o.id::text FROM observations o
        WHERE NOT EXISTS (SELECT 1 FROM retracted_observations r WHERE r.observation_id = o.id)
        ORDER BY o.id LIMIT 1`,
    );
    return Number(r.rows[0]!.id);
  };
  const newRetraction = async () => {
    const res = await send('POST', {
      url: '/api/v2/admin/corrections',
      who: 'key',
      body: { kind: 'retract', observationId: await anObservation(), reason: 'ok test' },
    });
    return res.json().data.correction.id as number;
  };
  const newSubscription = async () => {
    const res = await send('PUT', {
      url: '/api/v2/auth/subscriptions',
      who: 'key',
      body: { kind: 'train', code: 'G11', channel: 'webhook', webhook: await newWebhook() },
    });
    return res.json().data.id as string;
  };
  const TODAY_YMD = ymdOfServiceDay(TODAY);
  const newReport = async () => {
    const res = await send('POST', {
      url: '/api/v2/reports',
      who: 'key',
      body: { trainCode: 'G11', emuCode: 'CR400AF-2001', date: TODAY_YMD },
    });
    return res.json().data.id as number;
  };
  Object.assign(cases, {
    'GET /api/v2/records/changes': {
      success: () => ({ url: '/api/v2/records/changes?limit=5' }),
      failure: () => ({ url: '/api/v2/records/changes?cursor=x', status: 400 }),
    },
    'POST /api/v2/webhooks': {
      success: () => ({
        url: '/api/v2/webhooks',
        who: 'key',
        body: { url: 'https://hooks.example.com/ok', events: ['day.rebuilt'] },
      }),
      failure: () => ({
        url: '/api/v2/webhooks',
        who: 'key',
        body: { url: 'https://10.0.0.1/ok', events: ['day.rebuilt'] },
        status: 400,
      }),
    },
    'GET /api/v2/webhooks': {
      success: () => ({ url: '/api/v2/webhooks', who: 'key' }),
      failure: () => ({ url: '/api/v2/webhooks', status: 401 }),
    },
    'GET /api/v2/webhooks/:id/deliveries': {
      success: async () => ({
        url: `/api/v2/webhooks/${await newWebhook()}/deliveries`,
        who: 'key',
      }),
      failure: () => ({ url: '/api/v2/webhooks/whe_nothing/deliveries', who: 'key', status: 404 }),
    },
    'DELETE /api/v2/webhooks/:id': {
      success: async () => ({ url: `/api/v2/webhooks/${await newWebhook()}`, who: 'key' }),
      failure: () => ({ url: '/api/v2/webhooks/whe_nothing', who: 'key', status: 404 }),
    },
    'POST /api/v2/webhooks/:id/rotate-secret': {
      success: async () => ({
        url: `/api/v2/webhooks/${await newWebhook()}/rotate-secret`,
        who: 'key',
      }),
      failure: () => ({
        url: '/api/v2/webhooks/whe_nothing/rotate-secret',
        who: 'key',
        status: 404,
      }),
    },
    'GET /api/v2/auth/favorites': {
      success: () => ({ url: '/api/v2/auth/favorites', who: 'key' }),
      failure: () => ({ url: '/api/v2/auth/favorites', status: 401 }),
    },
    'PUT /api/v2/auth/favorites': {
      success: () => ({
        url: '/api/v2/auth/favorites',
        who: 'key',
        body: { kind: 'train', code: 'g1001' },
      }),
      failure: () => ({
        url: '/api/v2/auth/favorites',
        who: 'key',
        body: { kind: 'train', code: 'G99999' },
        status: 400,
      }),
    },
    'DELETE /api/v2/auth/favorites': {
      success: () => ({ url: '/api/v2/auth/favorites?kind=train&code=G1001', who: 'key' }),
      failure: () => ({
        url: '/api/v2/auth/favorites?kind=plane&code=G1001',
        who: 'key',
        status: 400,
      }),
    },
    'GET /api/v2/auth/subscriptions': {
      success: () => ({ url: '/api/v2/auth/subscriptions', who: 'key' }),
      failure: () => ({ url: '/api/v2/auth/subscriptions', status: 401 }),
    },
    'GET /api/v2/auth/subscriptions/vapid-key': {
      success: () => ({ url: '/api/v2/auth/subscriptions/vapid-key', who: 'key' }),
      failure: () => ({ url: '/api/v2/auth/subscriptions/vapid-key', status: 401 }),
    },
    'PUT /api/v2/auth/subscriptions': {
      success: async () => ({
        url: '/api/v2/auth/subscriptions',
        who: 'key',
        body: {
          kind: 'emu',
          code: 'CR400AF-2001',
          channel: 'webhook',
          webhook: await newWebhook(),
        },
      }),
      failure: () => ({
        url: '/api/v2/auth/subscriptions',
        who: 'key',
        body: { kind: 'train', code: 'G11', channel: 'pigeon' },
        status: 400,
      }),
    },
    'DELETE /api/v2/auth/subscriptions/:id': {
      success: async () => ({
        url: `/api/v2/auth/subscriptions/${await newSubscription()}`,
        who: 'key',
      }),
      failure: () => ({ url: '/api/v2/auth/subscriptions/als_nothing', who: 'key', status: 404 }),
    },
    'POST /api/v2/reports': {
      success: () => ({
        url: '/api/v2/reports',
        who: 'key',
        body: { trainCode: 'G12', emuCode: 'CR400AF-2002', date: TODAY_YMD },
      }),
      failure: () => ({
        url: '/api/v2/reports',
        who: 'key',
        body: { trainCode: 'G11', emuCode: 'CR400AF-2001', date: '20200101' },
        status: 400,
      }),
    },
    // Takes the raw image as its body (not JSON): its success is in report-photo.test.ts.
    'PUT /api/v2/reports/:reportId/photo': {
      success: () => ({ url: '' }),
      failure: () => ({
        url: '/api/v2/reports/987654321/photo',
        who: 'key',
        body: { not: 'an image' },
        status: 400,
      }),
    },
    'GET /api/v2/admin/reports': {
      success: () => ({ url: '/api/v2/admin/reports?status=pending', who: 'key' }),
      failure: () => ({ url: '/api/v2/admin/reports', status: 401 }),
    },
    'POST /api/v2/admin/reports/:reportId/accept': {
      success: async () => ({
        url: `/api/v2/admin/reports/${await newReport()}/accept`,
        who: 'key',
        body: { reason: 'ok test' },
      }),
      failure: () => ({
        url: '/api/v2/admin/reports/987654321/accept',
        who: 'key',
        body: { reason: 'ok test' },
        status: 404,
      }),
    },
    'POST /api/v2/admin/reports/:reportId/refuse': {
      success: async () => ({
        url: `/api/v2/admin/reports/${await newReport()}/refuse`,
        who: 'key',
        body: { reason: 'ok test' },
      }),
      failure: () => ({
        url: '/api/v2/admin/reports/987654321/refuse',
        who: 'key',
        body: { reason: 'ok test' },
        status: 404,
      }),
    },
    'GET /api/v2/admin/corrections': {
      success: () => ({ url: '/api/v2/admin/corrections', who: 'key' }),
      failure: () => ({ url: '/api/v2/admin/corrections', status: 401 }),
    },
    'POST /api/v2/admin/corrections': {
      success: async () => ({
        url: '/api/v2/admin/corrections',
        who: 'key',
        body: { kind: 'retract', observationId: await anObservation(), reason: 'ok test' },
      }),
      failure: () => ({
        url: '/api/v2/admin/corrections',
        who: 'key',
        body: { kind: 'retract', observationId: 987654321, reason: 'ok test' },
        status: 404,
      }),
    },
    'POST /api/v2/admin/corrections/:correctionId/undo': {
      success: async () => ({
        url: `/api/v2/admin/corrections/${await newRetraction()}/undo`,
        who: 'key',
        body: { reason: 'ok test' },
      }),
      failure: () => ({
        url: '/api/v2/admin/corrections/987654321/undo',
        who: 'key',
        body: { reason: 'ok test' },
        status: 404,
      }),
    },
  } satisfies Record<string, Case>);

  async function send(method: string, call: Call & { browser?: TestBrowser }) {
    const headers = headersOf(call.who, call.body);
    if (call.browser) headers.cookie = call.browser.cookie;
    return app.inject({
      method: method as 'GET',
      url: call.url,
      headers,
      ...(call.body !== undefined
        ? { payload: typeof call.body === 'string' ? call.body : JSON.stringify(call.body) }
        : {}),
    });
  }

  it('has a case for every v2 route of the route table, and no case for a route that is gone', async () => {
    await app.ready();
    const table = app.emutrackV2Routes.map((r) => `${r.method} ${r.url}`);
    expect(table.length).toBeGreaterThan(25);
    expect([...table].sort()).toEqual(Object.keys(cases).sort());
  });

  it('answers every route with ok: true, data and error "" on success, and ok: false with error {code, message} on failure', async () => {
    await app.ready();
    for (const route of app.emutrackV2Routes) {
      const name = `${route.method} ${route.url}`;
      const routeCase = cases[name]!;
      const success = await routeCase.success();
      if (success.url !== '') {
        const res = await send(route.method, success);
        expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBe(success.status ?? 200);
        const body = res.json();
        expect(Object.keys(body), name).toEqual(['ok', 'meta', 'data', 'error']);
        expect(body.ok, name).toBe(true);
        expect(body.error, name).toBe('');
        expect(body.meta, name).toMatchObject({
          remain: expect.any(Number),
          cost: expect.any(Number),
        });
      }
      const failure = await routeCase.failure();
      const res = await send(route.method, failure);
      expect(res.statusCode, `${name} failure: ${res.body.slice(0, 300)}`).toBe(failure.status);
      const body = res.json();
      expect(Object.keys(body), name).toEqual(['ok', 'meta', 'error']);
      expect(body.ok, name).toBe(false);
      expect(body.error, name).toEqual({ code: expect.any(String), message: expect.any(String) });
      expect(body.meta, name).toMatchObject({
        remain: expect.any(Number),
        cost: expect.any(Number),
      });
    }
  });

  it('carries ok on the answers of the prepared-answer fast path (a page answered again)', async () => {
    const url = `/api/v2/records/daily?date=${YESTERDAY}&limit=5`;
    const first = await app.inject(url);
    const again = await app.inject(url);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ ok: true, error: '', data: first.json().data });
    expect(Object.keys(again.json())).toEqual(['ok', 'meta', 'data', 'error']);
  });

  it('carries ok: false on an unknown operation (404), a malformed URL and a 401', async () => {
    for (const [url, status, headers] of [
      ['/api/v2/no/such/operation', 404, {}],
      ['/api/v2/exports/daily/%zz', 400, {}],
      ['/api/v2/records/daily?date=20260810', 401, { authorization: 'Bearer nope' }],
    ] as const) {
      const res = await app.inject({ url, headers });
      expect(res.statusCode, url).toBe(status);
      expect(res.json()).toMatchObject({ ok: false, error: { code: expect.any(String) } });
    }
  });
});
