import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useWebBrowserTest } from './helpers/web-harness.js';

/** What the worker's caches hold: "cache-name /path?query", sorted. */
async function keptEntries(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const out: string[] = [];
    for (const name of await window.caches.keys()) {
      const cache = await window.caches.open(name);
      for (const request of await cache.keys()) {
        const url = new URL(request.url);
        out.push(`${name} ${url.pathname}${url.search}`);
      }
    }
    return out.sort();
  });
}

const web = useWebBrowserTest();

describe('pages already read open offline', () => {
  it('keeps the pages read and their assets, shows them offline marked as possibly stale, and nothing else', async () => {
    await web.onPhone({}, async (page, context) => {
      const { server } = web;
      const first = `${server.base}/`;
      const second = `${server.base}/?from=offline-test`;
      await page.goto(first);
      // The worker is registered after load; with it controlling the page, it sees what follows.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      const notice = page.locator('[data-offline-notice]');
      expect(await notice.isHidden()).toBe(true);
      await page.goto(second);
      expect(await notice.isHidden()).toBe(true);
      // Neither an account page nor the API is ever kept.
      await page.goto(`${server.base}/login`);
      await page.evaluate(() =>
        window.fetch('/api/v2/openapi.json').then((r: { text(): Promise<string> }) => r.text()),
      );
      // The first page is kept once the worker has activated (it loaded before the worker).
      await expect
        .poll(async () => (await keptEntries(page)).filter((k) => k.startsWith('emutrack-pages ')))
        .toEqual(['emutrack-pages /', 'emutrack-pages /?from=offline-test']);
      const kept = await keptEntries(page);
      expect(kept.filter((k) => k.startsWith('emutrack-assets ')).length).toBeGreaterThanOrEqual(2);
      expect(kept.some((k) => k.includes('/api/') || k.includes('/login'))).toBe(false);

      await context.setOffline(true);
      for (const url of [first, second]) {
        const answer = await page.goto(url);
        expect(answer?.status()).toBe(200);
        expect(answer?.headers()['x-emutrack-offline-copy']).toBe('1');
        await page.reload();
        expect(await notice.isVisible()).toBe(true);
        expect(await page.locator('h1').count()).toBe(1);
        // The stylesheet came from the worker's cache too: the page's own background.
        expect(
          await page.evaluate(() => window.getComputedStyle(document.body).backgroundColor),
        ).toBe('rgb(246, 247, 249)');
      }
      // A page never read: the browser's own offline error (nothing to show, nothing made up).
      await expect(page.goto(`${server.base}/?never=read`)).rejects.toThrow(
        /ERR_INTERNET_DISCONNECTED|ERR_FAILED/,
      );
      await context.setOffline(false);
      // Back online, the worker passes the switches' redirects through (never kept).
      await page.goto(`${server.base}/?lang=en`);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(await notice.isHidden()).toBe(true);
      expect(await keptEntries(page)).not.toContain('emutrack-pages /?lang=en');
    });
  });
});
