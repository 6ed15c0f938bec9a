import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { formBrowser } from '../helpers/form-browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { FAST_SCRYPT_ENV, makeUser } from '../api/helpers/accounts.js';
import { makeApp, testConfig } from '../api/helpers/api-harness.js';

const t = useTestDatabase();
let app: ApiApp;

beforeAll(async () => {
  app = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV) });
});
afterAll(async () => {
  await app.close();
});

/** A browser's cookie jar over inject(). */
const browser = () => formBrowser(app);

describe('account pages', () => {
  it('sends a signed-out visitor of /account to /login with next, and back there after signing in', async () => {
    const user = await makeUser(t.current.db, 'page');
    const b = browser();
    const account = await b.get('/account?tab=development');
    expect(account.statusCode).toBe(303);
    expect(account.headers.location).toBe('/login?next=%2Faccount%3Ftab%3Ddevelopment');
    const login = await b.get(account.headers.location as string);
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-type']).toContain('text/html');
    expect(login.body).toContain('name="next" value="/account?tab=development"');
    const signedIn = await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      next: '/account?tab=development',
      username: user.username,
      password: user.password,
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/account?tab=development');
    expect(b.jar.token).toMatch(/^webapp_/);
    const page = await b.get('/account?tab=development');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('API keys');
    expect(page.body).toContain('this browser');
  });

  it('never returns to another site after signing in (next must be a path here)', async () => {
    const user = await makeUser(t.current.db, 'next');
    for (const next of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const b = browser();
      const login = await b.get(`/login?next=${encodeURIComponent(next)}`);
      const res = await b.post('/login', {
        _csrf: b.csrfOf(login.body),
        next,
        username: user.username,
        password: user.password,
      });
      expect(res.statusCode, next).toBe(303);
      expect(res.headers.location, next).toBe('/account');
    }
  });

  it('refuses a form post without its CSRF token (403), and with another browser`s token', async () => {
    const user = await makeUser(t.current.db, 'csrf');
    const b = browser();
    await b.get('/login');
    const missing = await b.post('/login', { username: user.username, password: user.password });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('expired');
    expect(b.jar.token).toBeUndefined();
    const other = browser();
    const otherPage = await other.get('/login');
    const forged = await b.post('/login', {
      _csrf: other.csrfOf(otherPage.body),
      username: user.username,
      password: user.password,
    });
    expect(forged.statusCode).toBe(403);
    // Signed in, a forged key creation is refused too and creates nothing.
    const login = await b.get('/login');
    await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      username: user.username,
      password: user.password,
    });
    const create = await b.post('/account/keys', {
      name: 'forged',
      scopes: 'api.auth.me.read',
      expiresInDays: '30',
    });
    expect(create.statusCode).toBe(403);
    const page = await b.get('/account?tab=development');
    expect(page.body).not.toContain('forged');
  });

  it('registers through the form, refuses a taken name (409) and bad input (400) on the page', async () => {
    const b = browser();
    const form = await b.get('/register');
    const csrf = b.csrfOf(form.body);
    const ok = await b.post('/register', {
      _csrf: csrf,
      username: 'form_user',
      password: 'a long form passphrase',
    });
    expect(ok.statusCode).toBe(303);
    expect(b.jar.token).toBeDefined();
    const c = browser();
    const page = await c.get('/register');
    const taken = await c.post('/register', {
      _csrf: c.csrfOf(page.body),
      username: 'FORM_USER',
      password: 'a long form passphrase',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain('taken');
    const short = await c.post('/register', {
      _csrf: c.csrfOf(page.body),
      username: 'ok_name',
      password: 'short',
    });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('password');
  });

  it('answers a wrong password on the page with 401 and the same words as an unknown user', async () => {
    const user = await makeUser(t.current.db, 'wrongpage');
    const b = browser();
    const page = await b.get('/login');
    const wrong = await b.post('/login', {
      _csrf: b.csrfOf(page.body),
      username: user.username,
      password: 'nope-nope',
    });
    const unknown = await b.post('/login', {
      _csrf: b.csrfOf(page.body),
      username: 'no_such_user',
      password: 'nope-nope',
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.body).toContain('Wrong username or password.');
    expect(unknown.body).toContain('Wrong username or password.');
  });

  it('creates a key on the Development tab (shown once), revokes it, and escapes what users wrote', async () => {
    const user = await makeUser(t.current.db, 'dev');
    const b = browser();
    const login = await b.get('/login');
    await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      username: user.username,
      password: user.password,
    });
    const tab = await b.get('/account?tab=development');
    const created = await b.post('/account/keys', {
      _csrf: b.csrfOf(tab.body),
      name: '<script>alert(1)</script>',
      scopes: ['api.auth.me.read', 'api.records.daily.read'],
      expiresInDays: '90',
    });
    expect(created.statusCode).toBe(200);
    const key = /id="new-key" readonly value="(api_[^"]+)"/.exec(created.body)![1]!;
    expect(created.body).not.toContain('<script>alert(1)</script>');
    expect(created.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const me = await app.inject({
      url: '/api/v2/auth/me',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.apiKey.scopes).toEqual(['api.auth.me.read', 'api.records.daily.read']);
    const later = await b.get('/account?tab=development');
    expect(later.body).not.toContain(key);
    const revokeId = me.json().data.apiKey.revokeId as string;
    const revoked = await b.post(`/account/keys/${revokeId}/revoke`, {
      _csrf: b.csrfOf(later.body),
    });
    expect(revoked.statusCode).toBe(303);
    expect(
      (await app.inject({ url: '/api/v2/auth/me', headers: { authorization: `Bearer ${key}` } }))
        .statusCode,
    ).toBe(401);
  });

  it('shows the panels other parts add to the Development tab', async () => {
    const withPanel = await makeApp(t.current.db, { config: testConfig(FAST_SCRYPT_ENV) });
    try {
      withPanel.accountPanels.add({
        id: 'test-panel',
        title: 'A panel & more',
        render: ({ signedIn, csrfToken }) =>
          `<p>for ${signedIn.user.userId} with ${/^[\w-]+-[\w-]+-[\w-]+$/.test(csrfToken) ? 'a token' : csrfToken}</p>`,
      });
      const user = await makeUser(t.current.db, 'panel');
      const login = await withPanel.inject({
        method: 'POST',
        url: '/api/v2/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ username: user.username, password: user.password }),
      });
      const token = login.cookies.find((c) => c.name === 'token')!.value;
      const page = await withPanel.inject({ url: '/account?tab=development', cookies: { token } });
      expect(page.body).toContain(
        '<section class="card" id="test-panel"><h2>A panel &amp; more</h2>',
      );
      expect(page.body).toContain(`<p>for ${user.userId} with a token</p>`);
    } finally {
      await withPanel.close();
    }
  });

  it('changes the password on the Profile tab; a wrong current password is refused', async () => {
    const user = await makeUser(t.current.db, 'pwpage');
    const b = browser();
    const login = await b.get('/login');
    await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      username: user.username,
      password: user.password,
    });
    const profile = await b.get('/account');
    const wrong = await b.post('/account/password', {
      _csrf: b.csrfOf(profile.body),
      currentPassword: 'nope-nope',
      newPassword: 'brand-new-pw',
    });
    expect(wrong.statusCode).toBe(401);
    const ok = await b.post('/account/password', {
      _csrf: b.csrfOf(profile.body),
      currentPassword: user.password,
      newPassword: 'brand-new-pw',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('Password changed');
  });

  it('signs out through the header form', async () => {
    const user = await makeUser(t.current.db, 'bye');
    const b = browser();
    const login = await b.get('/login');
    await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      username: user.username,
      password: user.password,
    });
    const token = b.jar.token!;
    const page = await b.get('/account');
    const out = await b.post('/logout', { _csrf: b.csrfOf(page.body) });
    expect(out.statusCode).toBe(303);
    expect(b.jar.token).toBeUndefined();
    expect((await app.inject({ url: '/api/v2/auth/me', cookies: { token } })).statusCode).toBe(401);
  });
});

