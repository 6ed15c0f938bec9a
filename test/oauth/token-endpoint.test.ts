import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banUser, type User } from '../../src/domain/accounts/users.js';
import { accessTokenHash } from '../../src/domain/oauth/id-token.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { reviewClient } from '../../src/domain/oauth/client-review.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import { codeFor, form, FORM_HEADERS, oauthApp, oauthConfig, VERIFIER } from './oauth-harness.js';

const database = useTestDatabase();
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;
let app: Awaited<ReturnType<typeof oauthApp>>;
let owner: User;
let admin: User;
let client: OAuthClient;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db, { clock, config: oauthConfig({ OAUTH_TOKEN_RATE_PER_MINUTE: '1000' }) });
  owner = await makeUser(db);
  admin = await makeUser(db, 'admin');
  client = await makeClient(db, owner);
});
afterAll(async () => app?.close());

const authorizeQuery = (extra: Record<string, string> = {}) => ({
  client_id: client.clientId,
  redirect_uri: CALLBACK,
  scope: 'openid api.auth.me.read api.records.daily.read',
  ...extra,
});

async function exchange(
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { ...FORM_HEADERS, ...headers },
    payload: form(fields),
  });
}

async function freshCode(extra: Record<string, string> = {}) {
  return codeFor(database.current.db, owner, authorizeQuery(extra), { now: new Date(clock()) });
}

function goodFields(code: string): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    code_verifier: VERIFIER,
  };
}

async function expectOAuthError(
  response: Awaited<ReturnType<typeof exchange>>,
  status: number,
  error: string,
): Promise<string> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body.error_description;
}

describe('POST /oauth/token: success (RFC 6749 4.1.3-4.1.4, 5.1; OIDC Core 3.1.3.3)', () => {
  it('exchanges a code for a bearer access token and a signed id_token, not cacheable', async () => {
    const code = await freshCode({ nonce: 'n-0S6_WzA2Mj' });
    const response = await exchange(goodFields(code));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = response.json() as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'id_token', 'scope', 'token_type'].sort(),
    );
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 2_592_000,
      scope: 'api.auth.me.read api.records.daily.read openid',
    });
    expect(body.access_token).toMatch(/^oauth_[A-Za-z0-9_-]{43}$/);
    const jwks = (await app.inject('/.well-known/jwks.json')).json() as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(
      body.id_token as string,
      createLocalJWKSet(jwks),
      {
        issuer: 'http://127.0.0.1:3000',
        audience: client.clientId,
        algorithms: ['RS256'],
      },
    );
    expect(protectedHeader.kid).toBe(jwks.keys[0]!.kid);
    expect(payload).toMatchObject({
      sub: owner.userId,
      azp: client.clientId,
      nonce: 'n-0S6_WzA2Mj',
      preferred_username: owner.username,
      at_hash: accessTokenHash(body.access_token as string),
    });
    expect(payload.exp! - payload.iat!).toBe(2_592_000);
    const row = await database.current.db.query<{
      scopes: string[];
      issuer: string;
      oauth_client_id: string;
    }>(
      'SELECT scopes, issuer, oauth_client_id FROM credentials WHERE oauth_client_id = $1 ORDER BY id DESC LIMIT 1',
      [client.clientId],
    );
    expect(row.rows[0]).toEqual({
      scopes: ['api.auth.me.read', 'api.records.daily.read'],
      issuer: 'oauth',
      oauth_client_id: client.clientId,
    });
  });

  it('leaves out nonce when none was sent, and preferred_username without api.auth.me.read', async () => {
    const code = await freshCode({ scope: 'api.records.daily.read' });
    const body = (await exchange(goodFields(code))).json() as { id_token: string; scope: string };
    expect(body.scope).toBe('api.records.daily.read');
    const claims = JSON.parse(Buffer.from(body.id_token.split('.')[1]!, 'base64url').toString());
    expect(claims).not.toHaveProperty('nonce');
    expect(claims).not.toHaveProperty('preferred_username');
  });
});

