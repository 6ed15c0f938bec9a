import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/accounts/users.js';
import { findClient } from '../../src/domain/oauth/client-records.js';
import { listOwnClients } from '../../src/domain/oauth/clients.js';
import { messagesOf } from '../../src/http/web/i18n/language.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeClient, makeUser } from './oauth-fixtures.js';
import {
  CSRF_FIELD,
  form,
  FORM_HEADERS,
  oauthApp,
  signIn,
  type TestBrowser,
} from './oauth-harness.js';
import {
  findCredentialByRevokeId,
  issueCredential,
} from '../../src/domain/accounts/credentials.js';
import { findUserById } from '../../src/domain/accounts/users.js';

const database = useTestDatabase();
let app: Awaited<ReturnType<typeof oauthApp>>;
let user: User;
let admin: User;
let userBrowser: TestBrowser;
let adminBrowser: TestBrowser;

beforeAll(async () => {
  const { db } = database.current;
  app = await oauthApp(db);
  user = await makeUser(db);
  admin = await makeUser(db, 'admin');
  userBrowser = await signIn(db, user);
  adminBrowser = await signIn(db, admin);
});
afterAll(async () => app?.close());

const post = (
  url: string,
  browser: TestBrowser | undefined,
  fields: Record<string, string | string[]>,
) =>
  app.inject({
    method: 'POST',
    url,
    headers: { ...FORM_HEADERS, ...(browser ? { cookie: browser.cookie } : {}) },
    payload: form(fields),
  });

