import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import {
  codeFor,
  form,
  FORM_HEADERS,
  oauthApp,
  signIn,
  VERIFIER,
  type TestBrowser,
} from './oauth-harness.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';

const database = useTestDatabase();
let app: Awaited<ReturnType<typeof oauthApp>>;
let user: User;
let browser: TestBrowser;
let client: OAuthClient;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db);
  user = await makeUser(db);
  browser = await signIn(db, user);
  // The owner's own client: its pending scopes are usable by the owner.
  client = await makeClient(db, user, {
    requestedScopes: ['api.auth.me.read', 'api.records.daily.read'],
  });
});
afterAll(async () => app?.close());

async function accessToken(scope: string): Promise<string> {
  const code = await codeFor(database.current.db, user, {
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope,
  });
  const r = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: FORM_HEADERS,
    payload: form({
      grant_type: 'authorization_code',
      code,
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      code_verifier: VERIFIER,
    }),
  });
  expect(r.statusCode, r.body).toBe(200);
  return (r.json() as { access_token: string }).access_token;
}

const me = (token: string) =>
  app.inject({ url: '/api/v2/auth/me', headers: { authorization: `Bearer ${token}` } });

describe('access tokens on the API', () => {
  it("work as bearer credentials with issuer oauth, the granted scopes only, on the user's quota", async () => {
    const token = await accessToken('openid api.auth.me.read');
    const r = await me(token);
    expect(r.statusCode, r.body).toBe(200);
    const { data, meta } = r.json() as {
      data: {
        user: { userId: string };
        apiKey: { issuer: string; scopes: string[] };
        quota: { tokenLimit: number };
      };
      meta: { cost: number; remain: number };
    };
    expect(data.user.userId).toBe(user.userId);
    expect(data.apiKey.issuer).toBe('oauth');
    expect(data.apiKey.scopes).toEqual(['api.auth.me.read']);
    // The signed-in user's bucket (1000), not an anonymous one (25).
    expect(data.quota.tokenLimit).toBe(1000);
    expect(meta.cost).toBe(1);
    const narrow = await accessToken('api.records.daily.read');
    const refused = await me(narrow);
    expect(refused.statusCode).toBe(403);
    expect((refused.json() as { error: { code: string } }).error.code).toBe('insufficient_scope');
  });

  it('GET /api/v2/auth/authorizations lists the app; DELETE revokes its tokens and consent at once', async () => {
    const token = await accessToken('api.auth.me.read');
    // A remembered consent too, as the consent page leaves it.
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      scope: 'api.auth.me.read',
      state: 's',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    }).toString();
    const allow = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { ...FORM_HEADERS, cookie: browser.cookie },
      payload: form({ _csrf: browser.csrf, request: q, decision: 'allow' }),
    });
    expect(allow.statusCode).toBe(302);

    const list = await app.inject({
      url: '/api/v2/auth/authorizations',
      headers: { cookie: browser.cookie },
    });
    expect(list.statusCode, list.body).toBe(200);
    const items = (list.json() as { data: { items: Record<string, unknown>[] } }).data.items;
    expect(items).toEqual([
      expect.objectContaining({
        clientId: client.clientId,
        name: client.name,
        ownerUsername: user.username,
        scopes: expect.arrayContaining(['api.auth.me.read']),
      }),
    ]);
    expect(items[0]!.activeTokens).toBeGreaterThanOrEqual(1);
    expect((await me(token)).statusCode).toBe(200);

    const revoke = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/authorizations/${client.clientId}`,
      headers: { cookie: browser.cookie },
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect((await me(token)).statusCode).toBe(401);
    const after = await app.inject({
      url: '/api/v2/auth/authorizations',
      headers: { cookie: browser.cookie },
    });
    expect((after.json() as { data: { items: unknown[] } }).data.items).toEqual([]);
    // The consent is forgotten: the next authorization asks again.
    const again = await app.inject({
      url: `/oauth/authorize?${q}`,
      headers: { cookie: browser.cookie },
    });
    expect(again.statusCode).toBe(200);
    // Nothing left to revoke: 404.
    const twice = await app.inject({
      method: 'DELETE',
      url: `/api/v2/auth/authorizations/${client.clientId}`,
      headers: { cookie: browser.cookie },
    });
    expect(twice.statusCode).toBe(404);
  });
});
