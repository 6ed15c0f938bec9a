import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { FAST_SCRYPT_ENV, bearer, makeKey, makeUser } from './helpers/accounts.js';
import { capturingLogger, makeApp, testConfig } from './helpers/api-harness.js';

const t = useTestDatabase();
let app: ApiApp;

beforeAll(async () => {
  app = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV) });
});
afterAll(async () => {
  await app.close();
});

function post(
  url: string,
  body: unknown,
  extra: { cookies?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  return app.inject({
    method: 'POST',
    url,
    cookies: extra.cookies,
    headers: { 'content-type': 'application/json', ...extra.headers },
    payload: JSON.stringify(body),
  });
}

/** A signed-in browser's token cookie. */
async function session(prefix: string) {
  const user = await makeUser(t.current.db, prefix);
  const res = await post('/api/v2/auth/login', {
    username: user.username,
    password: user.password,
  });
  return { user, token: res.cookies.find((c) => c.name === 'token')!.value };
}

describe('API keys', () => {
  it('creates a key (shown once), lists it with the session marked current, revokes it', async () => {
    const { user, token } = await session('kate');
    const created = await post(
      '/api/v2/auth/api-keys',
      { name: 'my script', scopes: ['api.records.daily.read', 'api.auth.me.read'] },
      { cookies: { token } },
    );
    expect(created.statusCode).toBe(200);
    const key = created.json().data;
    expect(key).toMatchObject({
      name: 'my script',
      issuer: 'api',
      scopes: ['api.auth.me.read', 'api.records.daily.read'],
      dailyTokenLimit: 10_000,
    });
    expect(key.apiKey).toMatch(/^api_[A-Za-z0-9_-]{43}$/);
    expect(key.maskedApiKey).toBe(`${key.apiKey.slice(0, 8)}****${key.apiKey.slice(-4)}`);
    expect(key.expiresAt - key.activeFrom).toBe(30 * 86_400);

    const list = await app.inject({ url: '/api/v2/auth/api-keys', cookies: { token } });
    expect(list.statusCode).toBe(200);
    const data = list.json().data;
    expect(JSON.stringify(data)).not.toContain(key.apiKey);
    expect(data.items.map((i: { issuer: string }) => i.issuer)).toEqual(['api', 'webapp']);
    expect(data.items[0]).toMatchObject({
      revokeId: key.revokeId,
      maskedKeyId: key.maskedApiKey,
      isCurrent: false,
    });
    expect(data.items[1]).toMatchObject({ issuer: 'webapp', isCurrent: true });
    expect(data.items[0].revokedAt).toBeUndefined();
    expect(data.creatableScopes).toContain('api.records.daily.read');
    expect(data.creatableScopes).not.toContain('api.admin.oauth.clients.review');
    // Managing credentials is creatable but only by name: not a default scope.
    expect(data.defaultScopes).toEqual(
      data.creatableScopes.filter((s: string) => s !== 'api.auth.credentials.manage'),
    );
    expect(data.maxLifetimeSeconds).toBe(1826 * 86_400);
    expect(data.quota).toMatchObject({
      tokenLimit: 1000,
      refillAmount: 5,
      refillIntervalSeconds: 300,
    });

    // The key works, but listing credentials is not among its scopes.
    expect(
      (await app.inject({ url: '/api/v2/auth/me', headers: bearer(key.apiKey) })).statusCode,
    ).toBe(200);
    const byKey = await app.inject({ url: '/api/v2/auth/api-keys', headers: bearer(key.apiKey) });
    expect(byKey.statusCode).toBe(403);

    const del = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/api-keys/${key.revokeId}`,
      cookies: { token },
    });
    expect(del.statusCode).toBe(200);
    const after = await app.inject({ url: '/api/v2/auth/api-keys', cookies: { token } });
    expect(after.json().data.items[0].revokedAt).toBeGreaterThan(0);
    expect(
      (await app.inject({ url: '/api/v2/auth/me', headers: bearer(key.apiKey) })).statusCode,
    ).toBe(401);
    void user;
  });

  it("refuses scopes beyond the user's with 400 naming the scope (an admin may have it)", async () => {
    const { token } = await session('leo');
    const res = await post(
      '/api/v2/auth/api-keys',
      { name: 'too much', scopes: ['api.records.daily.read', 'api.admin.oauth.clients.review'] },
      { cookies: { token } },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_param');
    expect(res.json().error.message).toContain('api.admin.oauth.clients.review');
    const admin = await makeUser(t.current.db, 'boss', 'admin');
    const login = await post('/api/v2/auth/login', {
      username: admin.username,
      password: admin.password,
    });
    const adminToken = login.cookies.find((c) => c.name === 'token')!.value;
    const ok = await post(
      '/api/v2/auth/api-keys',
      { name: 'review', scopes: ['api.admin.oauth.clients.review'] },
      { cookies: { token: adminToken } },
    );
    expect(ok.statusCode).toBe(200);
  });

  it('refuses an unknown scope with 400 naming it', async () => {
    const { token } = await session('lia');
    const res = await post(
      '/api/v2/auth/api-keys',
      { name: 'x', scopes: ['api.everything'] },
      { cookies: { token } },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('api.everything');
  });

  for (const [name, body, field] of [
    ['an empty name', { name: '' }, 'name'],
    ['an unknown member', { name: 'k', owner: 'someone' }, 'owner'],
    [
      'an expiry beyond 5 years',
      { name: 'k', expiresAt: Math.floor(Date.now() / 1000) + 6 * 366 * 86_400 },
      'expiresAt',
    ],
    [
      'an expiry before activeFrom',
      { name: 'k', activeFrom: 2_000_000_000, expiresAt: 1_999_999_999 },
      'expiresAt',
    ],
    ['a text activeFrom', { name: 'k', activeFrom: 'tomorrow' }, 'activeFrom'],
  ] as const) {
    it(`refuses ${name} with 400 invalid_param naming ${field}`, async () => {
      const { token } = await session('mia');
      const res = await post('/api/v2/auth/api-keys', body, { cookies: { token } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_param');
      expect(res.json().error.message).toContain(field);
    });
  }

  it('does not let an API key create keys (403 forbidden)', async () => {
    const user = await makeUser(t.current.db, 'ned');
    const key = await makeKey(t.current.db, user);
    const res = await post('/api/v2/auth/api-keys', { name: 'child' }, { headers: bearer(key) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
  });

  it("answers another user's revokeId with 404 and leaves that key alone", async () => {
    const owner = await makeUser(t.current.db, 'olga');
    const created = await post('/api/v2/auth/login', {
      username: owner.username,
      password: owner.password,
    });
    const ownerToken = created.cookies.find((c) => c.name === 'token')!.value;
    const key = (
      await post('/api/v2/auth/api-keys', { name: 'mine' }, { cookies: { token: ownerToken } })
    ).json().data;
    const { token } = await session('peter');
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/api-keys/${key.revokeId}`,
      cookies: { token },
    });
    expect(res.statusCode).toBe(404);
    expect(
      (await app.inject({ url: '/api/v2/auth/me', headers: bearer(key.apiKey) })).statusCode,
    ).toBe(200);
  });

  it("a key scoped to exports can no longer list or revoke its owner's credentials: 403 insufficient_scope, the web session lives", async () => {
    const { user, token } = await session('exporter');
    const me = await app.inject({ url: '/api/v2/auth/api-keys', cookies: { token } });
    const sessionRevokeId = (
      me.json().data.items as { revokeId: string; isCurrent: boolean }[]
    ).find((c) => c.isCurrent)!.revokeId;
    const exportsKey = await makeKey(t.current.db, user, { scopes: ['api.exports.daily.read'] });
    const list = await app.inject({ url: '/api/v2/auth/api-keys', headers: bearer(exportsKey) });
    expect(list.statusCode).toBe(403);
    expect(list.json().error.code).toBe('insufficient_scope');
    expect(list.json().error.message).toContain('api.auth.credentials.manage');
    const revoke = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/api-keys/${sessionRevokeId}`,
      headers: bearer(exportsKey),
    });
    expect(revoke.statusCode).toBe(403);
    expect((await app.inject({ url: '/api/v2/auth/me', cookies: { token } })).statusCode).toBe(200);
    // A key made by default (no scopes named) does not manage credentials either.
    const byDefault = (
      await post('/api/v2/auth/api-keys', { name: 'default' }, { cookies: { token } })
    ).json().data;
    expect(byDefault.scopes).not.toContain('api.auth.credentials.manage');
    const denied = await app.inject({
      url: '/api/v2/auth/api-keys',
      headers: bearer(byDefault.apiKey),
    });
    expect(denied.statusCode).toBe(403);
  });

  it('a key made with api.auth.credentials.manage lists and revokes', async () => {
    const { user, token } = await session('manager');
    const manager = (
      await post(
        '/api/v2/auth/api-keys',
        { name: 'manager', scopes: ['api.auth.credentials.manage'] },
        { cookies: { token } },
      )
    ).json().data;
    const other = await makeKey(t.current.db, user, { scopes: ['api.exports.daily.read'] });
    const list = await app.inject({
      url: '/api/v2/auth/api-keys',
      headers: bearer(manager.apiKey),
    });
    expect(list.statusCode).toBe(200);
    const items = list.json().data.items as { revokeId: string; name: string }[];
    expect(items.length).toBeGreaterThanOrEqual(3);
    const otherRevokeId = items.find(
      (c) => c.revokeId !== manager.revokeId && c.name === '',
    )?.revokeId;
    expect(otherRevokeId).toBeDefined();
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/api-keys/${otherRevokeId}`,
      headers: bearer(manager.apiKey),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v2/auth/me', headers: bearer(other) })).statusCode).toBe(
      401,
    );
  });

  it('refuses anonymous callers with 401', async () => {
    expect((await app.inject({ url: '/api/v2/auth/api-keys' })).statusCode).toBe(401);
    expect((await post('/api/v2/auth/api-keys', { name: 'x' })).statusCode).toBe(401);
  });
});

