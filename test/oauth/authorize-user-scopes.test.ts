import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { reviewClient } from '../../src/domain/oauth/client-review.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import { oauthApp, signIn, VERIFIER } from './oauth-harness.js';

// Today every role holds every scope of the catalogue; this file gives ordinary users one scope
// less, to show what happens the day a user does not hold a scope a client asks for.
vi.mock('../../src/domain/accounts/scopes.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/domain/accounts/scopes.js')>();
  return {
    ...original,
    scopesOfRole: (role: 'user' | 'admin') =>
      role === 'admin'
        ? original.ALL_SCOPES
        : original.ALL_SCOPES.filter((s) => s !== 'api.records.daily.read'),
  };
});

const database = useTestDatabase();
let app: Awaited<ReturnType<typeof oauthApp>>;
let client: OAuthClient;
let user: User;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db);
  const admin = await makeUser(db, 'admin');
  client = await makeClient(db, admin);
  await reviewClient(db, client.clientId, {}, admin.userId);
  user = await makeUser(db);
});
afterAll(async () => app?.close());

describe('GET /oauth/authorize: the user must hold every scope', () => {
  it('spec Authentication 9: a scope the signed-in user does not hold is access_denied', async () => {
    const { cookie } = await signIn(database.current.db, user);
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: CALLBACK,
      scope: 'api.auth.me.read api.records.daily.read',
      state: 's1',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    });
    const r = await app.inject({ url: `/oauth/authorize?${q}`, headers: { cookie } });
    expect(r.statusCode).toBe(302);
    const location = new URL(r.headers.location as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toMatch(/api\.records\.daily\.read/);
    expect(location.searchParams.get('state')).toBe('s1');
    // The scopes the user holds are fine.
    q.set('scope', 'api.auth.me.read');
    expect(
      (await app.inject({ url: `/oauth/authorize?${q}`, headers: { cookie } })).statusCode,
    ).toBe(200);
  });
});
