import { describe, expect, it } from 'vitest';
import { loadFixtureWeek } from '../api/helpers/fixture-week.js';
import { importHostileUnit } from './helpers/hostile-fleet.js';
import { PHONE_LOOKS, scrollsSideways, useWebBrowserTest } from './helpers/web-harness.js';

const web = useWebBrowserTest({
  load: false,
  prepare: async (db) => {
    await loadFixtureWeek(db);
    await importHostileUnit(db);
  },
});

const PAGES = [
  '/emu/CR400AF-2001',
  '/fleet',
  `/fleet/depot/${encodeURIComponent('上海虹桥动车所')}`,
  '/emu/CR400AF-2099',
];

describe('the unit and fleet pages in a phone browser', () => {
  for (const { locale, colorScheme } of PHONE_LOOKS) {
    it(`fit 360 px and have no axe violation (${locale}, ${colorScheme})`, async () => {
      await web.onPhone({ colorScheme, locale }, async (page) => {
        for (const path of PAGES) await web.checkPage(page, path, locale);
        // A hostile alias from the fleet ran nothing.
        expect(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);
      });
    });
  }

  it('are complete with JavaScript off: history, calendar months, the CSV form, the fleet filters', async () => {
    await web.onPhone({ javaScript: false }, async (page) => {
      const { server } = web;
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
    });
  });
});