describe("the administrators' review page /admin/oauth/clients", () => {
  it('sends a signed-out browser to sign in, refuses a non-administrator', async () => {
    const out = await app.inject('/admin/oauth/clients');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(`/login?next=${encodeURIComponent('/admin/oauth/clients')}`);
    const user403 = await app.inject({
      url: '/admin/oauth/clients',
      headers: { cookie: userBrowser.cookie },
    });
    expect(user403.statusCode).toBe(403);
  });

  it('lists pending clients (escaped) with per-scope decisions; approving, disabling and revoking work', async () => {
    const { db } = database.current;
    const client = await makeClient(db, user, { name: '<b>Bold</b> app' });
    const page = await app.inject({
      url: '/admin/oauth/clients',
      headers: { cookie: adminBrowser.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain('&lt;b&gt;Bold&lt;/b&gt; app');
    expect(page.body).not.toContain('<b>Bold</b>');
    expect(page.body).toContain(`name="scope:api.auth.me.read" value="approved"`);
    // Each form carries a token bound to this administrator's session.
    expect(page.body).toMatch(new RegExp(`name="${CSRF_FIELD}" value="[\\w-]+-[\\w-]+-[\\w-]+"`));

    const base = `/admin/oauth/clients/${client.clientId}`;
    expect(
      (await post(`${base}/review`, adminBrowser, { 'scope:api.auth.me.read': 'approved' }))
        .statusCode,
    ).toBe(403);
    const reviewed = await post(`${base}/review`, adminBrowser, {
      [CSRF_FIELD]: adminBrowser.csrf,
      'scope:api.auth.me.read': 'approved',
      'scope:api.records.daily.read': 'rejected',
    });
    expect(reviewed.statusCode).toBe(303);
    const after = await findClient(db, client.clientId);
    expect(after!.scopes.map((s) => [s.scope, s.status, s.reviewedBy])).toEqual([
      ['api.auth.me.read', 'approved', admin.userId],
      ['api.records.daily.read', 'rejected', admin.userId],
    ]);
    const token = await issueCredential(db, {
      userId: user.userId,
      issuer: 'oauth',
      scopes: ['api.auth.me.read'],
      dailyTokenLimit: 10,
      oauthClientId: client.clientId,
    });
    expect(
      (await post(`${base}/revoke-tokens`, adminBrowser, { [CSRF_FIELD]: adminBrowser.csrf }))
        .statusCode,
    ).toBe(303);
    expect(
      (await findCredentialByRevokeId(db, token.credential.revokeId))!.revokedAt,
    ).not.toBeNull();
    expect(
      (
        await post(`${base}/status`, adminBrowser, {
          [CSRF_FIELD]: adminBrowser.csrf,
          status: 'disabled',
        })
      ).statusCode,
    ).toBe(303);
    expect((await findClient(db, client.clientId))!.status).toBe('disabled');
    // A user's browser cannot use the admin forms even with a valid CSRF token.
    expect(
      (
        await post(`${base}/status`, userBrowser, {
          [CSRF_FIELD]: userBrowser.csrf,
          status: 'active',
        })
      ).statusCode,
    ).toBe(403);
  });
});

describe('admin review forms are bound to the session', () => {
  it("refuses the administrator's session with a planted csrf cookie and matching field, and a cross-site Origin", async () => {
    const { db } = database.current;
    const client = await makeClient(db, user, { requestedScopes: ['api.auth.me.read'] });
    const url = `/admin/oauth/clients/${client.clientId}/status`;
    const session = adminBrowser.cookie.split(';')[0]!;
    const planted = 'B'.repeat(32);
    const forged = await app.inject({
      method: 'POST',
      url,
      headers: { ...FORM_HEADERS, cookie: `${session}; csrf=${planted}` },
      payload: form({ [CSRF_FIELD]: planted, status: 'disabled' }),
    });
    expect(forged.statusCode).toBe(403);
    const crossSite = await app.inject({
      method: 'POST',
      url,
      headers: { ...FORM_HEADERS, cookie: adminBrowser.cookie, origin: 'https://evil.example' },
      payload: form({ [CSRF_FIELD]: adminBrowser.csrf, status: 'disabled' }),
    });
    expect(crossSite.statusCode).toBe(403);
    expect((await findClient(db, client.clientId))!.status).not.toBe('disabled');
  });
});

describe("the account page's OAuth panels", () => {
  it('adds the clients and authorized-apps panels; the clients panel lists clients and a CSRF-protected form', async () => {
    const { db } = database.current;
    const panels = app.accountPanels.list();
    expect(panels.map((p) => p.id)).toEqual(
      expect.arrayContaining(['oauth-clients', 'oauth-authorizations']),
    );
    const client = await makeClient(db, user, { name: 'Panel App' });
    const html = await panels
      .find((p) => p.id === 'oauth-clients')!
      .render({
        request: { query: {} } as never,
        signedIn: { user: (await findUserById(db, user.userId))!, session: {} as never },
        csrfToken: 'tok',
        t: messagesOf('en'),
      });
    expect(html).toContain(client.clientId);
    expect(html).toContain('Panel App');
    expect(html).toContain('action="/account/oauth/clients"');
    expect(html).toContain('name="_csrf" value="tok"');
    expect(html).toContain('value="api.auth.me.read"');
    expect(html).not.toContain('api.admin.oauth.clients.review');
  });

  it('registers a client from the form (one redirect URI per line), refuses bad input with its message, deletes', async () => {
    const { db } = database.current;
    const owner = await makeUser(db);
    const browser = await signIn(db, owner);
    const created = await post('/account/oauth/clients', browser, {
      [CSRF_FIELD]: browser.csrf,
      name: 'Form App',
      redirectUris: 'https://form.example/cb\r\nhttp://localhost:9000/cb\r\n',
      requestedScopes: ['api.auth.me.read', 'api.history.emu.read'],
      description: '',
      homepageUrl: '',
    });
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/account?tab=development#oauth-clients');
    const [client] = await listOwnClients(db, owner.userId);
    expect(client).toMatchObject({
      name: 'Form App',
      redirectUris: ['https://form.example/cb', 'http://localhost:9000/cb'],
      description: null,
      homepageUrl: null,
    });
    const bad = await post('/account/oauth/clients', browser, {
      [CSRF_FIELD]: browser.csrf,
      name: 'Bad',
      redirectUris: 'http://bad.example/cb',
      requestedScopes: 'api.auth.me.read',
    });
    expect(bad.statusCode).toBe(303);
    expect(decodeURIComponent(bad.headers.location as string)).toMatch(
      /oauth_error=redirectUris\[0\]: must use https/,
    );
    expect(
      (await post(`/account/oauth/clients/${client!.clientId}/delete`, browser, {})).statusCode,
    ).toBe(403);
    expect(
      (
        await post(`/account/oauth/clients/${client!.clientId}/delete`, browser, {
          [CSRF_FIELD]: browser.csrf,
        })
      ).statusCode,
    ).toBe(303);
    expect(await listOwnClients(db, owner.userId)).toEqual([]);
    // Signed out: to the sign-in page.
    const out = await post('/account/oauth/clients', undefined, { name: 'x' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toMatch(/^\/login\?next=/);
  });
});
