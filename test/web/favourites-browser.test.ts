import { beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { makeUser } from '../api/helpers/accounts.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import type { Db } from '../../src/shared/db/db.js';
import { useWebBrowserTest, WEB_TODAY } from './helpers/web-harness.js';

// One server for the browser's flow and the answers read by inject (one fixture week, one app).
const web = useWebBrowserTest();
const clock = shanghaiClock(WEB_TODAY);
/** The browser's session, and another user's for the answers read by inject. */
let browserSession: string;
let session: string;
let username: string;

/** A web session of a new user, live from the app's day until after the machine's. */
async function signIn(db: Db): Promise<{ secret: string; username: string }> {
  const user = await makeUser(db, 'starry');
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'webapp',
    scopes: [...scopesOfRole('user')],
    dailyTokenLimit: 1000,
    activeFrom: new Date(clock()),
    expiresAt: new Date(Math.max(Date.now(), clock()) + 86_400_000),
  });
  return { secret, username: user.username };
}

beforeAll(async () => {
  browserSession = (await signIn(web.t.current.db)).secret;
  ({ secret: session, username } = await signIn(web.t.current.db));
});

describe('favourites in a phone browser', () => {
  it('stars a train on its page, shows it with its status on the home page, and removes it', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await context.addCookies([{ name: 'token', value: browserSession, url: base }]);
      await web.checkPage(page, '/train/G1', 'zh-CN');
      const star = page.locator('form[data-favourite-star="off"] button');
      expect(await star.innerText()).toContain('加入收藏');
      await Promise.all([page.waitForURL(`${base}/train/G1`), star.click()]);
      expect(await page.locator('form[data-favourite-star="on"]').count()).toBe(1);

      await web.checkPage(page, '/', 'zh-CN');
      const item = page.locator('[data-favourite="train:G1"]');
      expect(await item.locator('a').first().innerText()).toBe('G1');
      // Today's status in words: the units seen today, or why there are none.
      expect(await item.locator('[data-favourite-status]').innerText()).toMatch(
        /今日|最近|未发现|不开行/,
      );

      await page.goto(`${base}/train/G1`);
      await Promise.all([
        page.waitForURL(`${base}/train/G1`),
        page.locator('form[data-favourite-star="on"] button').click(),
      ]);
      await page.goto(`${base}/`);
      expect(await page.locator('[data-favourite="train:G1"]').count()).toBe(0);
      expect(await page.locator('[data-favourites]').innerText()).toContain('还没有收藏');
    });
  }, 60_000);
});

const get = (url: string, cookies: Record<string, string> = {}) =>
  web.server.app.inject({ url, headers: { accept: 'text/html' }, cookies });

/** The star's form fields and the csrf cookie it was made with, from a signed-in page. */
async function starOf(url: string) {
  const res = await get(url, { token: session });
  const csrf = res.cookies.find((c) => c.name === 'csrf')?.value;
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  const action = /name="action" value="(add|remove)"/.exec(res.body)?.[1];
  return { res, csrf: csrf!, token: token!, action };
}

const post = (form: Record<string, string>, cookies: Record<string, string>) =>
  web.server.app.inject({
    method: 'POST',
    url: '/favourites',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
    cookies,
  });

describe('favourites on the pages', () => {
  it('shows the star only in a signed-in reader’s no-store copy; the kept page stays anonymous', async () => {
    for (const url of [
      '/train/G1',
      '/emu/CR400AF-2001',
      `/station/${encodeURIComponent('上海虹桥')}`,
    ]) {
      const anonymous = await get(url);
      expect(anonymous.statusCode, url).toBe(200);
      expect(anonymous.headers['cache-control'], url).toBe('public, no-cache');
      expect(anonymous.body, url).not.toContain('data-favourite-star');

      const { res, token } = await starOf(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.headers.etag, url).toBeUndefined();
      expect(res.body, url).toContain('data-favourite-star="off"');
      expect(token, url).toBeTruthy();

      // Asked for again without the cookie: the kept page, as it was, with nothing of the user.
      const after = await get(url);
      expect(after.body, url).toBe(anonymous.body);
      expect(after.body, url).not.toContain(token);
      expect(after.headers.etag, url).toBe(anonymous.headers.etag);
    }
  });

  it('adds and removes through the form, and the home page lists it for its user alone', async () => {
    const { csrf, token, action } = await starOf('/train/G1');
    expect(action).toBe('add');
    const cookies = { token: session, csrf };
    const forged = await post(
      { kind: 'train', code: 'G1', action: 'add', next: '/train/G1' },
      cookies,
    );
    expect(forged.statusCode).toBe(403);

    const added = await post(
      { _csrf: token, kind: 'train', code: 'G1', action: 'add', next: '/train/G1' },
      cookies,
    );
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe('/train/G1');
    expect((await get('/train/G1', { token: session })).body).toContain('data-favourite-star="on"');

    const home = await get('/', { token: session });
    expect(home.headers['cache-control']).toBe('no-store');
    expect(home.body).toContain('data-favourite="train:G1"');
    const anonymousHome = await get('/');
    expect(anonymousHome.headers['cache-control']).toBe('public, no-cache');
    expect(anonymousHome.body).not.toContain('data-favourites');
    expect(anonymousHome.body).not.toContain(username);

    const bad = await post({ _csrf: token, kind: 'train', code: 'G99999', action: 'add' }, cookies);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('code');
    const badKind = await post({ _csrf: token, kind: 'plane', code: 'G1', action: 'add' }, cookies);
    expect(badKind.statusCode).toBe(400);

    const removed = await post(
      { _csrf: token, kind: 'train', code: 'G1', action: 'remove', next: '//elsewhere.example/' },
      cookies,
    );
    expect(removed.statusCode).toBe(303);
    // Never another site: the favourite's own page.
    expect(removed.headers.location).toBe('/train/G1');
    expect((await get('/', { token: session })).body).not.toContain('data-favourite="train:G1"');
  });

  it('sends a signed-out star to the sign-in page, coming back to the page', async () => {
    const res = await post({ kind: 'train', code: 'G1', action: 'add', next: '/train/G1' }, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/login?next=${encodeURIComponent('/train/G1')}`);
  });
});
