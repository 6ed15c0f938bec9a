import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  axeViolationsWithoutScripts,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';
import { signInBrowser, webSession, type WebSession } from './helpers/web-sessions.js';

const web = useWebBrowserTest();
let reader: WebSession;
let operator: WebSession;

beforeAll(async () => {
  reader = await webSession(web.t.current.db, 'writer');
  operator = await webSession(web.t.current.db, 'operator', 'moderator');
});

async function expectAccessible(page: Page, what: string, lang = 'zh-CN'): Promise<void> {
  expect(await page.getAttribute('html', 'lang'), what).toBe(lang);
  expect(await scrollsSideways(page), what).toBe(false);
  expect(await axeViolations(page), what).toEqual([]);
}

const HOSTILE = '<img src=x onerror=alert(1)>';
let threadPath = '';

describe('feedback in a phone browser', () => {
  it('files feedback on a topic from a unit page, tied to that page', async () => {
    await web.onPhone({ locale: 'en-US' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/emu/CR400AF-2001`);
      await Promise.all([
        page.waitForURL(/\/feedback\?page=/),
        page.locator('.participate a[href^="/feedback"]').click(),
      ]);
      await expectAccessible(page, '/feedback', 'en');
      expect(await page.getByLabel('Page it is about').inputValue()).toBe('/emu/CR400AF-2001');
      await page.getByLabel('Topic').selectOption({ label: 'Wrong allocation' });
      await page.getByLabel('Message').pressSequentially(`It belongs to Shanghai now ${HOSTILE}`);
      await Promise.all([
        page.waitForURL(/\/feedback\/\d+$/),
        page.getByRole('button', { name: 'Send' }).click(),
      ]);
      threadPath = new URL(page.url()).pathname;
      expect(await page.locator('h1').innerText()).toBe('Wrong allocation');
      expect(await page.locator('main a[href="/emu/CR400AF-2001"]').count()).toBe(1);
      // What the reader wrote is text, never markup.
      expect(await page.locator('.thread li').innerText()).toContain(HOSTILE);
      expect(await page.locator('.thread img').count()).toBe(0);
      await expectAccessible(page, threadPath, 'en');

      await page.goto(`${base}/feedback`);
      expect(await page.locator('main li a', { hasText: '/emu/CR400AF-2001' }).count()).toBe(1);
    });
  }, 60_000);

  it('lets an operator answer at /admin/feedback, and the reader sees the thread', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, operator);
      await page.goto(`${base}/admin/feedback`);
      await expectAccessible(page, '/admin/feedback');
      const item = page.locator('main li a', { hasText: '/emu/CR400AF-2001' });
      expect(await item.innerText()).toContain('配属错误');
      await Promise.all([page.waitForURL(/\/admin\/feedback\/\d+$/), item.click()]);
      await page.getByLabel('回复').pressSequentially('Thanks, fixed in the register.');
      await Promise.all([
        page.waitForURL(/\/admin\/feedback\/\d+$/),
        page.getByRole('button', { name: '回复' }).click(),
      ]);
      expect(await page.locator('.thread li.operator').innerText()).toContain(
        'Thanks, fixed in the register.',
      );
      await expectAccessible(page, 'the operator’s thread');
    });

    // The reader, JavaScript off: the answer under their message, and a reply of their own.
    await web.onPhone({ locale: 'en-US', javaScript: false }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}${threadPath}`);
      const messages = page.locator('.thread li');
      expect(await messages.count()).toBe(2);
      expect(await messages.nth(1).innerText()).toContain('operators');
      expect(await messages.nth(1).innerText()).toContain('Thanks, fixed in the register.');
      await page.getByLabel('Reply').pressSequentially('Thank you!');
      await Promise.all([
        page.waitForURL(`${base}${threadPath}`),
        page.getByRole('button', { name: 'Reply' }).click(),
      ]);
      expect(await messages.count()).toBe(3);
      expect(await scrollsSideways(page)).toBe(false);
      expect(await axeViolationsWithoutScripts(page, { locale: 'en-US' })).toEqual([]);
    });
  }, 90_000);

  it('keeps a thread from other readers and the operators’ list from readers', async () => {
    const other = await webSession(web.t.current.db, 'stranger');
    const inject = (url: string, session: WebSession) =>
      web.server.app.inject({ url, cookies: { token: session.secret } });
    expect((await inject(threadPath, other)).statusCode).toBe(404);
    expect((await inject('/admin/feedback', reader)).statusCode).toBe(403);
    expect(
      (await inject(threadPath.replace('/feedback', '/admin/feedback'), reader)).statusCode,
    ).toBe(403);
  });
});
