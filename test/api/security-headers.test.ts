import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import type { ApiApp } from '../../src/http/api/app.js';
import {
  concretePath,
  cspDirectives,
  expectSecurityHeaders,
} from '../helpers/security-headers-check.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { FAST_SCRYPT_ENV, makeUser } from './helpers/accounts.js';
import { makeApp, testConfig } from './helpers/api-harness.js';

/**
 * /login, /register, /account, /docs and the OAuth pages sent no CSP or frame
 * protection. Every route the API app registered (the v2 operations, the account and OAuth
 * pages, Swagger UI, Bull Board) is called signed out and as an administrator.
 */
describe("the API app's security headers", () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let cookie: string;

  beforeAll(async () => {
    app = await makeApp(t.current.db, {
      config: testConfig({
        ...FAST_SCRYPT_ENV,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: `emutrack-test-${randomBytes(4).toString('hex')}`,
      }),
    });
    await app.ready();
    const admin = await makeUser(t.current.db, 'csp', 'admin');
    const { secret } = await issueCredential(t.current.db, {
      userId: admin.userId,
      issuer: 'webapp',
      scopes: [...scopesOfRole('admin')],
      dailyTokenLimit: 10_000,
    });
    cookie = `token=${secret}`;
  });
  afterAll(async () => {
    await app.close();
  });

  const call = (method: string, url: string, signedIn: boolean): Promise<LightMyRequestResponse> =>
    app.inject({
      method: method as 'GET',
      url,
      headers: signedIn ? { cookie } : {},
    });

  it('every registered route answers with nosniff, and each HTML page with a CSP refusing inline script and framing', async () => {
    const htmlRoutes = new Set<string>();
    const routes = app.registeredRoutes;
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const path = concretePath(
        route.url,
        { trainCode: 'G1', date: '20261126', emuCode: 'CR400AF-2001' },
        { '/docs/static/*': 'index.html', '/docs/*': '' },
        'x',
      );
      // Reads only: the pages are GETs, and a state-changing call is not this test's business.
      for (const method of route.methods.filter((m) => m === 'GET')) {
        for (const signedIn of [false, true]) {
          const res = await call(method, path, signedIn);
          const what = `${method} ${route.url} (${path}, ${signedIn ? 'administrator' : 'anonymous'}): ${res.statusCode}`;
          if (expectSecurityHeaders(what, res, route)) htmlRoutes.add(`${method} ${route.url}`);
        }
      }
    }
    for (const known of [
      'GET /login',
      'GET /register',
      'GET /account',
      'GET /docs',
      'GET /oauth/authorize',
      'GET /admin/oauth/clients',
      'GET /admin/queues',
    ])
      expect([...htmlRoutes]).toContain(known);
  });

  it('the JSON answers of /api/v2 carry nosniff and no page policy', async () => {
    const res = await call('GET', '/api/v2/records/daily?date=20261126', false);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('the account page runs its copy button by the nonce of its policy, not an inline handler', async () => {
    const key = await app.inject({
      method: 'GET',
      url: '/account?tab=development',
      headers: { cookie },
    });
    expect(key.statusCode).toBe(200);
    expect(key.body).not.toMatch(/\son[a-z]+="/);
    expect(cspDirectives(String(key.headers['content-security-policy'])).get('script-src')).toEqual(
      ["'self'"],
    );
  });
});
