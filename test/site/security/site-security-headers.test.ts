import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  concretePath,
  cspDirectives,
  expectSecurityHeaders,
} from '../../helpers/security-headers-check.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';
import { siteSessionSecret } from './site-session.js';

/**
 * the site's pages sent no CSP and could be framed. Every route the app registered is
 * called (so a page added later without the headers fails here), signed out and as an
 * administrator, with every method it takes.
 */
describe("the site's security headers", () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let cookie: string;
  let post: { id: number; link: string };
  let page: { id: number; link: string };

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    cookie = `token=${await siteSessionSecret(site.db, admin.id)}`;
    post = (
      await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: admin,
        body: { title: '京沪高铁', content: '<p>G1</p>', status: 'publish' },
      })
    ).body;
    page = (
      await site.call('POST', '/wp-json/wp/v2/pages', {
        auth: admin,
        body: { title: '关于', content: '<p>关于本站</p>', status: 'publish' },
      })
    ).body;
  });

  const call = (method: string, url: string, signedIn: boolean): Promise<LightMyRequestResponse> =>
    site.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(signedIn ? { cookie } : {}),
        ...(['POST', 'PUT', 'PATCH'].includes(method)
          ? { 'content-type': 'application/x-www-form-urlencoded' }
          : {}),
      },
      ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: '' } : {}),
    });

  it('every registered route answers with nosniff, and each HTML page with a CSP refusing inline script and framing', async () => {
    const [, year, month, day, slug] = new URL(post.link).pathname.split('/');
    const samples = { year: year!, month: month!, day: day!, slug: slug!, id: String(post.id) };
    const wildcards: Record<string, string> = {
      '/*': new URL(page.link).pathname.slice(1),
      '/wp-json/*': 'wp/v2/posts',
      '/wp-content/uploads/*': '2026/11/none.png',
    };
    const htmlRoutes = new Set<string>();
    const routes = site.app.registeredRoutes;
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const path = concretePath(route.url, samples, wildcards, 'x');
      for (const method of route.methods) {
        for (const signedIn of [false, true]) {
          const res = await call(method, path, signedIn);
          const what = `${method} ${route.url} (${path}, ${signedIn ? 'administrator' : 'anonymous'}): ${res.statusCode}`;
          if (expectSecurityHeaders(what, res, route)) htmlRoutes.add(`${method} ${route.url}`);
        }
      }
    }
    // The pages the attack named are among those checked: sign-in, authorization, front page,
    // posts, pages, the oEmbed view.
    for (const known of [
      'GET /wp-login.php',
      'POST /wp-login.php',
      'GET /wp-admin/authorize-application.php',
      'POST /wp-admin/authorize-application.php',
      'GET /',
      'GET /index.php',
      'GET /:year(^\\d{4}$)/:month(^\\d{2}$)/:day(^\\d{2}$)/:slug/',
      'GET /*',
      'GET /embed/:id/',
    ])
      expect([...htmlRoutes]).toContain(known);
  });

  it("a signed-in reader's page allows its wpApiSettings script by a nonce of its own, new on every page", async () => {
    const nonces = [];
    for (let i = 0; i < 2; i++) {
      const res = await call('GET', `/?p=${post.id}`, true);
      const csp = cspDirectives(String(res.headers['content-security-policy']));
      const nonce = /<script nonce="([^"]+)">var wpApiSettings=/.exec(res.body)?.[1];
      expect(nonce).toBeDefined();
      expect(csp.get('script-src')).toEqual(["'self'", `'nonce-${nonce}'`]);
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
    // Signed out: no inline script, no nonce (only the theme's script file, allowed by 'self').
    const anonymous = await call('GET', `/?p=${post.id}`, false);
    expect(anonymous.body.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="\/[^"]+" defer>$/),
    ]);
    expect(
      cspDirectives(String(anonymous.headers['content-security-policy'])).get('script-src'),
    ).toEqual(["'self'"]);
  });

  it('authorize-application.php cannot be framed (clickjacking the approval)', async () => {
    const res = await call(
      'GET',
      '/wp-admin/authorize-application.php?app_name=x&success_url=https%3A%2F%2Fapp.example%2Fcb',
      true,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(
      cspDirectives(String(res.headers['content-security-policy'])).get('frame-ancestors'),
    ).toEqual(["'none'"]);
  });

  it("the oEmbed view stays frameable (other sites' iframes show it)", async () => {
    const res = await call('GET', `/embed/${post.id}/`, false);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(String(res.headers['content-security-policy'])).not.toContain('frame-ancestors');
  });
});
