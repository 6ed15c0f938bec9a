import { beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { makeUser } from '../api/helpers/accounts.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import { useWebBrowserTest, WEB_TODAY } from './helpers/web-harness.js';

const web = useWebBrowserTest();
let session: string;

beforeAll(async () => {
  const { db } = web.t.current;
  const user = await makeUser(db, 'starry');
  const clock = shanghaiClock(WEB_TODAY);
  session = (
    await issueCredential(db, {
      userId: user.userId,
      issuer: 'webapp',
      scopes: [...scopesOfRole('user')],
      dailyTokenLimit: 1000,
      // Live from the app's day (the fixture week's) until after the machine's.
      activeFrom: new Date(clock()),
      expiresAt: new Date(Math.max(Date.now(), clock()) + 86_400_000),
    })
  ).secret;
});

describe('favourites in a phone browser', () => {
  it('stars a train on its page, shows it with its status on the home page, and removes it', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await context.addCookies([{ name: 'token', value: session, url: base }]);
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
