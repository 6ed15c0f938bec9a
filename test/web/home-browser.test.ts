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
  for (const javaScript of [true, false]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const locale of ['zh-CN', 'en-US']) {
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
            expect(await page.getAttribute('html', 'lang')).toBe(
              locale === 'en-US' ? 'en' : 'zh-CN',
            );
            expect(await scrollsSideways(page)).toBe(false);
            if (javaScript) expect(await axeViolations(page)).toEqual([]);
            expectCleanWatch(watch);
          } finally {
            await context.close();
          }
        });
      }
    }
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
