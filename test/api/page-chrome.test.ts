import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { defaultKeyScopes } from '../../src/domain/accounts/scopes.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { API_FONT_PATHS } from '../../src/http/api/page-chrome.js';
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
 * the CJK font the API serves, so Chinese never draws as boxes, and link the documentation site.
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

  it('gives every page the @font-face of the fonts served here, first in the body font, and the docs links', async () => {
    for (const { url: where, res } of await pages()) {
      expect(res.headers['content-type'], where).toMatch(/^text\/html/);
      const html = res.body;
      expect(html, where).toContain(`src:url("${API_FONT_PATHS.regular}") format("truetype")`);
      expect(html, where).toContain('body{font-family:"Noto Sans SC",');
      expect(html, where).toContain('unicode-range:');
      expect(html, where).toContain('<a href="https://docs.example.org/manual/">manual</a>');
      expect(html, where).toContain('href="https://docs.example.org/manual/oauth/"');
      expect(html, where).toContain('href="https://docs.example.org/api-reference/"');
      // A page's Content-Security-Policy must let the font through.
      const csp = res.headers['content-security-policy'];
      if (csp) expect(String(csp), where).toMatch(/font-src 'self'/);
      // Added once, inside the document.
      expect(html.match(/id="cjk-font"/g), where).toHaveLength(1);
      expect(html.indexOf('<footer class="docs-links">')).toBeLessThan(html.indexOf('</body>'));
    }
  });

  it('serves the font files with a year of cache and leaves JSON and the OpenAPI viewer alone', async () => {
    for (const path of [API_FONT_PATHS.regular, API_FONT_PATHS.bold]) {
      const font = await app.inject({ url: path });
      expect(font.statusCode).toBe(200);
      expect(font.headers['content-type']).toBe('font/ttf');
      expect(font.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(font.rawPayload.subarray(0, 4).toString('hex')).toBe('00010000');
    }
    // Gzipped to a browser that accepts it: the same bytes.
    const plain = await app.inject({ url: API_FONT_PATHS.regular });
    const zipped = await app.inject({
      url: API_FONT_PATHS.regular,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length * 0.7);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    const json = await app.inject({ url: '/api/v2/exports/daily' });
    expect(json.body).not.toContain('cjk-font');
    const openapi = await app.inject({ url: '/docs/json' });
    expect(JSON.stringify(openapi.json().paths ?? {})).not.toContain('/assets/fonts');
  });
});
