import { createHash } from 'node:crypto';
import { base64url, createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import { listenOnLoopback } from './loopback-server.js';
import { CSRF_FIELD, oauthApp, oauthConfig, signIn } from './oauth-harness.js';

const database = useTestDatabase();
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let server: Awaited<ReturnType<typeof listenOnLoopback>>;
let user: User;
let registered: OAuthClient;

beforeAll(async () => {
  const { db } = database.current;
  server = await listenOnLoopback((publicUrl) =>
    oauthApp(db, { config: oauthConfig({ PUBLIC_URL: publicUrl }) }),
  );
  user = await makeUser(db);
  // The owner may use scopes still waiting for review: enough for a developer's first run.
  registered = await makeClient(db, user, { name: 'Strict Client' });
});
afterAll(async () => server?.app.close());

/** Fetch without following redirects, with this browser's cookie. */
async function browserGet(url: string, cookie: string): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: { cookie } });
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name}`);
  return match[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

describe('the whole flow, driven by oauth4webapi against a server on loopback', () => {
  it('discovery, PKCE, iss and state checked, code exchange with requireIdToken, userinfo; id_token verified through the JWKS and at_hash recomputed', async () => {
    const issuer = new URL(server.publicUrl);
    // Discovery (OIDC Discovery / RFC 8414): the library checks `issuer` equals what it asked for.
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oidc' }),
    );
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    const client: oauth.Client = { client_id: registered.clientId };
    const clientAuth = oauth.None();

    const codeVerifier = oauth.generateRandomCodeVerifier();
    const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid api.auth.me.read',
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    }).toString();

    // The browser: signed in, sees the consent page, allows.
    const { cookie } = await signIn(database.current.db, user);
    const consent = await browserGet(authorizationUrl.href, cookie);
    expect(consent.status).toBe(200);
    const page = await consent.text();
    const allowed = await fetch(new URL('/oauth/authorize', issuer), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        [CSRF_FIELD]: hidden(page, CSRF_FIELD),
        request: hidden(page, 'request'),
        decision: 'allow',
      }),
    });
    expect(allowed.status).toBe(302);
    const callbackUrl = new URL(allowed.headers.get('location')!);

    // RFC 9207 iss and the state, checked by the library.
    const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      CALLBACK,
      codeVerifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    expect(result.token_type).toBe('bearer');
    expect(result.expires_in).toBe(2_592_000);
    expect(result.refresh_token).toBeUndefined();
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims).toMatchObject({
      iss: server.publicUrl,
      aud: registered.clientId,
      sub: user.userId,
      nonce,
    });

    // The library checks neither the signature nor at_hash: jose does, through the published JWKS.
    const jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(result.id_token!, jwks, {
      issuer: as.issuer,
      audience: client.client_id,
      algorithms: ['RS256'],
    });
    expect(protectedHeader.kid).toBeTruthy();
    const digest = createHash('sha256').update(result.access_token, 'ascii').digest();
    expect(payload.at_hash).toBe(base64url.encode(digest.subarray(0, 16)));
    expect(payload).toMatchObject({ azp: client.client_id, preferred_username: user.username });
    expect(typeof payload.auth_time).toBe('number');

    // userinfo: sub must match the id_token's (checked by the library).
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, result.access_token, insecure),
    );
    expect(info).toEqual({ sub: user.userId, preferred_username: user.username });
  });

  it('the library rejects a callback whose state does not match (client side of spec Authentication 6)', async () => {
    const issuer = new URL(server.publicUrl);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, insecure),
    );
    const forged = new URL(CALLBACK);
    forged.search = new URLSearchParams({ code: 'x', state: 'other', iss: as.issuer }).toString();
    expect(() =>
      oauth.validateAuthResponse(as, { client_id: registered.clientId }, forged, 'expected'),
    ).toThrow(/state/);
    forged.searchParams.set('state', 'expected');
    forged.searchParams.set('iss', 'https://attacker.example');
    expect(() =>
      oauth.validateAuthResponse(as, { client_id: registered.clientId }, forged, 'expected'),
    ).toThrow(/iss/);
  });
});
