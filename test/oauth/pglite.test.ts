import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import { CSRF_FIELD, form, FORM_HEADERS, oauthApp, signIn, VERIFIER } from './oauth-harness.js';

let db: Db;
let app: Awaited<ReturnType<typeof oauthApp>>;

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db);
  app = await oauthApp(db);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
});

describe('OAuth on the embedded database (PGlite, no DATABASE_URL)', () => {
  it('registers, authorizes, exchanges, replays and revokes as on PostgreSQL', async () => {
    const user = await makeUser(db);
    const browser = await signIn(db, user);
    const created = await app.inject({
      method: 'POST',
      url: '/api/v2/oauth/clients',
      headers: { cookie: browser.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'Embedded',
        redirectUris: [CALLBACK],
        requestedScopes: ['api.auth.me.read'],
      }),
    });
    expect(created.statusCode, created.body).toBe(200);
    const clientId = (created.json() as { data: { clientId: string } }).data.clientId;
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: 'openid api.auth.me.read',
      state: 'st',
      nonce: 'nn',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    }).toString();
    expect(
      (await app.inject({ url: `/oauth/authorize?${q}`, headers: { cookie: browser.cookie } }))
        .statusCode,
    ).toBe(200);
    const allowed = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { ...FORM_HEADERS, cookie: browser.cookie },
      payload: form({ [CSRF_FIELD]: browser.csrf, request: q, decision: 'allow' }),
    });
    expect(allowed.statusCode).toBe(302);
    const code = new URL(allowed.headers.location as string).searchParams.get('code')!;
    const exchange = () =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: FORM_HEADERS,
        payload: form({
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          redirect_uri: CALLBACK,
          code_verifier: VERIFIER,
        }),
      });
    const tokens = (await exchange()).json() as { access_token: string; id_token: string };
    const jwks = (await app.inject('/.well-known/jwks.json')).json() as JSONWebKeySet;
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), {
      audience: clientId,
    });
    expect(payload).toMatchObject({ sub: user.userId, nonce: 'nn' });
    const me = () =>
      app.inject({
        url: '/api/v2/auth/me',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
    expect((await me()).statusCode).toBe(200);
    expect((await exchange()).statusCode).toBe(400);
    expect((await me()).statusCode).toBe(401);
    // A second client of the same user is owned, the first one's consent does not carry over.
    await makeClient(db, user, { name: 'Second' });
    const list = await app.inject({
      url: '/api/v2/oauth/clients',
      headers: { cookie: browser.cookie },
    });
    expect((list.json() as { data: { items: unknown[] } }).data.items).toHaveLength(2);
  });
});