describe('account forms bound to the session', () => {
  async function signedInBrowser() {
    const user = await makeUser(t.current.db, 'bound');
    const b = browser();
    const login = await b.get('/login');
    const done = await b.post('/login', {
      _csrf: b.csrfOf(login.body),
      username: user.username,
      password: user.password,
    });
    expect(done.statusCode).toBe(303);
    return b;
  }

  it("refuses /account forms with the victim's session and an attacker-chosen csrf cookie and field", async () => {
    const b = await signedInBrowser();
    const planted = 'C'.repeat(32);
    const res = await app.inject({
      method: 'POST',
      url: '/account/keys',
      cookies: { token: b.jar.token!, csrf: planted },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: planted,
        name: 'stolen',
        scopes: 'api.auth.me.read',
      }).toString(),
    });
    expect(res.statusCode).toBe(403);
    const page = await b.get('/account?tab=development');
    expect(page.body).not.toContain('stolen');
  });

  it("refuses a token made for another session (the attacker's own page) planted with its cookie", async () => {
    const victim = await signedInBrowser();
    const attacker = await signedInBrowser();
    const attackerPage = await attacker.get('/account?tab=development');
    const res = await app.inject({
      method: 'POST',
      url: '/account/keys',
      cookies: { token: victim.jar.token!, csrf: attacker.jar.csrf! },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: attacker.csrfOf(attackerPage.body),
        name: 'stolen',
        scopes: 'api.auth.me.read',
      }).toString(),
    });
    expect(res.statusCode).toBe(403);
  });

  it('refuses a cross-site Origin on an honest token, and keeps the honest form working', async () => {
    const b = await signedInBrowser();
    const page = await b.get('/account?tab=development');
    const form = new URLSearchParams({
      _csrf: b.csrfOf(page.body),
      name: 'honest',
      scopes: 'api.auth.me.read',
    }).toString();
    const post = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/account/keys',
        cookies: { ...b.jar },
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: form,
      });
    expect((await post({ origin: 'https://attacker.example' })).statusCode).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    const honest = await post({ origin: 'http://localhost:80', host: 'localhost:80' });
    expect(honest.statusCode).toBe(200);
    expect(honest.body).toContain('honest');
  });

  it('login CSRF: a sign-in token from before sign-in is refused once signed in, and a cross-site sign-in post is refused', async () => {
    const user = await makeUser(t.current.db, 'logincsrf');
    const b = browser();
    const login = await b.get('/login');
    const preSessionToken = b.csrfOf(login.body);
    const crossSite = await app.inject({
      method: 'POST',
      url: '/login',
      cookies: { ...b.jar },
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://attacker.example',
      },
      payload: new URLSearchParams({
        _csrf: preSessionToken,
        username: user.username,
        password: user.password,
      }).toString(),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.cookies.find((c) => c.name === 'token')).toBeUndefined();
    const ok = await b.post('/login', {
      _csrf: preSessionToken,
      username: user.username,
      password: user.password,
    });
    expect(ok.statusCode).toBe(303);
    // Signed in now: the pre-session token no longer fits (the binding is the session).
    const logout = await b.post('/logout', { _csrf: preSessionToken });
    expect(logout.statusCode).toBe(403);
  });
});
