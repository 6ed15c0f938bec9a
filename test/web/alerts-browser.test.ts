import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertLinkIn, MailCatcher } from '../helpers/mail-catcher.js';
import {
  axeViolations,
  axeViolationsWithoutScripts,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';
import { signInBrowser, webSession, type WebSession } from './helpers/web-sessions.js';

const PUBLIC_URL = 'https://emutrack.example';
const mail = new MailCatcher();
const web = useWebBrowserTest({
  prepare: () => mail.start(),
  env: () => ({ SMTP_URL: `smtp://127.0.0.1:${mail.port}`, PUBLIC_URL }),
});
afterAll(() => mail.close());
let reader: WebSession;

beforeAll(async () => {
  reader = await webSession(web.t.current.db, 'watcher');
});

async function expectAccessible(page: Page, what: string, lang: string, scripts = true) {
  expect(await page.getAttribute('html', 'lang'), what).toBe(lang);
  expect(await scrollsSideways(page), what).toBe(false);
  const violations = scripts
    ? await axeViolations(page)
    : await axeViolationsWithoutScripts(page, { locale: lang === 'en' ? 'en-US' : 'zh-CN' });
  expect(violations, what).toEqual([]);
}

const subscriptionStatus = async () =>
  (
    await web.t.current.db.query<{ status: string }>(
      `SELECT status FROM alert_subscriptions WHERE address = 'watcher@example.com'`,
    )
  ).rows.map((r) => r.status);

describe('e-mail alerts in a phone browser', () => {
  it('subscribes from a train page, confirms from the mail’s link and unsubscribes from its other', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/train/G1`);
      await Promise.all([
        page.waitForURL(/\/alerts\/new\?kind=train&code=G1$/),
        page.locator('a[href^="/alerts/new"]').click(),
      ]);
      await expectAccessible(page, '/alerts/new', 'zh-CN');
      await page.getByLabel('电子邮箱').pressSequentially('watcher@example.com');
      await Promise.all([
        page.waitForURL(/\/alerts\/new/),
        page.getByRole('button', { name: '用邮件提醒' }).click(),
      ]);
      expect(await page.locator('[role="status"]').innerText()).toContain('watcher@example.com');
      await expectAccessible(page, 'subscribed', 'zh-CN');
      expect(await subscriptionStatus()).toEqual(['unverified']);

      const [verification] = mail.to('watcher@example.com');
      expect(verification).toBeDefined();
      const verify = alertLinkIn(verification!, PUBLIC_URL, 'verify')!;
      const unsubscribe = alertLinkIn(verification!, PUBLIC_URL, 'unsubscribe')!;
      expect(verify).toBeTruthy();
      expect(unsubscribe).toBeTruthy();

      // The mail's links are opened signed out, in another browser as often as not.
      await context.clearCookies();
      await page.goto(`${base}${verify}`);
      await expectAccessible(page, 'the verify link', 'zh-CN');
      expect(await subscriptionStatus()).toEqual(['unverified']);
      await Promise.all([
        page.waitForURL(`${base}${verify}`),
        page.getByRole('button', { name: /确认/ }).click(),
      ]);
      expect(await page.locator('h1').innerText()).toBe('已确认');
      expect(await page.locator('[role="status"]').innerText()).toContain('G1');
      await expectAccessible(page, 'confirmed', 'zh-CN');
      expect(await subscriptionStatus()).toEqual(['active']);

      await page.goto(`${base}${unsubscribe}`);
      await expectAccessible(page, 'the unsubscribe link', 'zh-CN');
      expect(await page.locator('main').innerText()).toContain('watcher@example.com');
      await Promise.all([
        page.waitForURL(`${base}${unsubscribe}`),
        page.getByRole('button', { name: /退订/ }).click(),
      ]);
      expect(await page.locator('h1').innerText()).toContain('已退订');
      await expectAccessible(page, 'unsubscribed', 'zh-CN');
      expect(await subscriptionStatus()).toEqual([]);
    });
  }, 90_000);

  it('works with JavaScript off, and a used link says so', async () => {
    await web.onPhone(
      { locale: 'en-US', javaScript: false, watch: false },
      async (page, context, watch) => {
        const { base } = web.server;
        await signInBrowser(context, base, reader);
        await page.goto(`${base}/alerts/new?kind=emu&code=CR400AF-2001`);
        await page.getByLabel('E-mail address').pressSequentially('watcher@example.com');
        await page.getByLabel('One digest mail a day').check();
        await Promise.all([
          page.waitForURL(/\/alerts\/new/),
          page.getByRole('button', { name: 'Alert me by e-mail' }).click(),
        ]);
        expect(await page.locator('[role="status"]').innerText()).toContain('watcher@example.com');
        await expectAccessible(page, 'subscribed', 'en', false);
        const latest = mail.to('watcher@example.com').at(-1)!;
        const verify = alertLinkIn(latest, PUBLIC_URL, 'verify')!;
        await page.goto(`${base}${verify}`);
        await Promise.all([page.waitForURL(`${base}${verify}`), page.locator('button').click()]);
        expect(await subscriptionStatus()).toEqual(['active']);
        // Used: the link is no more.
        const again = await page.goto(`${base}${verify}`);
        expect(again?.status()).toBe(404);
        expect(await page.locator('h1').innerText()).toContain('not valid');
        expect(await scrollsSideways(page)).toBe(false);
        expect(watch.cspViolations).toEqual([]);
        expect(watch.foreignRequests).toEqual([]);
        expect(watch.consoleErrors).toEqual([expect.stringContaining('404')]);
      },
    );
  }, 60_000);
});
