import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { loadFixtureWeek } from '../api/helpers/fixture-week.js';
import { importHostileUnit } from './helpers/hostile-fleet.js';
import {
  axeViolations,
  expectCleanWatch,
  phoneContext,
  scrollsSideways,
  startWebServer,
  type WebServer,
} from './helpers/web-harness.js';

const t = useTestDatabase();
const chromium = useChromium();
let server: WebServer;

beforeAll(async () => {
  await loadFixtureWeek(t.current.db);
  await importHostileUnit(t.current.db);
  server = await startWebServer(t.current.db, { load: false });
});
afterAll(async () => server?.close());

const PAGES = [
  '/emu/CR400AF-2001',
  '/fleet',
  `/fleet/depot/${encodeURIComponent('上海虹桥动车所')}`,
  '/emu/CR400AF-2099',
];

describe('the unit and fleet pages in a phone browser', () => {
  for (const [locale, colorScheme] of [
    ['zh-CN', 'light'],
    ['en-US', 'dark'],
  ] as const) {
    it(`fit 360 px and have no axe violation (${locale}, ${colorScheme})`, async () => {
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
        // A hostile alias from the fleet ran nothing.
        expect(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);
        expectCleanWatch(watch);
      } finally {
        await context.close();
      }
    });
  }

  it('are complete with JavaScript off: history, calendar months, the CSV form, the fleet filters', async () => {
    const { context, watch, newPage } = await phoneContext(await chromium.browser(), server.base, {
      javaScript: false,
    });
    try {
      const page = await newPage();
      await page.goto(`${server.base}/emu/CR400AF-2001`);
      expect(await page.locator('table.history tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('ol.circulation li').count()).toBe(2);
      expect(await scrollsSideways(page)).toBe(false);
      // The calendar's months are links.
      await page.locator('.calendar-pager a').first().click();
      expect(new URL(page.url()).search).toBe('?month=2026-07');
      // The CSV form downloads the range it names.
      await page.goto(`${server.base}/emu/CR400AF-2001`);
      await page.fill('#csv-from', '2026-08-10');
      await page.fill('#csv-to', '2026-08-16');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('form[action$="history.csv"] button[type="submit"]').click(),
      ]);
      expect(download.suggestedFilename()).toBe('CR400AF-2001-2026-08-10-2026-08-16.csv');
      // The fleet's filters are a plain form.
      await page.goto(`${server.base}/fleet`);
      await page.selectOption('#fleet-model', 'CRH2A');
      await page.locator('form.filters button[type="submit"]').click();
      expect(new URL(page.url()).searchParams.get('model')).toBe('CRH2A');
      const codes = await page.locator('table.fleet-units tbody th a').allTextContents();
      expect(codes.sort()).toEqual(['CRH2A-2010', 'CRH2A-2011']);
      expect(await scrollsSideways(page)).toBe(false);
      expectCleanWatch(watch);
    } finally {
      await context.close();
    }
  });
});
