import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser } from './oauth-fixtures.js';
import { oauthApp, oauthConfig } from './oauth-harness.js';

const database = useTestDatabase();
let app: Awaited<ReturnType<typeof oauthApp>>;
let user: User;
let client: OAuthClient;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db, { config: oauthConfig({ PUBLIC_URL: 'https://rail.example/' }) });
  user = await makeUser(db);
  client = await makeClient(db, user);
});
afterAll(async () => app?.close());

async function token(scopes: string[], issuer: 'oauth' | 'api' = 'oauth') {
  const issued = await issueCredential(database.current.db, {
    userId: user.userId,
    issuer,
    scopes,
    dailyTokenLimit: 100,
    ...(issuer === 'oauth' ? { oauthClientId: client.clientId } : {}),
  });
  return issued.secret;
}

const userinfo = (authorization?: string, method: 'GET' | 'POST' = 'GET') =>
  app.inject({
    method,
    url: '/oauth/userinfo',
    headers: authorization === undefined ? {} : { authorization },
  });

describe('GET /oauth/userinfo (OIDC Core 5.3, RFC 6750)', () => {
  it('tells sub, and preferred_username only with api.auth.me.read', async () => {
    const full = await userinfo(`Bearer ${await token(['api.auth.me.read'])}`);
    expect(full.statusCode).toBe(200);
    expect(full.headers['cache-control']).toBe('no-store');
    expect(full.json()).toEqual({ sub: user.userId, preferred_username: user.username });
    const bare = await userinfo(`Bearer ${await token(['api.records.daily.read'])}`, 'POST');
    expect(bare.json()).toEqual({ sub: user.userId });
  });

  it('RFC 6750 3.1: no token: 401 with a bare Bearer challenge (no error code)', async () => {
    const r = await userinfo();
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="emutrack"');
  });

  it('RFC 6750 3.1: an unknown, revoked or non-OAuth token: 401 invalid_token', async () => {
    for (const secret of [`oauth_${'A'.repeat(43)}`, await token(['api.auth.me.read'], 'api')]) {
      const r = await userinfo(`Bearer ${secret}`);
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(
        /^Bearer realm="emutrack", error="invalid_token", error_description="[^"]+"$/,
      );
      expect((r.json() as { error: string }).error).toBe('invalid_token');
    }
  });

  it('RFC 6750 3.1: a malformed Authorization header: 400 invalid_request', async () => {
    const r = await userinfo('Basic dXNlcjpwYXNz');
    expect(r.statusCode).toBe(400);
    expect(r.headers['www-authenticate']).toMatch(/error="invalid_request"/);
  });
});

describe('discovery and keys', () => {
  it('publishes the OpenID Provider metadata with PUBLIC_URL as issuer (no trailing slash)', async () => {
    const r = await app.inject('/.well-known/openid-configuration');
    expect(r.statusCode).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    const doc = r.json() as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: 'https://rail.example',
      authorization_endpoint: 'https://rail.example/oauth/authorize',
      token_endpoint: 'https://rail.example/oauth/token',
      userinfo_endpoint: 'https://rail.example/oauth/userinfo',
      jwks_uri: 'https://rail.example/.well-known/jwks.json',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      authorization_response_iss_parameter_supported: true,
      request_uri_parameter_supported: false,
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'api.auth.me.read']));
    expect(doc.claims_supported).toEqual(
      expect.arrayContaining([
        'sub',
        'iss',
        'aud',
        'azp',
        'exp',
        'iat',
        'auth_time',
        'at_hash',
        'nonce',
        'preferred_username',
      ]),
    );
  });

  it('publishes the JWKS (public RSA keys only) as application/jwk-set+json', async () => {
    const r = await app.inject('/.well-known/jwks.json');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    const { keys } = r.json() as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
  });
});
