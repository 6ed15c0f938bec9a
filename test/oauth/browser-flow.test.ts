import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';
import { reviewClient } from '../../src/domain/oauth/client-review.js';
import { useChromium } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser, TEST_PASSWORD } from './oauth-fixtures.js';
import { listenOnLoopback } from './loopback-server.js';
import { oauthApp, oauthConfig } from './oauth-harness.js';

/** Where the screenshots go (kept for a person to look at). */
const SCREENSHOTS =
  process.env.OAUTH_SCREENSHOT_DIR ?? path.join(os.tmpdir(), 'emutrack-oauth-screenshots');

const database = useTestDatabase();
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let server: Awaited<ReturnType<typeof listenOnLoopback>>;
const chromium = useChromium();
let callbackServer: Server;
let callbackUri: string;
/** Resolves with the query of the first request the callback receives. */
let callbackHit: Promise<URL>;
let user: User;
let client: OAuthClient;

beforeAll(async () => {
  const { db } = database.current;
  await mkdir(SCREENSHOTS, { recursive: true });
  // The app's own callback: a page on another loopback port that records what it was sent.
  let hit: (url: URL) => void;
  callbackHit = new Promise((resolve) => (hit = resolve));
  callbackServer = createServer((request, response) => {
    const url = new URL(request.url ?? '/', callbackUri);
    if (url.pathname === '/callback') hit(url);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<!doctype html><title>Train Board</title><h1>Train Board: back from emutrack</h1>',
    );
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  const address = callbackServer.address();
  callbackUri = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;

  server = await listenOnLoopback((publicUrl) =>
    oauthApp(db, { config: oauthConfig({ PUBLIC_URL: publicUrl }) }),
  );
  const developer = await makeUser(db);
  const admin = await makeUser(db, 'admin');
  user = await makeUser(db);
  client = await makeClient(db, developer, {
    name: 'Train Board',
    redirectUris: [callbackUri],
    requestedScopes: ['api.auth.me.read', 'api.history.train.read'],
  });
  await reviewClient(
    db,
    client.clientId,
    { scopes: { 'api.auth.me.read': 'approved', 'api.history.train.read': 'approved' } },
    admin.userId,
  );
}, 120_000);

afterAll(async () => {
  await server?.app.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
});

describe('the flow in real Chromium', () => {
  it('signs in, shows the consent page, allows, and lands on the callback with code, state and iss', async () => {
    const issuer = new URL(server.publicUrl);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, insecure),
    );
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: callbackUri,
      scope: 'openid api.auth.me.read api.history.train.read',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();

    const context = await (await chromium.browser()).newContext();
    const page = await context.newPage();
    try {
      // Signed out: the sign-in page, which comes back to the same authorization request.
      await page.goto(authorizationUrl.href);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.screenshot({ path: path.join(SCREENSHOTS, '1-sign-in.png'), fullPage: true });
      await page.fill('#username', user.username);
      await page.fill('#password', TEST_PASSWORD);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/oauth/authorize'),
        page.click('button[type=submit]'),
      ]);

      // The consent page: the app, its owner, each scope in words, Allow and Deny.
      expect(await page.locator('h1').innerText()).toContain('Train Board');
      const text = await page.locator('main').innerText();
      expect(text).toContain('See who you are');
      expect(text).toContain('Read which EMUs ran a train over time.');
      expect(await page.locator('form').count()).toBe(1);
      await page.screenshot({ path: path.join(SCREENSHOTS, '2-consent.png'), fullPage: true });
      await page.click('button[name=decision][value=allow]');

      // The browser lands on the app's callback.
      const landed = await callbackHit;
      await page.waitForURL((url) => url.pathname === '/callback');
      await page.screenshot({ path: path.join(SCREENSHOTS, '3-callback.png'), fullPage: true });
      expect(landed.searchParams.get('state')).toBe(state);
      expect(landed.searchParams.get('iss')).toBe(server.publicUrl);

      // The app finishes as any strict client would.
      const params = oauth.validateAuthResponse(as, { client_id: client.clientId }, landed, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        { client_id: client.clientId },
        oauth.None(),
        params,
        callbackUri,
        codeVerifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        { client_id: client.clientId },
        response,
        {
          expectedNonce: nonce,
          requireIdToken: true,
        },
      );
      const claims = oauth.getValidatedIdTokenClaims(tokens)!;
      expect(claims.sub).toBe(user.userId);
      expect(claims.preferred_username).toBe(user.username);
      expect(tokens.scope).toBe('api.auth.me.read api.history.train.read openid');
      const me = () =>
        fetch(new URL('/api/v2/auth/me', issuer), {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
      expect((await me()).status).toBe(200);

      // The account page lists the app among the authorized ones; Revoke ends its access at once.
      await page.goto(new URL('/account?tab=development', issuer).href);
      const panel = page.locator('#oauth-authorizations');
      expect(await panel.innerText()).toContain('Train Board');
      await page.screenshot({
        path: path.join(SCREENSHOTS, '4-account-development.png'),
        fullPage: true,
      });
      await Promise.all([
        page.waitForURL((url) => url.hash === '#oauth-clients'),
        panel.locator('button', { hasText: 'Revoke' }).click(),
      ]);
      expect(await page.locator('#oauth-authorizations').innerText()).toContain(
        'You have not authorized any app.',
      );
      expect((await me()).status).toBe(401);
    } finally {
      await context.close();
    }
  });
});
