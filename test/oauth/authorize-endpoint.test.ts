import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import { revokeAuthorization } from '../../src/domain/oauth/authorizations.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { reviewClient } from '../../src/domain/oauth/client-review.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { CALLBACK, makeClient, makeUser } from './oauth-fixtures.js';
import {
  CSRF_FIELD,
  form,
  FORM_HEADERS,
  oauthApp,
  oauthConfig,
  signIn,
  VERIFIER,
  type TestBrowser,
} from './oauth-harness.js';

const database = useTestDatabase();
const ISSUER = 'http://127.0.0.1:3000';
let app: Awaited<ReturnType<typeof oauthApp>>;
let owner: User;
let other: User;
let admin: User;
let approved: OAuthClient;
let pending: OAuthClient;
let ownerCookie: TestBrowser;
let otherCookie: TestBrowser;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db, {
    config: oauthConfig({ OAUTH_AUTHORIZE_RATE_PER_MINUTE: '10000' }),
  });
  owner = await makeUser(db);
  other = await makeUser(db);
  admin = await makeUser(db, 'admin');
  approved = await makeClient(db, owner, { name: 'Approved <App>' });
  await reviewClient(
    db,
    approved.clientId,
    { scopes: { 'api.auth.me.read': 'approved', 'api.records.daily.read': 'approved' } },
    admin.userId,
  );
  pending = await makeClient(db, owner, { name: 'Pending App' });
  ownerCookie = await signIn(db, owner);
  otherCookie = await signIn(db, other);
});
afterAll(async () => app?.close());

function query(client: OAuthClient, extra: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: CALLBACK,
    scope: 'openid api.auth.me.read',
    state: 'af0ifjsldkj',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    ...extra,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, v);
  return q.toString();
}

// The pages in English (Chinese is the default), as the assertions read them.
const authorize = (q: string, browser?: TestBrowser) =>
  app.inject({
    url: `/oauth/authorize?${q}`,
    headers: { 'accept-language': 'en', ...(browser ? { cookie: browser.cookie } : {}) },
  });

const decide = (q: string, decision: string, browser: TestBrowser, csrf = browser.csrf) =>
  app.inject({
    method: 'POST',
    url: '/oauth/authorize',
    headers: { ...FORM_HEADERS, 'accept-language': 'en', cookie: browser.cookie },
    payload: form({ [CSRF_FIELD]: csrf, request: q, decision }),
  });

/** The redirect to the client, its parameters checked to carry iss (RFC 9207). */
function callback(response: Awaited<ReturnType<typeof authorize>>): URLSearchParams {
  expect(response.statusCode, response.body).toBe(302);
  const location = new URL(response.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
  expect(location.searchParams.get('iss')).toBe(ISSUER);
  return location.searchParams;
}

function expectRedirectError(
  response: Awaited<ReturnType<typeof authorize>>,
  error: string,
  state = 'af0ifjsldkj',
) {
  const params = callback(response);
  expect(params.get('error')).toBe(error);
  expect(params.get('error_description')).toBeTruthy();
  expect(params.get('state')).toBe(state);
  expect(params.get('code')).toBeNull();
  return params.get('error_description')!;
}

function expectErrorPage(response: Awaited<ReturnType<typeof authorize>>, text: RegExp) {
  expect(response.statusCode).toBe(400);
  expect(response.headers.location).toBeUndefined();
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.body).toMatch(text);
  // Never a link or form towards the client.
  expect(response.body).not.toContain(CALLBACK);
}

