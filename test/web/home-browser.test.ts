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

const t = useTestDatabase();
const chromium = useChromium();
let server: WebServer;

beforeAll(async () => {
  server = await startWebServer(t.current.db);
});
afterAll(async () => server?.close());

describe('the home page in a phone browser', () => {
  // Each language in each scheme once, with and without script (axe needs script to run).
  const cases = [
    { javaScript: true, colorScheme: 'light', locale: 'zh-CN' },
    { javaScript: true, colorScheme: 'dark', locale: 'en-US' },
    { javaScript: true, colorScheme: 'dark', locale: 'zh-CN' },
    { javaScript: true, colorScheme: 'light', locale: 'en-US' },
    { javaScript: false, colorScheme: 'light', locale: 'zh-CN' },
    { javaScript: false, colorScheme: 'dark', locale: 'en-US' },
  ] as const;
  for (const { javaScript, colorScheme, locale } of cases) {
    it(`fits 360 px and has no axe violation (JavaScript ${javaScript ? 'on' : 'off'}, ${colorScheme}, ${locale})`, async () => {
      const { context, watch, newPage } = await phoneContext(
        await chromium.browser(),
        server.base,
        {
          javaScript,
          colorScheme,
          locale,
        },
      );
      try {
        const page = await newPage();
        await page.goto(`${server.base}/`);
        expect(await page.getAttribute('html', 'lang')).toBe(locale === 'en-US' ? 'en' : 'zh-CN');
        expect(await scrollsSideways(page)).toBe(false);
        if (javaScript) expect(await axeViolations(page)).toEqual([]);
        expectCleanWatch(watch);
      } finally {
        await context.close();
      }
    });
  }
});

describe('the page checks themselves', () => {
  it('axe reports a page that breaks the rules, and the watch sees a CSP refusal', async () => {
    const { context, watch, newPage } = await phoneContext(await chromium.browser(), server.base);
    try {
      const page = await newPage();
      // A 404 page of this app (its CSP), then markup with an unlabelled field, an image
      // without text and an inline script the policy must refuse.
      await page.goto(`${server.base}/no/such/page`);
      await page.evaluate(() => {
        document.body.insertAdjacentHTML(
          'beforeend',
          '<input type="text"><img src="/favicon.ico">',
        );
        const script = document.createElement('script');
        script.textContent = 'window.ran = true';
        document.body.append(script);
      });
      const violations = await axeViolations(page);
      expect(violations.some((v) => v.startsWith('label:'))).toBe(true);
      expect(violations.some((v) => v.startsWith('image-alt:'))).toBe(true);
      await expect.poll(() => watch.cspViolations.length).toBeGreaterThan(0);
      expect(
        await page.evaluate(() => (window as unknown as { ran?: boolean }).ran),
      ).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
