import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { retractObservations } from '../../src/domain/corrections/apply-corrections.js';
import {
  axeViolations,
  axeViolationsWithoutScripts,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';
import { signInBrowser, webSession, type WebSession } from './helpers/web-sessions.js';

// The fixture week's last day is "today": a new account's reports wait for a moderator.
const web = useWebBrowserTest();
let reader: WebSession;
let moderator: WebSession;

beforeAll(async () => {
  reader = await webSession(web.t.current.db, 'reporter');
  moderator = await webSession(web.t.current.db, 'moderator', 'moderator');
});

/**
 * The page as it is now: its language, no sideways scroll, no axe violation (with JavaScript
 * off, `scripts: false`, axe reads the same document in a context that refuses its scripts).
 */
async function expectAccessible(
  page: Page,
  what: string,
  lang = 'zh-CN',
  scripts = true,
): Promise<void> {
  expect(await page.getAttribute('html', 'lang'), what).toBe(lang);
  expect(await scrollsSideways(page), what).toBe(false);
  const violations = scripts
    ? await axeViolations(page)
    : await axeViolationsWithoutScripts(page, { locale: lang === 'en' ? 'en-US' : 'zh-CN' });
  expect(violations, what).toEqual([]);
}

/** Follows the train page's report link and files a report of `emu` by typing into the form. */
async function fileReport(page: Page, base: string, emu: string): Promise<void> {
  await page.goto(`${base}/train/G1`);
  await Promise.all([
    page.waitForURL(/\/report\?train=G1$/),
    page.locator('.participate a[href^="/report"]').click(),
  ]);
  const train = page.locator('input[name="trainCode"]');
  expect(await train.inputValue()).toBe('G1');
  expect(await page.locator('input[name="date"]').inputValue()).toBe('20260816');
  await page.locator('input[name="emuCode"]').pressSequentially(emu);
  await Promise.all([
    page.waitForURL(`${base}/report`),
    page.locator('form.report-form button[type="submit"]').click(),
  ]);
}

describe('sighting reports in a phone browser', () => {
  it('files a report from a train page and shows it waiting, in its list too', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/report?train=G1`);
      await expectAccessible(page, '/report');
      await fileReport(page, base, 'CR400AF-2003');
      expect(await page.locator('h1').innerText()).toBe('谢谢');
      expect(await page.locator('main').innerText()).toContain('待确认');
      await expectAccessible(page, 'the answer');

      await page.goto(`${base}/report`);
      const mine = page.locator('main li', { hasText: 'CR400AF-2003' });
      expect(await mine.innerText()).toMatch(/20260816 G1 CR400AF-2003: 待确认/);
    });
  }, 60_000);

  it('files one with JavaScript off, and names the field of a refused one', async () => {
    // The watch by hand: the refusal's 400 is the one console error the browser logs.
    await web.onPhone(
      { locale: 'en-US', javaScript: false, watch: false },
      async (page, context, watch) => {
        const { base } = web.server;
        await signInBrowser(context, base, reader);
        await fileReport(page, base, 'CR400AF-2002');
        expect(await page.locator('h1').innerText()).toBe('Thank you');
        expect(await page.locator('main').innerText()).toContain('Waiting');

        // A unit of a model G1 never runs with: refused, the form kept with what was typed.
        await page.goto(`${base}/report?train=G1`);
        await page.locator('input[name="emuCode"]').pressSequentially('CRH2A-2010');
        const [answer] = await Promise.all([
          page.waitForNavigation(),
          page.locator('form.report-form button[type="submit"]').click(),
        ]);
        expect(answer?.status()).toBe(400);
        expect(await page.locator('[role="alert"]').innerText()).toContain('CRH2A');
        expect(await page.locator('input[name="emuCode"]').inputValue()).toBe('CRH2A-2010');
        await expectAccessible(page, 'the refusal', 'en', false);
        expect(watch.cspViolations).toEqual([]);
        expect(watch.foreignRequests).toEqual([]);
        expect(watch.consoleErrors).toEqual([expect.stringContaining('400')]);
      },
    );
  }, 60_000);
});

describe('axe with JavaScript off', () => {
  it('reads the document as it stands, so a violation in it is found', async () => {
    await web.onPhone({ locale: 'en-US', javaScript: false }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/report?train=G1`);
      expect(await axeViolationsWithoutScripts(page, { locale: 'en-US' })).toEqual([]);
      // An image without a text alternative, put into the document the test sees.
      await page.evaluate(() => {
        const img = document.createElement('img');
        img.src = '/favicon.ico';
        document.querySelector('main')!.append(img);
      });
      const found = await axeViolationsWithoutScripts(page, { locale: 'en-US' });
      expect(found).toEqual([expect.stringMatching(/^image-alt: /)]);
    });
  }, 60_000);
});