describe('GET /oauth/authorize: client and redirect_uri, refused on a page (never redirected)', () => {
  it('RFC 6749 4.1.2.1: an unknown client_id gets an error page', async () => {
    expectErrorPage(
      await authorize(query(approved, { client_id: 'emc_nobody' }), ownerCookie),
      /no client/,
    );
  });

  it('RFC 6749 4.1.2.1: a missing client_id gets an error page', async () => {
    expectErrorPage(
      await authorize(query(approved, { client_id: undefined }), ownerCookie),
      /client_id is missing/,
    );
  });

  it('RFC 6749 3.1.2.4 / RFC 9700 4.1.3: an unregistered redirect_uri is never redirected to', async () => {
    for (const uri of [
      'https://evil.example/cb',
      `${CALLBACK}/`,
      `${CALLBACK}?x=1`,
      'http://127.0.0.1:8124/callback',
    ]) {
      const r = await authorize(query(approved, { redirect_uri: uri }), ownerCookie);
      expectErrorPage(r, /redirect_uri is not one the client registered/);
      expect(r.body).not.toContain('evil.example');
    }
  });

  it('RFC 6749 4.1.2.1: a disabled client gets an error page', async () => {
    const { db } = database.current;
    const disabled = await makeClient(db, owner, { name: 'Disabled' });
    await reviewClient(db, disabled.clientId, { status: 'disabled' }, admin.userId);
    expectErrorPage(await authorize(query(disabled), ownerCookie), /disabled/);
  });

  it('escapes what the client registered (no HTML injection on our pages)', async () => {
    const r = await authorize(query(approved), ownerCookie);
    expect(r.body).toContain('Approved &lt;App&gt;');
    expect(r.body).not.toContain('Approved <App>');
  });
});

