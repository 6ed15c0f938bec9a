import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeUser } from '../oauth/oauth-fixtures.js';
import { bearer, makeKey } from './helpers/accounts.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { oauthApp, oauthConfig, signIn, type TestBrowser } from '../oauth/oauth-harness.js';

const PUBLIC_URL = 'http://127.0.0.1:3000';
const OTHER = 'https://board.example';
const EXPOSED = ['x-api-remain', 'x-api-cost', 'retry-after', 'etag'];

/** The routes open to browser apps, each with a method a preflight asks for. */
const CORS_ROUTES: Array<[string, string, string[]]> = [
  ['/api/v2/records/daily?date=20260810', 'GET', ['GET', 'POST', 'PATCH', 'DELETE']],
  ['/api/v2/auth/me', 'GET', ['GET']],
  ['/api/v2/auth/api-keys', 'POST', ['POST', 'DELETE']],
  ['/oauth/token', 'POST', ['POST']],
  ['/oauth/userinfo', 'GET', ['GET', 'POST']],
  ['/.well-known/openid-configuration', 'GET', ['GET']],
  ['/.well-known/jwks.json', 'GET', ['GET']],
];

const exposed = (headers: Record<string, unknown>) =>
  String(headers['access-control-expose-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());

describe('CORS on the API, the OAuth endpoints and discovery; not on the pages', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let browser: TestBrowser;
  let key: string;

  beforeAll(async () => {
    await seedDay(t.current.db, '20260810', busyDay(2000));
    app = await oauthApp(t.current.db, { config: oauthConfig({ PUBLIC_URL }) });
    const user = await makeUser(t.current.db);
    browser = await signIn(t.current.db, user);
    key = await makeKey(t.current.db, user);
  });
  afterAll(async () => app?.close());

  for (const [url, method, allowed] of CORS_ROUTES) {
    it(`answers a preflight of ${method} ${url.split('?')[0]} with 204, any origin, Authorization allowed, no credentials`, async () => {
      const res = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: OTHER,
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization',
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const methods = String(res.headers['access-control-allow-methods']).split(/,\s*/);
      for (const m of allowed) expect(methods).toContain(m);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain(
        'authorization',
      );
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    });
  }

  it('sends Allow-Origin * and exposes the quota headers, Retry-After and ETag on v2 answers: success, error, prepared', async () => {
    const url = '/api/v2/records/daily?date=20260810&limit=3';
    for (const res of [
      await app.inject({ url, headers: { origin: OTHER } }),
      // The second is answered from the kept page in the edge's first hook.
      await app.inject({ url, headers: { origin: OTHER } }),
      await app.inject({ url: '/api/v2/records/daily?date=bad', headers: { origin: OTHER } }),
      await app.inject({ url: '/api/v2/auth/me', headers: { origin: OTHER } }),
      await app.inject({ url: '/api/v2/no/such', headers: { origin: OTHER } }),
    ]) {
      expect(res.headers['access-control-allow-origin'], res.body).toBe('*');
      for (const h of EXPOSED) expect(exposed(res.headers)).toContain(h);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['x-api-remain']).toBeDefined();
    }
  });

  it('sends Allow-Origin * on the token, userinfo, discovery and JWKS answers', async () => {
    for (const res of [
      await app.inject({ method: 'POST', url: '/oauth/token', headers: { origin: OTHER } }),
      await app.inject({ url: '/oauth/userinfo', headers: { origin: OTHER, ...bearer('nope') } }),
      await app.inject({ url: '/.well-known/openid-configuration', headers: { origin: OTHER } }),
      await app.inject({ url: '/.well-known/jwks.json', headers: { origin: OTHER } }),
    ]) {
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('gives the HTML pages (account, sign-in, consent, admin review) no CORS headers, and their preflights 404', async () => {
    for (const url of [
      '/account',
      '/login',
      '/oauth/authorize?client_id=x',
      '/admin/oauth/clients',
    ]) {
      const res = await app.inject({ url, headers: { origin: OTHER, cookie: browser.cookie } });
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      const pre = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: OTHER, 'access-control-request-method': 'POST' },
      });
      expect(pre.statusCode, url).toBe(404);
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });

  it('never honours the token cookie on a cross-origin request: bearer only', async () => {
    const me = (headers: Record<string, string>) =>
      app.inject({ url: '/api/v2/auth/me', headers: { cookie: browser.cookie, ...headers } });
    // Same origin (or no Origin at all: a program, a same-origin GET): the cookie holds.
    expect((await me({})).statusCode).toBe(200);
    expect((await me({ origin: PUBLIC_URL })).statusCode).toBe(200);
    expect((await me({ origin: 'http://localhost:4000', host: 'localhost:4000' })).statusCode).toBe(
      200,
    );
    // Another origin, an opaque one, another port of the same host: anonymous (401 here).
    for (const origin of [OTHER, 'null', 'http://127.0.0.1:3001']) {
      const res = await me({ origin });
      expect(res.statusCode, origin).toBe(401);
      expect(res.json().error.code).toBe('invalid_api_key');
    }
    // A bearer key from another origin works.
    const withKey = await app.inject({
      url: '/api/v2/auth/me',
      headers: { origin: OTHER, cookie: browser.cookie, ...bearer(key) },
    });
    expect(withKey.statusCode).toBe(200);
    // A read open to anonymous callers is answered as anonymous (the anonymous bucket's level).
    const records = await app.inject({
      url: '/api/v2/records/daily?date=20260810&limit=1',
      headers: { origin: OTHER, cookie: browser.cookie },
    });
    expect(records.statusCode).toBe(200);
    expect(records.json().meta.remain).toBeLessThan(25);
    // Another origin cannot sign the browser out either.
    const logout = await app.inject({
      method: 'POST',
      url: '/api/v2/auth/logout',
      headers: { origin: OTHER, cookie: browser.cookie },
    });
    expect(logout.json().data).toEqual({ signedOut: false });
    expect((await me({})).statusCode).toBe(200);
  });
});
