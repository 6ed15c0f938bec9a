import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type LaunchedBrowser } from '../../helpers/browser.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';
import { siteSessionSecret } from './site-session.js';

/**
 * The stored-XSS attack in a real browser: a contributor's draft whose script, run
 * in an administrator's preview, uses wpApiSettings.nonce to mint an application password for
 * the administrator. Each payload first marks the page synchronously (window.__xss), so a run
 * shows by the time the page has loaded, before its request could even be answered.
 */
const MINT = `window.__xss=(window.__xss||0)+1;fetch(wpApiSettings.root+'wp/v2/users/me/application-passwords',{method:'POST',credentials:'include',headers:{'X-WP-Nonce':wpApiSettings.nonce,'Content-Type':'application/json'},body:JSON.stringify({name:'pwned'})})`;

const DRAFT = {
  title: `预览 <img src=x onerror="${MINT}">`,
  excerpt: `<svg onload="${MINT}">`,
  content: `<!-- wp:paragraph --><p>正文</p><!-- /wp:paragraph --><script>${MINT}</script><img src=x onerror="${MINT}"><a href="javascript:${MINT}" id="lure">点我</a><details open ontoggle="${MINT}"><summary>s</summary></details>`,
};

describe("an author's stored payload in an administrator's preview (Chromium)", () => {
  const site = useSite({ listen: true });
  let admin: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let launched: LaunchedBrowser;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    contributor = await site.account('contributor', 'contributor');
    launched = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await launched?.close();
  });

  /** A tab signed in as the administrator that records dialogs and CSP violations. */
  async function adminTab(): Promise<{ tab: Page; dialogs: string[]; close(): Promise<void> }> {
    const context = await launched.browser.newContext();
    await context.addCookies([
      { name: 'token', value: await siteSessionSecret(site.db, admin.id), url: site.url },
    ]);
    // Init scripts run through the DevTools protocol, outside the page's CSP.
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (e) => (window.__violations ??= []).push(e.violatedDirective));`,
    });
    const tab = await context.newPage();
    const dialogs: string[] = [];
    tab.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return { tab, dialogs, close: () => context.close() };
  }

  const adminPasswords = async (): Promise<string[]> =>
    (
      await site.call('GET', '/wp-json/wp/v2/users/me/application-passwords', { auth: admin })
    ).body.map((p: { name: string }) => p.name);

  it(
    "a contributor's draft does not mint an application password when an administrator previews it",
    { timeout: 120_000 },
    async () => {
      const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: contributor,
        body: DRAFT,
      });
      expect(draft.status).toBe(201);
      const before = await adminPasswords();
      const { tab, dialogs, close } = await adminTab();
      try {
        await tab.goto(`${site.url}/?p=${draft.body.id}&preview=true`, { waitUntil: 'load' });
        // The administrator's page is the real one: signed in, with the REST settings working.
        expect(await tab.evaluate('typeof wpApiSettings')).toBe('object');
        expect(await tab.locator('p', { hasText: '正文' }).count()).toBe(1);
        await tab
          .locator('#lure')
          .click({ timeout: 5_000 })
          .catch(() => undefined);
        expect(await tab.evaluate('window.__xss')).toBeUndefined();
        expect(dialogs).toEqual([]);
      } finally {
        await close();
      }
      expect(await adminPasswords()).toEqual(before);
    },
  );

  it(
    'a script that reaches a page anyway (an administrator may save one) does not run: the CSP refuses it',
    { timeout: 120_000 },
    async () => {
      // Administrators keep unfiltered_html, so this one is stored as written.
      const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: admin,
        body: { title: '管理员草稿', content: `<p>正文</p><script>${MINT}</script>` },
      });
      expect(draft.body.content.raw).toContain('<script>');
      const before = await adminPasswords();
      const { tab, close } = await adminTab();
      try {
        await tab.goto(`${site.url}/?p=${draft.body.id}&preview=true`, { waitUntil: 'load' });
        expect(await tab.evaluate('typeof wpApiSettings')).toBe('object');
        expect(await tab.evaluate('window.__xss')).toBeUndefined();
        const violations = await tab.evaluate<string[]>('window.__violations ?? []');
        expect(violations).toContain('script-src-elem');
      } finally {
        await close();
      }
      expect(await adminPasswords()).toEqual(before);
    },
  );
});
