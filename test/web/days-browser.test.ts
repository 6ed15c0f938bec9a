import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import {
  axeViolations,
  expectCleanWatch,
  phoneContext,
  scrollsSideways,
  startWebServer,
  type WebServer,
} from './helpers/web-harness.js';
import { loadDaysFixture } from './helpers/days-fixture.js';

const t = useTestDatabase();
const chromium = useChromium();
let server: WebServer;

beforeAll(async () => {
  await loadDaysFixture(t.current.db);
  server = await startWebServer(t.current.db, { load: false });
});
afterAll(async () => server?.close());

const HONGQIAO = `/station/${encodeURIComponent('上海虹桥')}`;
const PAGES = [HONGQIAO, '/day/20260812', '/exports/daily'];

describe('the station, day and days pages in a phone browser', () => {
  for (const [colorScheme, locale] of [
    ['light', 'zh-CN'],
    ['dark', 'en-US'],
  ] as const) {
    it(`fit 360 px, the tables reflowed, with no axe violation (${colorScheme}, ${locale})`, async () => {
      const { context, watch, newPage } = await phoneContext(
        await chromium.browser(),
        server.base,
        {
          colorScheme,
          locale,
        },
      );
      try {
        const page = await newPage();
        for (const path of PAGES) {
          await page.goto(`${server.base}${path}`);
          expect(await page.getAttribute('html', 'lang'), path).toBe(
            locale === 'en-US' ? 'en' : 'zh-CN',
          );
          expect(await scrollsSideways(page), path).toBe(false);
          expect(await axeViolations(page), path).toEqual([]);
        }
        // Reflowed: a row's cells stack (each on its own line, led by its header).
        await page.goto(`${server.base}/day/20260812`);
        const display = await page.evaluate(
          () => window.getComputedStyle(document.querySelector('table.reflow tbody td')).display,
        );
        expect(display).toBe('grid');
        expectCleanWatch(watch);
      } finally {
        await context.close();
      }
    });
  }

  it('are complete with JavaScript off: the date switch and the filters are plain GET forms', async () => {
    const { context, watch, newPage } = await phoneContext(await chromium.browser(), server.base, {
      javaScript: false,
      locale: 'en-US',
    });
    try {
      const page = await newPage();
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
      expectCleanWatch(watch);
    } finally {
      await context.close();
    }
  });
});