describe('moderation in a phone browser', () => {
  it('accepts one report, refuses another, and undoes the refusal in the audit trail', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, moderator);
      await page.goto(`${base}/admin/reports`);
      await expectAccessible(page, '/admin/reports');
      const row = (emu: string) => page.locator('tr', { hasText: emu });
      expect(await row('CR400AF-2003').count()).toBe(1);
      expect(await row('CR400AF-2002').count()).toBe(1);

      const decide = async (emu: string, what: 'accept' | 'refuse', why: string) => {
        const form = row(emu).locator(`form[action$="/${what}"]`);
        await form.locator('input[name="reason"]').pressSequentially(why);
        await Promise.all([
          page.waitForURL(`${base}/admin/reports`),
          form.locator('button').click(),
        ]);
      };
      await decide('CR400AF-2003', 'accept', 'seen on the platform camera');
      await decide('CR400AF-2002', 'refuse', 'that unit was in the depot');
      expect(await page.locator('main').innerText()).not.toContain('CR400AF-2003');
      expect(await page.locator('main').innerText()).not.toContain('CR400AF-2002');

      await page.goto(`${base}/admin/reports?status=refused`);
      expect(await row('CR400AF-2002').innerText()).toContain('that unit was in the depot');
      await page.goto(`${base}/admin/reports?status=accepted`);
      expect(await row('CR400AF-2003').innerText()).toContain('seen on the platform camera');

      // The audit trail: both decisions, newest first, the refusal undone with a reason.
      await Promise.all([
        page.waitForURL(`${base}/admin/corrections`),
        page.locator('a[href="/admin/corrections"]').first().click(),
      ]);
      await expectAccessible(page, '/admin/corrections');
      const entries = page.locator('[data-correction]');
      expect(await entries.count()).toBe(2);
      const refusal = page.locator('[data-correction-kind="report-refuse"]');
      expect(await refusal.innerText()).toContain('that unit was in the depot');
      expect(await refusal.innerText()).toContain(moderator.username);
      await refusal.locator('input[name="reason"]').pressSequentially('the depot log was wrong');
      await Promise.all([
        page.waitForURL(`${base}/admin/corrections`),
        refusal.locator('button').click(),
      ]);
      expect(await entries.count()).toBe(3);
      const undo = page.locator('[data-correction-kind="undo"]');
      expect(await undo.innerText()).toContain('the depot log was wrong');
      // Undone once: its form is gone, the acceptance's is there.
      expect(await refusal.locator('form').count()).toBe(0);
      expect(await page.locator('[data-correction-kind="report-accept"] form').count()).toBe(1);
      await expectAccessible(page, '/admin/corrections after the undo');

      await page.goto(`${base}/admin/reports`);
      expect(await row('CR400AF-2002').count()).toBe(1);
    });
  }, 90_000);

  it('shows the reader their reports’ decisions', async () => {
    await web.onPhone({ locale: 'zh-CN' }, async (page, context) => {
      await signInBrowser(context, web.server.base, reader);
      await page.goto(`${web.server.base}/report`);
      const mine = (emu: string) => page.locator('main li', { hasText: emu }).innerText();
      expect(await mine('CR400AF-2003')).toContain('已采纳');
      expect(await mine('CR400AF-2002')).toContain('待确认');
    });
  }, 60_000);

  it('lets a moderator undo report decisions only, an administrator any correction', async () => {
    const { db } = web.t.current;
    await retractObservations(db, { source: 'travel-code', ref: 'fx-0001' }, 'a misread ticket', {
      via: 'cli',
      name: 'operator',
    });
    const admin = await webSession(db, 'admin', 'admin');
    const trail = (session: WebSession) =>
      web.server.app.inject({ url: '/admin/corrections', cookies: { token: session.secret } });
    const retraction = (body: string) =>
      /<li id="correction-(\d+)"[^>]*data-correction-kind="retract">([\s\S]*?)<\/li>/.exec(body);
    const asModerator = await trail(moderator);
    const entry = retraction(asModerator.body)!;
    expect(entry[2]).toContain('a misread ticket');
    expect(entry[2]).not.toContain('<form');
    expect(retraction((await trail(admin)).body)![2]).toContain('<form');

    const csrf = asModerator.cookies.find((c) => c.name === 'csrf')!.value;
    const token = /name="_csrf" value="([^"]+)"/.exec(asModerator.body)![1]!;
    const undo = await web.server.app.inject({
      method: 'POST',
      url: `/admin/corrections/${entry[1]}/undo`,
      cookies: { token: moderator.secret, csrf },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, reason: 'not mine to undo' }).toString(),
    });
    expect(undo.statusCode).toBe(403);
    expect(undo.body).toContain('correction: only an administrator');
    const malformed = await web.server.app.inject({
      url: '/admin/corrections?before=abc',
      cookies: { token: moderator.secret },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('before:');
  });

  it('keeps the queue and the audit trail from readers who are not moderators', async () => {
    for (const url of ['/admin/reports', '/admin/corrections']) {
      const res = await web.server.app.inject({ url, cookies: { token: reader.secret } });
      expect(res.statusCode, url).toBe(403);
      const anonymous = await web.server.app.inject({ url });
      expect(anonymous.statusCode, url).toBe(303);
    }
    const undo = await web.server.app.inject({
      method: 'POST',
      url: '/admin/corrections/1/undo',
      cookies: { token: reader.secret },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'reason=mine',
    });
    expect(undo.statusCode).toBe(403);
  });
});