describe('POST /oauth/token: refusals', () => {
  it('RFC 6749 4.1.3: grant_type is required', async () => {
    const { grant_type: _, ...rest } = goodFields(await freshCode());
    await expectOAuthError(await exchange(rest), 400, 'invalid_request');
  });

  it('RFC 6749 5.2: a grant type other than authorization_code is unsupported_grant_type', async () => {
    for (const grant of [
      'client_credentials',
      'password',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]) {
      await expectOAuthError(
        await exchange({ ...goodFields(await freshCode()), grant_type: grant }),
        400,
        'unsupported_grant_type',
      );
    }
  });

  it('RFC 6749 3.2: a parameter given twice is invalid_request', async () => {
    const fields = { ...goodFields(await freshCode()), code_verifier: [VERIFIER, VERIFIER] };
    expect(await expectOAuthError(await exchange(fields), 400, 'invalid_request')).toMatch(
      /code_verifier/,
    );
  });

  it('RFC 6749 4.1.3: the body must be form-encoded (JSON is invalid_request)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(goodFields(await freshCode())),
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });

  it('RFC 6749 5.2: an unknown client is 401 invalid_client', async () => {
    const response = await exchange({ ...goodFields(await freshCode()), client_id: 'emc_unknown' });
    await expectOAuthError(response, 401, 'invalid_client');
  });

  it('RFC 6749 2.1 / 5.2: a client secret (body or Basic) is refused: clients are public', async () => {
    await expectOAuthError(
      await exchange({ ...goodFields(await freshCode()), client_secret: 'guess' }),
      401,
      'invalid_client',
    );
    const basic = Buffer.from(`${client.clientId}:guess`).toString('base64');
    await expectOAuthError(
      await exchange(goodFields(await freshCode()), { authorization: `Basic ${basic}` }),
      401,
      'invalid_client',
    );
  });

  it('RFC 6749 4.1.3: a code issued to another client is invalid_grant', async () => {
    const other = await makeClient(database.current.db, owner, { name: 'Other' });
    const response = await exchange({
      ...goodFields(await freshCode()),
      client_id: other.clientId,
    });
    await expectOAuthError(response, 400, 'invalid_grant');
  });

  it('RFC 6749 4.1.3: an unknown code is invalid_grant', async () => {
    await expectOAuthError(await exchange(goodFields('not-a-code')), 400, 'invalid_grant');
  });

  it('RFC 6749 4.1.2 / 10.5: a code expires after 300 s (invalid_grant)', async () => {
    const code = await freshCode();
    offsetMs = 301_000;
    try {
      expect(
        await expectOAuthError(await exchange(goodFields(code)), 400, 'invalid_grant'),
      ).toMatch(/expired/);
    } finally {
      offsetMs = 0;
    }
  });

  it('RFC 6749 4.1.2: a code used twice is refused and the token it gave is revoked', async () => {
    const code = await freshCode();
    const first = await exchange(goodFields(code));
    expect(first.statusCode).toBe(200);
    const token = (first.json() as { access_token: string }).access_token;
    const info = () =>
      app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${token}` } });
    expect((await info()).statusCode).toBe(200);
    expect(await expectOAuthError(await exchange(goodFields(code)), 400, 'invalid_grant')).toMatch(
      /already used/,
    );
    const after = await info();
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('RFC 6749 4.1.2: two exchanges of one code at once: one token, the other refused, and that token revoked', async () => {
    const code = await freshCode();
    const [a, b] = await Promise.all([exchange(goodFields(code)), exchange(goodFields(code))]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
    const token = ((a.statusCode === 200 ? a : b).json() as { access_token: string }).access_token;
    const info = await app.inject({
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(info.statusCode).toBe(401);
  });

  it('RFC 6749 4.1.3: a redirect_uri different from the authorization request is invalid_grant', async () => {
    const code = await freshCode();
    const response = await exchange({ ...goodFields(code), redirect_uri: `${CALLBACK}/` });
    await expectOAuthError(response, 400, 'invalid_grant');
    // The code was not spent by the failed attempt.
    expect((await exchange(goodFields(code))).statusCode).toBe(200);
  });

  it('RFC 6749 4.1.3: redirect_uri is required when the authorization request had one', async () => {
    const { redirect_uri: _, ...rest } = goodFields(await freshCode());
    await expectOAuthError(await exchange(rest), 400, 'invalid_request');
  });

  it('RFC 7636 4.6: a code_verifier that does not hash to the challenge is invalid_grant', async () => {
    const response = await exchange({
      ...goodFields(await freshCode()),
      code_verifier: 'another-verifier-0123456789-0123456789-0123456789',
    });
    expect(await expectOAuthError(response, 400, 'invalid_grant')).toMatch(/code_verifier/);
  });

  it('RFC 7636 4.5: code_verifier is required (invalid_request)', async () => {
    const { code_verifier: _, ...rest } = goodFields(await freshCode());
    await expectOAuthError(await exchange(rest), 400, 'invalid_request');
  });

  it('RFC 7636 4.6: the challenge itself is not a verifier (no plain downgrade)', async () => {
    const code = await freshCode();
    const { rows } = await database.current.db.query<{ code_challenge: string }>(
      'SELECT code_challenge FROM oauth_codes ORDER BY created_at DESC LIMIT 1',
    );
    const response = await exchange({
      ...goodFields(code),
      code_verifier: rows[0]!.code_challenge,
    });
    await expectOAuthError(response, 400, 'invalid_grant');
  });

  it('a user banned between consent and exchange gets no token (invalid_grant)', async () => {
    const { db } = database.current;
    const banned = await makeUser(db);
    const code = await codeFor(db, banned, authorizeQuery(), { now: new Date(clock()) });
    await banUser(db, banned.username);
    await expectOAuthError(await exchange(goodFields(code)), 400, 'invalid_grant');
  });

  it('a disabled client is refused at the token endpoint (401 invalid_client)', async () => {
    const { db } = database.current;
    const doomed = await makeClient(db, owner, { name: 'Doomed' });
    const code = await codeFor(db, owner, { ...authorizeQuery(), client_id: doomed.clientId });
    await reviewClient(db, doomed.clientId, { status: 'disabled' }, admin.userId);
    const response = await exchange({ ...goodFields(code), client_id: doomed.clientId });
    await expectOAuthError(response, 401, 'invalid_client');
  });
});

describe('POST /oauth/token: limits', () => {
  it('token requests are rate-limited per address (429, Retry-After)', async () => {
    const limited = await oauthApp(database.current.db, {
      config: oauthConfig({ OAUTH_TOKEN_RATE_PER_MINUTE: '3' }),
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await limited.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: FORM_HEADERS,
          payload: '',
        });
        statuses.push(r.statusCode);
        if (r.statusCode === 429) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([400, 400, 400, 429]);
    } finally {
      await limited.close();
    }
  });

  it('answers a CORS preflight and lets any origin read token answers (browser apps)', async () => {
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/oauth/token',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toBe('POST');
  });
});
