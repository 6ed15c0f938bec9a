import { describe, expect, it } from 'vitest';
import { messagesOf } from '../../../src/http/web/i18n/language.js';
import {
  modelTone,
  monthCalendar,
  monthsOf,
  TONES,
} from '../../../src/http/web/views/month-calendar.js';
import type { WebView } from '../../../src/http/web/web-request.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../../src/shared/time/service-day.js';

const zh: WebView = { language: 'zh-CN', t: messagesOf('zh-CN'), theme: 'auto', here: '/' };
const en: WebView = { language: 'en', t: messagesOf('en'), theme: 'auto', here: '/' };

describe('monthCalendar', () => {
  it('lays a month out Monday first, a row per week, each day with its entry', () => {
    // 1 August 2026 is a Saturday: five empty cells lead the first week; 31 days end on a Monday.
    const days = new Map([
      [
        serviceDayFromYmd('20260801'),
        { label: '2001', href: '/x/1', tone: 3, description: 'CR400AF-2001' },
      ],
      [serviceDayFromYmd('20260816'), { label: '2011' }],
    ]);
    const text = monthCalendar(zh, { year: 2026, month: 8, days }).text;
    expect(text).toContain('2026年8月');
    const rows = text.match(/<tr>[\s\S]*?<\/tr>/g)!;
    expect(rows).toHaveLength(1 + 6);
    const firstWeek = rows[1]!.match(/<td[\s>]/g)!;
    expect(firstWeek).toHaveLength(7);
    expect(rows[1]).toMatch(/^<tr>(\s*<td><\/td>){5}/);
    expect(text).toContain(
      '<a class="calendar-day" href="/x/1" aria-label="1 2001 (2026年8月1日: CR400AF-2001)">',
    );
    expect(text).toContain('class="has-entry tone-3"');
    expect(text).toContain('role="img" aria-label="16 2011 (2026年8月16日)"');
    expect(rows[6]).toMatch(/<span class="day-number">31<\/span>/);
    expect(text.match(/<th scope="col">/g)).toHaveLength(7);
    expect(monthCalendar(en, { year: 2026, month: 8, days }).text).toContain(
      '<abbr title="Monday">Mon</abbr>',
    );
  });

  it('escapes what a day shows and where it leads', () => {
    const days = new Map([
      [serviceDayFromYmd('20260802'), { label: '<script>x</script>', href: '/a?b="c"&d' }],
    ]);
    const text = monthCalendar(en, { year: 2026, month: 8, days }).text;
    expect(text).not.toContain('<script>');
    expect(text).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(text).toContain('href="/a?b=&quot;c&quot;&amp;d"');
  });

  it('gives one model one tone, and lists the months a set of days spans', () => {
    expect(modelTone('CR400AF')).toBe(modelTone('CR400AF'));
    const tones = new Set(
      ['CR400AF', 'CR400BF', 'CRH380A', 'CRH2C', 'CR300AF', 'CRH3C'].map(modelTone),
    );
    expect([...tones].every((t) => t >= 0 && t < TONES)).toBe(true);
    expect(tones.size).toBeGreaterThan(1);
    const days = ['20261231', '20270101', '20261201'].map(serviceDayFromYmd);
    expect(monthsOf(days, ymdOfServiceDay)).toEqual([
      { year: 2026, month: 12 },
      { year: 2027, month: 1 },
    ]);
  });
});
