import { describe, expect, it } from 'vitest';
import { messagesOf } from '../../src/http/web/i18n/language.js';
import { monthCalendar } from '../../src/http/web/views/month-calendar.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useWebBrowserTest } from './helpers/web-harness.js';

const web = useWebBrowserTest({ load: false });

describe('the month calendar with the page script', () => {
  it('moves between the linked days with the arrow keys, Home and End', async () => {
    const days = new Map(
      ['20260803', '20260804', '20260806', '20260810', '20260816'].map((ymd) => [
        serviceDayFromYmd(ymd),
        { label: ymd.slice(6), href: `/day/${ymd}` },
      ]),
    );
    const markup = monthCalendar(
      { language: 'en', t: messagesOf('en'), theme: 'auto', here: '/' },
      { year: 2026, month: 8, days },
    ).text;
    await web.onPhone({ watch: false }, async (page) => {
      // Any page of the app loads its script; the calendar is added to it afterwards.
      await page.goto(`${web.server.base}/`);
      await page.evaluate((html: string) => {
        document.querySelector('main').insertAdjacentHTML('beforeend', html);
      }, markup);
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('href'));
      await page.focus('a[href="/day/20260803"]');
      await page.keyboard.press('ArrowRight');
      expect(await focused()).toBe('/day/20260804');
      // A day without a link is skipped.
      await page.keyboard.press('ArrowRight');
      expect(await focused()).toBe('/day/20260806');
      // Thursday 6th has no linked Thursday below it: the focus stays.
      await page.keyboard.press('ArrowDown');
      expect(await focused()).toBe('/day/20260806');
      await page.focus('a[href="/day/20260803"]');
      await page.keyboard.press('ArrowDown');
      expect(await focused()).toBe('/day/20260810');
      await page.keyboard.press('End');
      expect(await focused()).toBe('/day/20260816');
      await page.keyboard.press('Home');
      expect(await focused()).toBe('/day/20260810');
      await page.keyboard.press('ArrowUp');
      expect(await focused()).toBe('/day/20260803');
      // Past the month's first linked day, ArrowLeft has nowhere to go.
      await page.keyboard.press('ArrowLeft');
      expect(await focused()).toBe('/day/20260803');
    });
  });
});
