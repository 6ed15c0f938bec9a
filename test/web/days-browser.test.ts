import { describe, expect, it } from 'vitest';
import { PHONE_LOOKS, scrollsSideways, useWebBrowserTest } from './helpers/web-harness.js';
import { loadDaysFixture } from './helpers/days-fixture.js';

const web = useWebBrowserTest({ load: false, prepare: loadDaysFixture });

const HONGQIAO = `/station/${encodeURIComponent('上海虹桥')}`;
const PAGES = [HONGQIAO, '/day/20260812', '/exports/daily'];

describe('the station, day and days pages in a phone browser', () => {
  for (const { colorScheme, locale } of PHONE_LOOKS) {
    it(`fit 360 px, the tables reflowed, with no axe violation (${colorScheme}, ${locale})`, async () => {
      await web.onPhone({ colorScheme, locale }, async (page) => {
        for (const path of PAGES) await web.checkPage(page, path, locale);
        // Reflowed: a row's cells stack (each on its own line, led by its header).
        await page.goto(`${web.server.base}/day/20260812`);
        const display = await page.evaluate(
          () => window.getComputedStyle(document.querySelector('table.reflow tbody td')).display,
        );
        expect(display).toBe('grid');
      });
    });
  }

  it('are complete with JavaScript off: the date switch and the filters are plain GET forms', async () => {
    await web.onPhone({ javaScript: false, locale: 'en-US' }, async (page) => {
      const { server } = web;
      await page.goto(`${server.base}${HONGQIAO}`);
      expect(await page.locator('table.reflow tbody tr').count()).toBeGreaterThan(3);
      await page.getByLabel('Service day').fill('2026-08-14');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/date=2026-08-14/);
      expect(await page.locator('caption').textContent()).toContain('August 14, 2026');
      await page.getByRole('link', { name: 'Next day' }).click();
      await page.waitForURL(/date=20260815/);
      expect(await page.locator('caption').textContent()).toContain('August 15, 2026');

      await page.goto(`${server.base}/day/20260812`);
      const all = await page.locator('table.reflow tbody tr').count();
      await page.getByLabel('Train type').selectOption('G');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/train=G/);
      const trains = await page.locator('table.reflow tbody th[scope="row"]').allTextContents();
      expect(trains.length).toBeGreaterThan(0);
      expect(trains.length).toBeLessThan(all);
      expect(trains.every((code) => code.trim().startsWith('G'))).toBe(true);
      expect(await scrollsSideways(page)).toBe(false);
    });
  });
});