describe('GET /oauth/authorize: other refusals redirect with error, state and iss', () => {
  it('RFC 6749 4.1.1: response_type other than code is invalid_request', async () => {
    expectRedirectError(
      await authorize(query(approved, { response_type: 'token' }), ownerCookie),
      'invalid_request',
    );
  });

  it('RFC 6749 4.1.1 / spec: a missing state is invalid_request (no state echoed)', async () => {
    const params = callback(await authorize(query(approved, { state: undefined }), ownerCookie));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.has('state')).toBe(false);
  });

  it('RFC 7636 4.4.1 / RFC 9700 2.1.1: a missing code_challenge is invalid_request', async () => {
    const d = expectRedirectError(
      await authorize(
        query(approved, { code_challenge: undefined, code_challenge_method: undefined }),
        ownerCookie,
      ),
      'invalid_request',
    );
    expect(d).toMatch(/code_challenge/);
  });

  it('RFC 9700 2.1.1: code_challenge_method=plain is invalid_request', async () => {
    const d = expectRedirectError(
      await authorize(
        query(approved, { code_challenge: VERIFIER, code_challenge_method: 'plain' }),
        ownerCookie,
      ),
      'invalid_request',
    );
    expect(d).toMatch(/S256/);
  });

  it('spec OAuth errors: a missing code_challenge_method is invalid_request (no default to plain)', async () => {
    expectRedirectError(
      await authorize(query(approved, { code_challenge_method: undefined }), ownerCookie),
      'invalid_request',
    );
  });

  it('RFC 7636 4.2: a code_challenge outside 43-128 unreserved characters is invalid_request', async () => {
    expectRedirectError(
      await authorize(query(approved, { code_challenge: 'too-short' }), ownerCookie),
      'invalid_request',
    );
  });

  it('RFC 6749 3.1: a parameter given twice is invalid_request', async () => {
    const d = expectRedirectError(
      await authorize(`${query(approved)}&scope=api.auth.me.read`, ownerCookie),
      'invalid_request',
    );
    expect(d).toMatch(/scope/);
  });

  it('RFC 6749 4.1.2.1: an unknown scope, or one the client did not register, is invalid_scope', async () => {
    expectRedirectError(
      await authorize(query(approved, { scope: 'api.admin.everything' }), ownerCookie),
      'invalid_scope',
    );
    expectRedirectError(
      await authorize(query(approved, { scope: 'api.history.emu.read' }), ownerCookie),
      'invalid_scope',
    );
  });

  it('spec scope review: a scope an administrator rejected is access_denied, even for the owner', async () => {
    const { db } = database.current;
    const client = await makeClient(db, owner, { name: 'Half rejected' });
    await reviewClient(
      db,
      client.clientId,
      { scopes: { 'api.records.daily.read': 'rejected' } },
      admin.userId,
    );
    expectRedirectError(
      await authorize(query(client, { scope: 'api.records.daily.read' }), ownerCookie),
      'access_denied',
    );
  });

  it('spec scope review: a pending scope is access_denied for anyone but the owner', async () => {
    const d = expectRedirectError(await authorize(query(pending), otherCookie), 'access_denied');
    expect(d).toMatch(/review/);
    const own = await authorize(query(pending), ownerCookie);
    expect(own.statusCode).toBe(200);
    expect(own.body).toMatch(/awaiting an administrator(?:'|&#39;)s review/);
  });
});

describe('GET /oauth/authorize: signing in and consent', () => {
  it('sends a signed-out browser to sign in, coming back to the same request', async () => {
    const q = query(approved);
    const r = await authorize(q);
    expect(r.statusCode).toBe(302);
    const location = new URL(r.headers.location as string, 'http://x');
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('next')).toBe(`/oauth/authorize?${q}`);
  });

  it('refuses a request too long to come back from the sign-in page, instead of losing it', async () => {
    const long = query(approved, { state: 'x'.repeat(1990) });
    const d = expectRedirectError(await authorize(long), 'invalid_request', 'x'.repeat(1990));
    expect(d).toMatch(/longer than 2000/);
  });

  it('OIDC Core 3.1.2.6: prompt=none answers login_required / consent_required instead of a page', async () => {
    expectRedirectError(await authorize(query(approved, { prompt: 'none' })), 'login_required');
    expectRedirectError(
      await authorize(query(approved, { prompt: 'none' }), otherCookie),
      'consent_required',
    );
  });

  it('OIDC Core 3.1.2.1: prompt=login and select_account are answered with their errors', async () => {
    expectRedirectError(
      await authorize(query(approved, { prompt: 'login' }), otherCookie),
      'login_required',
    );
    expectRedirectError(
      await authorize(query(approved, { prompt: 'select_account' }), otherCookie),
      'account_selection_required',
    );
    expectRedirectError(
      await authorize(query(approved, { prompt: 'bogus' }), otherCookie),
      'invalid_request',
    );
  });

  it('shows the consent page: client, owner, homepage, each scope in words, one POST form with Allow and Deny', async () => {
    const r = await authorize(
      query(approved, { scope: 'api.auth.me.read api.records.daily.read' }),
      otherCookie,
    );
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(r.headers['cache-control']).toBe('no-store');
    const body = r.body;
    expect(body).toContain(owner.username);
    expect(body).toContain('href="https://viewer.example"');
    expect(body).toContain('See who you are: your user id, this key and your remaining quota.');
    expect(body).toContain('Read the daily records: which EMU ran which train on a day.');
    expect(body.match(/<form /g)).toHaveLength(1);
    expect(body).toMatch(/<form method="post" action="\/oauth\/authorize">/);
    expect(body).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(body).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    // The page's token, bound to this browser's session, is accepted by the form post.
    const token = /name="_csrf" value="([^"]+)"/.exec(body)![1]!;
    expect(token).not.toBe(otherCookie.csrf);
    const posted = await decide(query(approved), 'deny', otherCookie, token);
    expect(posted.statusCode).toBe(302);
  });

  it('RFC 6749 4.1.2.1: Deny sends access_denied with state and iss', async () => {
    expectRedirectError(await decide(query(approved), 'deny', otherCookie), 'access_denied');
  });

  it('refuses a consent form without the CSRF token on a page (no redirect)', async () => {
    const r = await decide(query(approved), 'allow', otherCookie, 'forged');
    expect(r.statusCode).toBe(403);
    expect(r.headers.location).toBeUndefined();
    const signedOut = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM_HEADERS,
      payload: form({
        [CSRF_FIELD]: otherCookie.csrf,
        request: query(approved),
        decision: 'allow',
      }),
    });
    expect(signedOut.statusCode).toBe(403);
  });

  it("consent CSRF: the victim's session with an attacker-chosen csrf cookie and matching field is refused, no code", async () => {
    const { db } = database.current;
    const victim = await signIn(db, await makeUser(db));
    const session = victim.cookie.split(';')[0]!;
    const planted = 'A'.repeat(32);
    const r = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { ...FORM_HEADERS, cookie: `${session}; csrf=${planted}` },
      payload: form({ [CSRF_FIELD]: planted, request: query(approved), decision: 'allow' }),
    });
    expect(r.statusCode).toBe(403);
    expect(r.headers.location).toBeUndefined();
  });

  it("consent CSRF: the attacker's own valid cookie and token, planted beside the victim's session, are refused", async () => {
    const { db } = database.current;
    const attacker = await signIn(db, await makeUser(db));
    const victim = await signIn(db, await makeUser(db));
    const attackerCsrfCookie = attacker.cookie.split('; ')[1]!;
    const r = await app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: {
        ...FORM_HEADERS,
        cookie: `${victim.cookie.split(';')[0]!}; ${attackerCsrfCookie}`,
      },
      payload: form({ [CSRF_FIELD]: attacker.csrf, request: query(approved), decision: 'allow' }),
    });
    expect(r.statusCode).toBe(403);
    expect(r.headers.location).toBeUndefined();
  });

  it('consent CSRF: a cross-site Origin, or Sec-Fetch-Site cross-site or same-site (another port), is refused even with a valid token', async () => {
    const { db } = database.current;
    const browser = await signIn(db, await makeUser(db));
    for (const headers of [
      { origin: 'https://attacker.example' },
      { origin: 'http://127.0.0.1:8080' },
      { origin: 'null' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const r = await app.inject({
        method: 'POST',
        url: '/oauth/authorize',
        headers: { ...FORM_HEADERS, cookie: browser.cookie, ...headers },
        payload: form({ [CSRF_FIELD]: browser.csrf, request: query(approved), decision: 'deny' }),
      });
      expect(r.statusCode, JSON.stringify(headers)).toBe(403);
    }
    // The honest form: our own origin (PUBLIC_URL, or the Host it was sent to), same-origin.
    for (const headers of [
      { origin: 'http://127.0.0.1:3000' },
      { origin: 'http://localhost:80', host: 'localhost:80' },
      { 'sec-fetch-site': 'same-origin' },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    ]) {
      const r = await app.inject({
        method: 'POST',
        url: '/oauth/authorize',
        headers: { ...FORM_HEADERS, cookie: browser.cookie, ...headers },
        payload: form({ [CSRF_FIELD]: browser.csrf, request: query(approved), decision: 'deny' }),
      });
      expect(r.statusCode, JSON.stringify(headers)).toBe(302);
    }
  });

  it('RFC 6749 4.1.2 / RFC 9207 2: Allow sends code, state and iss; the consent is remembered; prompt=consent asks again', async () => {
    const { db } = database.current;
    const user = await makeUser(db);
    const cookie = await signIn(db, user);
    const q = query(approved, { nonce: 'abc' });
    expect((await authorize(q, cookie)).statusCode).toBe(200);
    const params = callback(await decide(q, 'allow', cookie));
    expect(params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toBe('af0ifjsldkj');
    expect(params.get('error')).toBeNull();
    // Remembered: the same client and scopes (or fewer) get a code at once.
    const again = callback(await authorize(query(approved, { scope: 'api.auth.me.read' }), cookie));
    expect(again.get('code')).toBeTruthy();
    // More scopes than allowed: asked again. prompt=consent: asked again.
    expect(
      (
        await authorize(
          query(approved, { scope: 'api.auth.me.read api.records.daily.read' }),
          cookie,
        )
      ).statusCode,
    ).toBe(200);
    expect((await authorize(query(approved, { prompt: 'consent' }), cookie)).statusCode).toBe(200);
  });

  it('a revoked authorization asks for consent again', async () => {
    const { db } = database.current;
    const user = await makeUser(db);
    const cookie = await signIn(db, user);
    callback(await decide(query(approved), 'allow', cookie));
    callback(await authorize(query(approved), cookie));
    await revokeAuthorization(db, user.userId, approved.clientId);
    expect((await authorize(query(approved), cookie)).statusCode).toBe(200);
  });

  it('authorization requests are rate-limited per address (429 page)', async () => {
    const limited = await oauthApp(database.current.db, {
      config: oauthConfig({ OAUTH_AUTHORIZE_RATE_PER_MINUTE: '2' }),
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await limited.inject(`/oauth/authorize?${query(approved)}`)).statusCode);
      expect(statuses).toEqual([302, 302, 429]);
    } finally {
      await limited.close();
    }
  });
});
