import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  axeViolations,
  PHONE_LOOKS,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';

const web = useWebBrowserTest();

/** The path a page ended on, decoded (the station's name readable). */
function pathOf(page: Page): string {
  return decodeURIComponent(new URL(page.url()).pathname);
}

/** Types `text` into the home page's box and waits for a suggestion containing `expected`. */
async function typeAndWait(page: Page, text: string, expected: string): Promise<void> {
  await page.goto(`${web.server.base}/`);
  const box = page.locator('#q');
  await box.click();
  await box.pressSequentially(text);
  await page.locator('#q-suggestions [role="option"]', { hasText: expected }).first().waitFor();
  expect(await box.getAttribute('aria-expanded')).toBe('true');
}

/** Presses ArrowDown until the chosen option's code is `code`; returns the presses. */
async function arrowTo(page: Page, code: string): Promise<number> {
  for (let presses = 1; presses <= 8; presses++) {
    await page.keyboard.press('ArrowDown');
    const active = await page.locator('#q').getAttribute('aria-activedescendant');
    expect(active).toMatch(/^q-suggestions-\d+$/);
    const option = page.locator(`#${active}`);
    expect(await option.getAttribute('aria-selected')).toBe('true');
    if ((await option.locator('.suggestion-code').textContent()) === code) return presses;
  }
  throw new Error(`no suggestion ${code}`);
}

/** The `data` of an /api/v2 answer for the same data at the same moment (no HTTP to the app). */
async function apiData(url: string): Promise<Record<string, unknown>> {
  const res = await web.server.app.inject({ url, remoteAddress: '192.0.2.10' });
  expect(res.statusCode, url).toBe(200);
  return (res.json() as { data: Record<string, unknown> }).data;
}

/**
 * Expects the page a search landed on to show what the API says for the same thing: the unit
 * that ran the train last, the unit's model, a train of the station's board.
 */
async function expectShowsWhatTheApiSays(page: Page): Promise<void> {
  const path = pathOf(page);
  const text = (await page.locator('main').textContent()) ?? '';
  const [, kind, code] = /^\/(train|emu|station)\/(.+)$/.exec(path)!;
  if (kind === 'train') {
    const history = await apiData(`/api/v2/history/train/${encodeURIComponent(code!)}?limit=1`);
    const [latest] = history.items as { emuId: number }[];
    const unit = (history.emuCodeMappings as Record<string, string>)[String(latest!.emuId)];
    expect(text).toContain(unit);
  } else if (kind === 'emu') {
    const allocation = await apiData(`/api/v2/allocation/emu/${encodeURIComponent(code!)}`);
    expect(text).toContain(String(allocation.model));
  } else {
    const board = await apiData(`/api/v2/timetable/station/${encodeURIComponent(code!)}`);
    // The board's train numbers are objects there ({ prefix: 'G', number: 102 }).
    const [first] = board.items as { trainCode: { prefix: string; number: number } }[];
    expect(text).toContain(`${first!.trainCode.prefix}${first!.trainCode.number}`);
  }
  expect(await page.locator('h1').textContent()).toContain(code);
}

describe('searching from the home page', () => {
  it('suggests while typing (combobox): arrows and Enter go to the page, Enter alone submits, Escape closes', async () => {
    await web.onPhone({}, async (page) => {
      // A train number: the first suggestion, by arrow and Enter.
      await typeAndWait(page, 'G1', 'G1');
      expect(await page.locator('#q').getAttribute('role')).toBe('combobox');
      expect(await page.locator('#q').getAttribute('aria-controls')).toBe('q-suggestions');
      expect(await page.locator('#q-suggestions').getAttribute('role')).toBe('listbox');
      expect(await page.locator('form.search [role="status"]').textContent()).toMatch(
        /^\d+ 条建议$/,
      );
      expect(await arrowTo(page, 'G1')).toBe(1);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/train/G1');
      await expectShowsWhatTheApiSays(page);

      // A paired run written as people write it: both numbers are suggested.
      await typeAndWait(page, 'G4340/37', 'G4340');
      expect(await page.locator('#q-suggestions [role="option"]').count()).toBe(2);
      await arrowTo(page, 'G4340');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/train/G4340');

      // A unit without its hyphen, and by its number alone.
      await typeAndWait(page, 'cr400af2001', 'CR400AF-2001');
      await arrowTo(page, 'CR400AF-2001');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/emu/CR400AF-2001');
      await expectShowsWhatTheApiSays(page);

      // A station by its name, Enter with nothing chosen: the form, then the one hit's page.
      await typeAndWait(page, '上海虹桥', '上海虹桥');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => decodeURIComponent(url.pathname) === '/station/上海虹桥');

      // ... and by its initials, chosen with the arrows; Escape first closes the list.
      await typeAndWait(page, 'shhq', '上海虹桥');
      await page.keyboard.press('Escape');
      expect(await page.locator('#q').getAttribute('aria-expanded')).toBe('false');
      expect(await page.locator('#q-suggestions').isHidden()).toBe(true);
      expect(await page.locator('#q').inputValue()).toBe('shhq');
      await arrowTo(page, '上海虹桥');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => decodeURIComponent(url.pathname) === '/station/上海虹桥');
      expect(pathOf(page)).toBe('/station/上海虹桥');
      await expectShowsWhatTheApiSays(page);

      // Many hits: Enter alone lands on the results page; `/` goes back to its box.
      await typeAndWait(page, 'd', 'D3125');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/search');
      expect(await page.locator('h1').textContent()).toBe('“d”的查询结果');
      await page.locator('h1').click();
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('header-q');
    });
  });

  it('works with JavaScript off: Enter submits the form, to the page or the results', async () => {
    await web.onPhone({ javaScript: false }, async (page) => {
      const cases: [string, string][] = [
        ['G1', '/train/G1'],
        ['cr400af2001', '/emu/CR400AF-2001'],
        ['上海虹桥', '/station/上海虹桥'],
        ['shhq', '/station/上海虹桥'],
        ['d', '/search'],
      ];
      for (const [text, path] of cases) {
        await page.goto(`${web.server.base}/`);
        await page.locator('#q').fill(text);
        await page.keyboard.press('Enter');
        await page.waitForURL((url) => decodeURIComponent(url.pathname) === path);
        if (path !== '/search') await expectShowsWhatTheApiSays(page);
      }
      expect(await page.locator('[data-results="train"] a').first().textContent()).toBe('D3125');
      expect(await page.locator('#header-q').getAttribute('role')).toBeNull();
    });
  });

  for (const { colorScheme, locale } of PHONE_LOOKS) {
    it(`home (suggestions open) and results fit 360 px with no axe violation (${colorScheme}, ${locale})`, async () => {
      await web.onPhone({ colorScheme, locale }, async (page) => {
        await typeAndWait(page, 'sh', '上海虹桥');
        await page.keyboard.press('ArrowDown');
        expect(await scrollsSideways(page)).toBe(false);
        expect(await axeViolations(page)).toEqual([]);
        await web.checkPage(page, '/search?q=CR', locale);
        expect(await page.locator('[data-results="emu"] li').count()).toBeGreaterThan(5);
      });
    });
  }
});
