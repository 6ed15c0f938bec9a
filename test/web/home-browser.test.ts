import { describe, expect, it } from 'vitest';
import { axeViolations, useWebBrowserTest } from './helpers/web-harness.js';

const web = useWebBrowserTest();

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
      await web.onPhone({ javaScript, colorScheme, locale }, async (page) => {
        await web.checkPage(page, '/', locale, { axe: javaScript });
      });
    });
  }
});

describe('the page checks themselves', () => {
  it('axe reports a page that breaks the rules, and the watch sees a CSP refusal', async () => {
    await web.onPhone({ watch: false }, async (page, _context, watch) => {
      // A 404 page of this app (its CSP), then markup with an unlabelled field, an image
      // without text and an inline script the policy must refuse.
      await page.goto(`${web.server.base}/no/such/page`);
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
    });
  });
});