describe('secrets stay secret', () => {
  it('leaves no password, key, cookie or Authorization header in the logs of a whole sign-in and key flow', async () => {
    const { logger, lines } = capturingLogger();
    const logged = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV), logger });
    const secrets: string[] = [];
    try {
      const username = 'quiet_user';
      const password = 'very-secret-password';
      secrets.push(password);
      const json = { 'content-type': 'application/json' };
      const reg = await logged.inject({
        method: 'POST',
        url: '/api/v2/auth/register',
        headers: json,
        payload: JSON.stringify({ username, password }),
      });
      const token = reg.cookies.find((c) => c.name === 'token')!.value;
      secrets.push(token);
      // A failed sign-in and a wrong current password are logged as what they are, not with what was sent.
      await logged.inject({
        method: 'POST',
        url: '/api/v2/auth/login',
        headers: json,
        payload: JSON.stringify({ username, password: 'wrong-password-x' }),
      });
      secrets.push('wrong-password-x');
      const login = await logged.inject({
        method: 'POST',
        url: '/api/v2/auth/login',
        headers: json,
        payload: JSON.stringify({ username, password }),
      });
      const token2 = login.cookies.find((c) => c.name === 'token')!.value;
      secrets.push(token2);
      const created = await logged.inject({
        method: 'POST',
        url: '/api/v2/auth/api-keys',
        headers: json,
        cookies: { token: token2 },
        payload: JSON.stringify({ name: 'k' }),
      });
      const key = created.json().data.apiKey as string;
      secrets.push(key);
      await logged.inject({ url: '/api/v2/auth/me', headers: bearer(key) });
      await logged.inject({ url: '/api/v2/auth/me', headers: bearer(key + 'x') });
      await logged.inject({
        method: 'PATCH',
        url: '/api/v2/auth/password',
        headers: json,
        cookies: { token: token2 },
        payload: JSON.stringify({ currentPassword: password, newPassword: 'another-secret-1' }),
      });
      secrets.push('another-secret-1');
      // Someone logging a request's headers or a body gets them redacted.
      logged.log.info(
        {
          headers: { authorization: `Bearer ${key}`, cookie: `token=${token2}` },
          body: { password },
        },
        'debugging',
      );
      await logged.inject({
        method: 'DELETE',
        url: `/api/v2/auth/api-keys/${created.json().data.revokeId}`,
        cookies: { token: token2 },
      });
      await logged.inject({
        method: 'POST',
        url: '/api/v2/auth/logout',
        cookies: { token: token2 },
      });
    } finally {
      await logged.close();
    }
    const text = JSON.stringify(lines());
    expect(lines().length).toBeGreaterThan(10); // the requests were logged
    expect(text).toContain('[Redacted]');
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Nor the body of any secret (the part after the issuer prefix).
    for (const secret of secrets.filter((s) => s.includes('_'))) {
      expect(text).not.toContain(secret.slice(secret.indexOf('_') + 1, secret.indexOf('_') + 20));
    }
  });

  it('keeps secrets out of the OpenAPI examples and documents the operations with their security', async () => {
    const doc = (await app.inject({ url: '/api/v2/openapi.json' })).json();
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/(webapp|api|oauth)_[A-Za-z0-9_-]{43}/);
    expect(doc.paths['/api/v2/auth/me'].get).toMatchObject({
      operationId: 'GetAuthMe',
      tags: ['Auth'],
      security: [{ bearerAuth: ['api.auth.me.read'] }, { cookieAuth: ['api.auth.me.read'] }],
    });
    expect(doc.paths['/api/v2/auth/login'].post.security).toEqual([{}]);
    expect(doc.paths['/api/v2/auth/api-keys'].post.security).toEqual([
      { bearerAuth: [] },
      { cookieAuth: [] },
    ]);
    expect(doc.paths['/api/v2/records/daily'].get.security).toEqual([
      {},
      { bearerAuth: ['api.records.daily.read'] },
      { cookieAuth: ['api.records.daily.read'] },
    ]);
    for (const op of [
      'Register',
      'Login',
      'Logout',
      'ChangePassword',
      'ListApiKeys',
      'CreateApiKey',
      'RevokeApiKey',
    ]) {
      expect(text).toContain(`"operationId":"${op}"`);
    }
    expect(doc.components.securitySchemes).toHaveProperty('bearerAuth');
  });
});
