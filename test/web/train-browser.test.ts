import { describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import {
  LAST_DAY,
  PHONE_LOOKS,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';

const web = useWebBrowserTest({
  // A circulation and a prediction to show (the fixture week's coupled loop G7301/G7302).
  ready: (db) => inferCirculations(db, { asOf: LAST_DAY }),
});

const SECTIONS = [
  'units-h',
  'timetable-h',
  'circulation-h',
  'prediction-h',
  'history-h',
  'calendar-h',
  'csv-h',
];

describe('the train page in a phone browser', () => {
  for (const { colorScheme, locale } of PHONE_LOOKS) {
    it(`fits 360 px and has no axe violation (${colorScheme}, ${locale})`, async () => {
      await web.onPhone({ colorScheme, locale }, async (page) => {
        await web.checkPage(page, '/train/G7301', locale);
      });
    });
  }

  it('is complete with JavaScript off, and its CSV form downloads the range', async () => {
    await web.onPhone({ javaScript: false }, async (page) => {
      await page.goto(`${web.server.base}/train/G7301`);
      for (const id of SECTIONS) expect(await page.locator(`#${id}`).count(), id).toBe(1);
      expect(await page.locator('table.timetable tbody tr').count()).toBeGreaterThan(1);
      expect(await page.locator('table.circulation tbody tr').count()).toBeGreaterThan(1);
      expect(await page.locator('.calendar a.calendar-day').count()).toBe(7);
      expect(await scrollsSideways(page)).toBe(false);
      const download = page.waitForEvent('download');
      await page.fill('#csv-from', '2026-08-15');
      await page.click('#csv-h ~ form button[type="submit"]');
      const file = await download;
      expect(file.suggestedFilename()).toBe('G7301-20260815-20260816.csv');
    });
  });
});
