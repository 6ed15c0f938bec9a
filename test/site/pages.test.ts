import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/domain/accounts/users.js';
import { setSiteRole } from '../../src/domain/content/site-roles.js';
import { CJK_WEB_FONT_FAMILY } from '../../src/http/cjk-web-font.js';
import { useChromium } from '../helpers/browser.js';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

const CHINESE = '京沪高速铁路全长1318公里，CR400AF型动车组担当G1次列车。';

describe("the site's own pages", () => {
  const site = useSite({ listen: true });
  const chromium = useChromium();
  let admin: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
  });

  it(
    'renders a published page with its Chinese text in Chromium, with navigation and the REST discovery link',
    { timeout: 120_000 },
    async () => {
      const menu = await site.call('POST', '/wp-json/wp/v2/menus', {
        auth: admin,
        body: { name: '导航', locations: ['primary'] },
      });
      const page = await site.call('POST', '/wp-json/wp/v2/pages', {
        auth: admin,
        body: {
          title: '京沪高铁',
          content: `<!-- wp:heading --><h2 class="wp-block-heading">线路概况</h2><!-- /wp:heading -->\n<!-- wp:paragraph --><p>${CHINESE}</p><!-- /wp:paragraph -->`,
          status: 'publish',
        },
      });
      await site.call('POST', '/wp-json/wp/v2/menu-items', {
        auth: admin,
        body: { type: 'post_type', object: 'page', object_id: page.body.id, menus: menu.body.id },
      });
      const draft = await site.call('POST', '/wp-json/wp/v2/pages', {
        auth: admin,
        body: { title: '草稿', content: '未发布' },
      });

      const response = await fetch(page.body.link);
      expect(response.status).toBe(200);
      expect(response.headers.get('link')).toBe(`<${site.url}/wp-json/>; rel="https://api.w.org/"`);
      expect((await fetch(`${site.url}/?page_id=${draft.body.id}`)).status).toBe(404);

      const tab = await (await chromium.browser()).newPage();
      try {
        await tab.goto(page.body.link);
        expect(await tab.title()).toBe('京沪高铁 – emutrack 文档');
        // Whatever theme renders it (the classic one or block templates): the title, the text, the menu.
        expect(await tab.locator('h1').first().textContent()).toBe('京沪高铁');
        expect(await tab.locator('p', { hasText: CHINESE }).count()).toBe(1);
        expect(await tab.locator('nav a', { hasText: '京沪高铁' }).count()).toBeGreaterThan(0);
        // The glyphs are drawn, not boxes: this machine has no CJK font, so the served face
        // (Noto Sans SC's slices) must have been fetched and used for the Chinese text.
        const fonts = await tab.evaluate(async (family) => {
          const doc = (
            globalThis as unknown as {
              document: {
                fonts: {
                  ready: Promise<unknown>;
                  load(font: string, text: string): Promise<unknown>;
                  forEach(f: (face: { family: string; status: string }) => void): void;
                };
              };
            }
          ).document;
          await doc.fonts.ready;
          // Headings are bold (drawn bolder from the one served weight); wait as a reader would.
          await doc.fonts.load(`700 16px "${family}"`, '京');
          await doc.fonts.ready;
          const loaded: string[] = [];
          doc.fonts.forEach((face) => {
            if (face.status === 'loaded') loaded.push(face.family.replace(/"/g, ''));
          });
          return loaded;
        }, CJK_WEB_FONT_FAMILY);
        expect(fonts).toContain(CJK_WEB_FONT_FAMILY);
        // Kept for a person to look at (the glyphs, the layout).
        await tab.screenshot({
          path: path.join(tmpdir(), 'emutrack-site-page.png'),
          fullPage: true,
        });
      } finally {
        await tab.close();
      }
    },
  );

  it('signs in, approves an application on the authorize-application page and redirects with the new password', async () => {
    const user = await createUser(
      site.db,
      { username: 'appowner', password: 'a long password 1' },
      { scrypt: { N: 1024, r: 8, p: 1 } },
    );
    await setSiteRole(site.db, Number(user.userId), 'author');
    const success = 'http://127.0.0.1:9/done';
    const authorize = `/wp-admin/authorize-application.php?app_name=${encodeURIComponent('同步脚本')}&success_url=${encodeURIComponent(success)}`;
    const first = await fetch(`${site.url}${authorize}`, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(
      `/wp-login.php?redirect_to=${encodeURIComponent(authorize)}`,
    );
    const formPage = await fetch(`${site.url}/wp-login.php`);
    const preSession = String(formPage.headers.get('set-cookie')).split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await formPage.text())![1]!;
    const badLogin = await fetch(`${site.url}/wp-login.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: preSession },
      body: new URLSearchParams({
        _csrf: csrf,
        log: 'appowner',
        pwd: 'wrong',
        redirect_to: authorize,
      }).toString(),
    });
    expect(badLogin.status).toBe(401);
    const login = await fetch(`${site.url}/wp-login.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: preSession },
      body: new URLSearchParams({
        _csrf: csrf,
        log: 'appowner',
        pwd: 'a long password 1',
        redirect_to: authorize,
      }).toString(),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe(authorize);
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    const form = await (await fetch(`${site.url}${authorize}`, { headers: { cookie } })).text();
    expect(form).toContain('同步脚本');
    const nonce = /name="_wpnonce" value="([^"]+)"/.exec(form)![1]!;
    const forged = await fetch(`${site.url}/wp-admin/authorize-application.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        app_name: 'x',
        success_url: success,
        _wpnonce: 'forged',
        approve: '1',
      }).toString(),
    });
    expect(forged.status).toBe(403);
    const approved = await fetch(`${site.url}/wp-admin/authorize-application.php`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        app_name: '同步脚本',
        success_url: success,
        _wpnonce: nonce,
        approve: '1',
      }).toString(),
    });
    expect(approved.status).toBe(303);
    const target = new URL(approved.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe(success);
    expect(target.searchParams.get('site_url')).toBe(site.url);
    expect(target.searchParams.get('user_login')).toBe('appowner');
    const password = target.searchParams.get('password')!;
    const me = await fetch(`${site.url}/wp-json/wp/v2/users/me`, {
      headers: { authorization: `Basic ${Buffer.from(`appowner:${password}`).toString('base64')}` },
    });
    expect(((await me.json()) as { name: string }).name).toBe('appowner');
    const insecure = await fetch(
      `${site.url}/wp-admin/authorize-application.php?app_name=x&success_url=${encodeURIComponent('http://evil.example/cb')}`,
      { headers: { cookie } },
    );
    expect(insecure.status).toBe(400);
  });
});
