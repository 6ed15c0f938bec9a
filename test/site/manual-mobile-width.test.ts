import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.js';
import { useManualSite } from './manual-fixture.js';

/**
 * The site read on a phone: Chromium at a 390 px viewport opens the front page, the search page
 * and every page of the manual and the API reference, and none of them scrolls sideways
 * (`document.documentElement.scrollWidth <= 390`); a code block or a wide table scrolls inside
 * itself instead.
 */
/**
 * Run in the page (a string: the test is compiled without the DOM's types): the document's
 * scrollWidth, and the element sticking out furthest, to name it when the page is too wide.
 */
const MEASURE = `(() => {
  const width = document.documentElement.clientWidth;
  let widest = '';
  let right = width;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect().right;
    if (r > right + 0.5) {
      right = r;
      widest = el.tagName.toLowerCase() + '.' + el.className + ' (' + Math.round(r) + ' px)';
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, widest };
})()`;

describe('no horizontal scroll at 390 px (Chromium)', () => {
  const manual = useManualSite({ listen: true });
  let chromium: LaunchedBrowser;

  beforeAll(async () => {
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it('on every page of the manual and the API reference, the front page and the search page', async () => {
    const paths = ['/', '/?s=quota', ...manual.pagePaths];
    expect(paths.length).toBeGreaterThan(20);
    const context = await chromium.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
    });
    // The font files are large and change nothing of the layout's width: not fetched here.
    await context.route('**/wp-content/fonts/**', (route) => route.abort());
    const page = await context.newPage();
    const wide: string[] = [];
    for (const path of paths) {
      const res = await page.goto(`${manual.site.url}${path}`, { waitUntil: 'load' });
      expect(res?.status(), path).toBe(200);
      const { scrollWidth, widest } = await page.evaluate<{ scrollWidth: number; widest: string }>(
        MEASURE,
      );
      if (scrollWidth > 390) wide.push(`${path}: ${scrollWidth} px, ${widest}`);
    }
    await context.close();
    expect(wide).toEqual([]);
  });

  it('would see a page wider than the screen (the measurement is not vacuous)', async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.setContent(
      '<!DOCTYPE html><html><body><div style="width:685px">wide</div></body></html>',
    );
    expect((await page.evaluate<{ scrollWidth: number }>(MEASURE)).scrollWidth).toBeGreaterThan(
      390,
    );
    await page.close();
  });
});
