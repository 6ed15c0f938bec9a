import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { defaultKeyScopes } from '../../src/domain/accounts/scopes.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { CJK_FONT_STACK } from '../../src/http/cjk-web-font.js';
import { API_WEB_FONT } from '../../src/http/api/page-chrome.js';
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
 * The API's HTML pages (sign-in, registration, OAuth consent and errors, the admin review) name
 * the systems' CJK fonts and, for machines without one, the face the API serves, so Chinese
 * never draws as boxes; and they link the documentation site.
 */
describe("the API's pages: the CJK font and the way to the docs", () => {
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
    ];
    return Promise.all(
      urls.map(async (url) => ({
        url,
        // Signed in only where it matters (signed in, /login sends one to the account page).
        res: await app.inject({ url, cookies: url.startsWith('/admin') ? { token: secret } : {} }),
      })),
    );
  };

  it('gives every page the CJK font stack and the served face, and the docs links', async () => {
    for (const { url: where, res } of await pages()) {
      expect(res.headers['content-type'], where).toMatch(/^text\/html/);
      const html = res.body;
      expect(html, where).toContain(`<link rel="stylesheet" href="${API_WEB_FONT.stylesheetUrl}">`);
      expect(html, where).toContain(`body{font-family:${CJK_FONT_STACK}}`);
      expect(html, where).not.toMatch(/\.ttf\b/);
      expect(html, where).toContain('<a href="https://docs.example.org/manual/">manual</a>');
      expect(html, where).toContain('href="https://docs.example.org/manual/oauth/"');
      expect(html, where).toContain('href="https://docs.example.org/api-reference/"');
      // A page's Content-Security-Policy must let the stylesheet and the font through.
      const csp = res.headers['content-security-policy'];
      if (csp) expect(String(csp), where).toMatch(/font-src 'self'/);
      // Added once, inside the document.
      expect(html.match(/id="cjk-font"/g), where).toHaveLength(1);
      expect(html.indexOf('<footer class="docs-links">')).toBeLessThan(html.indexOf('</body>'));
    }
  });

  it('serves the face (stylesheet and WOFF2 slices) with a year of cache and leaves JSON and the OpenAPI viewer alone', async () => {
    const sheet = await app.inject({
      url: API_WEB_FONT.stylesheetUrl,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toBe('text/css; charset=UTF-8');
    expect(sheet.headers['content-encoding']).toBe('br');
    expect(sheet.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = brotliDecompressSync(sheet.rawPayload).toString();
    expect(css).toBe(API_WEB_FONT.css);
    const slices = [...css.matchAll(/url\("([^"]+)"\) format\("woff2"\)/g)].map((m) => m[1]!);
    expect(slices.length).toBeGreaterThan(50);
    for (const path of [slices[0]!, slices.at(-1)!]) {
      const font = await app.inject({ url: path });
      expect(font.statusCode, path).toBe(200);
      expect(font.headers['content-type']).toBe('font/woff2');
      expect(font.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(font.rawPayload.subarray(0, 4).toString()).toBe('wOF2');
      expect(font.rawPayload.length).toBeLessThan(200_000);
    }
    for (const path of ['999.woff2', '..%2Fpackage.json', '1.woff']) {
      expect((await app.inject({ url: `/assets/fonts/noto-sans-sc/${path}` })).statusCode).toBe(
        404,
      );
    }
    const json = await app.inject({ url: '/api/v2/exports/daily' });
    expect(json.body).not.toContain('cjk-font');
    const openapi = await app.inject({ url: '/docs/json' });
    expect(JSON.stringify(openapi.json().paths ?? {})).not.toContain('/assets/fonts');
  });
});
