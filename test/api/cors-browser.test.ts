import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { reviewClient } from '../../src/domain/oauth/client-review.js';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser, TEST_PASSWORD } from '../oauth/oauth-fixtures.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { listenOnLoopback } from '../oauth/loopback-server.js';
import { oauthApp, oauthConfig } from '../oauth/oauth-harness.js';

/**
 * A single-page app on another loopback origin (a tiny server this test owns) uses the API from
 * Chromium as browser apps do: discovery by fetch, the authorization in the browser (sign-in and
 * consent), the code exchanged with fetch to /oauth/token (PKCE S256, no secret), then the API
 * and userinfo called with fetch and the bearer token. Every one of those fetches is
 * cross-origin: without CORS none of them could be read.
 */

/** The app: `/` starts the flow; `/callback` finishes it and leaves its findings in window.result. */
function appPage(api: string, clientId: string, redirectUri: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Train Board SPA</title><pre id="out"></pre>
<script type="module">
const API = ${JSON.stringify(api)};
const CLIENT_ID = ${JSON.stringify(clientId)};
const REDIRECT_URI = ${JSON.stringify(redirectUri)};
const b64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)))
  .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));
async function discover() {
  const res = await fetch(API + '/.well-known/openid-configuration');
  return res.json();
}
async function start() {
  const as = await discover();
  const verifier = random(32);
  const state = random(16);
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  location.href = as.authorization_endpoint + '?' + new URLSearchParams({
    response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI,
    scope: 'api.auth.me.read api.history.train.read', state,
    code_challenge: challenge, code_challenge_method: 'S256',
  });
}
async function finish() {
  const as = await discover();
  const query = new URLSearchParams(location.search);
  const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce'));
  if (query.get('state') !== state) throw new Error('state mismatch');
  const tokenRes = await fetch(as.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: query.get('code'), client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI, code_verifier: verifier,
    }),
  });
  const tokens = await tokenRes.json();
  const bearer = { authorization: 'Bearer ' + tokens.access_token };
  const me = await fetch(API + '/api/v2/auth/me', { headers: bearer });
  const meBody = await me.json();
  const history = await fetch(API + '/api/v2/history/train/G1001?limit=5', { headers: bearer });
  const historyBody = await history.json();
  const userinfo = await fetch(as.userinfo_endpoint, { headers: bearer });
  const jwks = await fetch(as.jwks_uri);
  // The browser holds the API's session cookie now; a credentialed read must still fail.
  const withCookie = await fetch(API + '/api/v2/auth/me', { credentials: 'include' }).then(
    (r) => 'read with status ' + r.status,
    () => 'blocked',
  );
  window.result = {
    tokenStatus: tokenRes.status,
    tokenType: tokens.token_type,
    meStatus: me.status,
    meOk: meBody.ok,
    meUser: meBody.data && meBody.data.user && meBody.data.user.userId,
    remain: me.headers.get('x-api-remain'),
    cost: me.headers.get('x-api-cost'),
    historyStatus: history.status,
    historyOk: historyBody.ok,
    userinfoStatus: userinfo.status,
    userinfo: await userinfo.json(),
    jwksKeys: (await jwks.json()).keys.length,
    withCookie,
  };
  document.getElementById('out').textContent = JSON.stringify(window.result);
}
(location.pathname === '/callback' ? finish() : start()).catch((err) => {
  window.result = { error: String(err) };
});
</script>`;
}

describe('a browser app on another origin: PKCE in Chromium, then the API by fetch', () => {
  const database = useTestDatabase();
  let api: Awaited<ReturnType<typeof listenOnLoopback>>;
  let chromium: LaunchedBrowser;
  let spa: Server;
  let spaOrigin: string;
  let user: User;
  let client: OAuthClient;

  beforeAll(async () => {
    const { db } = database.current;
    await seedDay(db, '20260810', busyDay(2000));
    api = await listenOnLoopback((publicUrl) =>
      oauthApp(db, { config: oauthConfig({ PUBLIC_URL: publicUrl }) }),
    );
    spa = createServer((request, response) => {
      const path = new URL(request.url ?? '/', spaOrigin).pathname;
      if (path !== '/' && path !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(appPage(api.publicUrl, client.clientId, `${spaOrigin}/callback`));
    });
    await new Promise<void>((resolve) => spa.listen(0, '127.0.0.1', resolve));
    const address = spa.address();
    spaOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const developer = await makeUser(db);
    const admin = await makeUser(db, 'admin');
    user = await makeUser(db);
    client = await makeClient(db, developer, {
      name: 'Train Board SPA',
      redirectUris: [`${spaOrigin}/callback`],
      requestedScopes: ['api.auth.me.read', 'api.history.train.read'],
    });
    await reviewClient(
      db,
      client.clientId,
      { scopes: { 'api.auth.me.read': 'approved', 'api.history.train.read': 'approved' } },
      admin.userId,
    );
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await api?.app.close();
    await new Promise((resolve) => spa?.close(resolve));
  });

  it('signs in and consents on the API, exchanges the code and calls the API with fetch from the other origin', async () => {
    expect(new URL(spaOrigin).origin).not.toBe(new URL(api.publicUrl).origin);
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${spaOrigin}/`);
      // The app sent the browser to the API's authorization endpoint: sign in, then consent.
      await page.waitForURL((url) => url.pathname === '/login');
      await page.fill('#username', user.username);
      await page.fill('#password', TEST_PASSWORD);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/oauth/authorize'),
        page.click('button[type=submit]'),
      ]);
      expect(await page.locator('h1').innerText()).toContain('Train Board SPA');
      await Promise.all([
        page.waitForURL((url) => url.origin === spaOrigin && url.pathname === '/callback'),
        page.click('button[name=decision][value=allow]'),
      ]);
      await page.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result);
      const result = await page.evaluate(
        () => (globalThis as unknown as { result: unknown }).result,
      );
      expect(result).toEqual({
        tokenStatus: 200,
        tokenType: 'Bearer',
        meStatus: 200,
        meOk: true,
        meUser: user.userId,
        // Exposed to the page by Access-Control-Expose-Headers.
        remain: expect.stringMatching(/^\d+$/),
        cost: '1',
        historyStatus: 200,
        historyOk: true,
        userinfoStatus: 200,
        userinfo: { sub: user.userId, preferred_username: user.username },
        jwksKeys: 1,
        // No Access-Control-Allow-Credentials: a credentialed cross-origin read is refused.
        withCookie: 'blocked',
      });
    } finally {
      await context.close();
    }
  });
});
