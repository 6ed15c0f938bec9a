import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { useChromium } from '../helpers/browser.js';
import { useTestDatabase } from '../helpers/test-db.js';
import {
  axeViolations,
  expectCleanWatch,
  LAST_DAY,
  phoneContext,
  scrollsSideways,
  startWebServer,
  type WebServer,
} from './helpers/web-harness.js';

const t = useTestDatabase();
const chromium = useChromium();
let server: WebServer;

beforeAll(async () => {
  server = await startWebServer(t.current.db);
  // A circulation and a prediction to show (the fixture week's coupled loop G7301/G7302).
  await inferCirculations(t.current.db, { asOf: LAST_DAY });
});
afterAll(async () => server?.close());

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
  for (const [colorScheme, locale] of [
    ['light', 'zh-CN'],
    ['dark', 'en-US'],
  ] as const) {
    it(`fits 360 px and has no axe violation (${colorScheme}, ${locale})`, async () => {
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
        await page.goto(`${server.base}/train/G7301`);
        expect(await page.getAttribute('html', 'lang')).toBe(locale === 'en-US' ? 'en' : 'zh-CN');
        expect(await scrollsSideways(page)).toBe(false);
        expect(await axeViolations(page)).toEqual([]);
        expectCleanWatch(watch);
      } finally {
        await context.close();
      }
    });
  }

  it('is complete with JavaScript off, and its CSV form downloads the range', async () => {
    const { context, watch, newPage } = await phoneContext(await chromium.browser(), server.base, {
      javaScript: false,
    });
    try {
      const page = await newPage();
      await page.goto(`${server.base}/train/G7301`);
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
      expectCleanWatch(watch);
    } finally {
      await context.close();
    }
  });
});
