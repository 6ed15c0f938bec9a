import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { defaultKeyScopes } from '../../src/domain/accounts/scopes.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { FAST_SCRYPT_ENV, makeUser } from './helpers/accounts.js';
import { makeApp, testConfig } from './helpers/api-harness.js';

const t = useTestDatabase();
let app: ApiApp;

beforeAll(async () => {
  app = await makeApp(t.current.db, {
    config: testConfig({ ...FAST_SCRYPT_ENV, SITE_URL: 'https://docs.example.org' }),
  });
});
afterAll(async () => {
  await app.close();
});

/**
 * The API's HTML pages (sign-in, registration, OAuth consent and errors, the admin review) are
 * drawn in the web app's layout: its stylesheet (system fonts, each system's own CJK face; no
 * served font), its header and footer, and in the footer the documentation site's links.
 */
describe("the API's pages: the web app's layout and the way to the docs", () => {
  const pages = async () => {
    const user = await makeUser(t.current.db, 'reviewer');
    const { secret } = await issueCredential(t.current.db, {
      userId: user.userId,
      issuer: 'webapp',
      name: 'test session',
      scopes: [...defaultKeyScopes(user.role)],
      dailyTokenLimit: 1000,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const urls = [
      '/login',
      '/register',
      // The consent page's frame, as a bad request shows it.
      '/oauth/authorize?client_id=emc_nope&response_type=code',
      // The admin review page, to a signed-in user who is not an administrator.
      '/admin/oauth/clients',
      '/account',
    ];
    return Promise.all(
      urls.map(async (url) => ({
        url,
        // Signed in only where it matters (signed in, /login sends one to the account page).
        res: await app.inject({
          url,
          headers: { 'accept-language': 'en' },
          cookies: url.startsWith('/login') || url.startsWith('/register') ? {} : { token: secret },
        }),
      })),
    );
  };

  it('gives every page the layout, the system fonts and the docs links', async () => {
    for (const { url: where, res } of await pages()) {
      expect(res.headers['content-type'], where).toMatch(/^text\/html/);
      const html = res.body;
      expect(html, where).toContain('data-layout="web"');
      expect(html, where).toMatch(/<link rel="stylesheet" href="\/assets\/web\/web\.[\w-]+\.css"/);
      expect(html, where).not.toMatch(/\.ttf\b|\.woff2?\b|noto-sans-sc|id="cjk-font"/);
      expect(html, where).not.toMatch(/<style/);
      expect(html, where).toContain('<a href="https://docs.example.org/manual/">manual</a>');
      expect(html, where).toContain('href="https://docs.example.org/manual/oauth/"');
      expect(html, where).toContain('href="https://docs.example.org/api-reference/"');
      // One header and one footer, inside the document.
      expect(html.match(/<header class="site-header">/g), where).toHaveLength(1);
      expect(html.match(/<footer class="site-footer">/g), where).toHaveLength(1);
      expect(html.indexOf('<footer')).toBeLessThan(html.indexOf('</body>'));
    }
  });

  it('is Chinese unless asked for English, and the footer switch changes it', async () => {
    const zh = await app.inject({ url: '/login' });
    expect(zh.body).toContain('<html lang="zh-CN"');
    expect(zh.body).toContain('使用手册');
    const switched = await app.inject({ url: '/login?next=%2Faccount&lang=en' });
    expect(switched.statusCode).toBe(303);
    expect(switched.headers.location).toBe('/login?next=%2Faccount');
    const lang = switched.cookies.find((c) => c.name === 'lang')!;
    expect(lang.value).toBe('en');
    const en = await app.inject({ url: '/login?next=%2Faccount', cookies: { lang: 'en' } });
    expect(en.body).toContain('<html lang="en"');
    expect(en.body).toContain('<h1>Sign in</h1>');
  });

  it('serves no font of its own any more, and leaves JSON and the OpenAPI viewer alone', async () => {
    expect((await app.inject({ url: '/assets/fonts/noto-sans-sc.css' })).statusCode).toBe(404);
    const json = await app.inject({ url: '/api/v2/exports/daily' });
    expect(json.body).not.toContain('data-layout');
    const openapi = await app.inject({ url: '/docs/json' });
    expect(JSON.stringify(openapi.json().paths ?? {})).not.toContain('/assets/fonts');
    const viewer = await app.inject({ url: '/docs', headers: { accept: 'text/html' } });
    expect(viewer.body).not.toContain('data-layout="web"');
  });
});
