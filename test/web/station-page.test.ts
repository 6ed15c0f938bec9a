import { describe, expect, it } from 'vitest';
import { clockTimeOfOffset } from '../../src/domain/timetables/timetable-time.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useWebApp, WEB_TODAY } from './helpers/web-harness.js';
import {
  BUSY,
  BUSY_TRAINS,
  HOSTILE,
  loadDaysFixture,
  tableRows,
  unsafeIn,
} from './helpers/days-fixture.js';

const web = useWebApp(loadDaysFixture);

const zh = { accept: 'text/html' };
const en = { accept: 'text/html', 'accept-language': 'en' };
const station = (name: string, query = '') => `/station/${encodeURIComponent(name)}${query}`;
const HONGQIAO = '上海虹桥';
const TODAY = serviceDayFromYmd(WEB_TODAY);

async function page(url: string, headers: Record<string, string> = en) {
  return web.app.inject({ url, headers });
}

interface ApiItem {
  trainCode?: { prefix: string; number: number };
  arriveAt?: number;
  departAt?: number;
  platformNo?: number;
}

/** "HH:MM" of a Unix time of `day`'s runs, as the board writes it. */
function boardTime(day: number, at: number | undefined, none: string): string {
  if (at === undefined) return none;
  const offset = at - midnightOfServiceDay(day);
  const time = clockTimeOfOffset(offset % 86_400);
  return offset >= 86_400 ? `${time} (next day)` : time;
}

describe('the station page /station/{name}', () => {
  it("lists today's trains in the API's order with the API's times and platforms", async () => {
    const api = await web.app.inject({
      url: `/api/v2/timetable/station/${encodeURIComponent(HONGQIAO)}?limit=200`,
    });
    expect(api.statusCode).toBe(200);
    const items = (api.json() as { data: { items: ApiItem[] } }).data.items;
    expect(items.length).toBeGreaterThan(3);
    const res = await page(station(HONGQIAO));
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    const rows = tableRows(res.body);
    expect(rows.map((r) => [r[0], r[1], r[2], r[3]])).toEqual(
      items.map((item) => [
        `${item.trainCode!.prefix}${item.trainCode!.number}`,
        boardTime(TODAY, item.arriveAt, 'starts here'),
        boardTime(TODAY, item.departAt, 'ends here'),
        item.platformNo === undefined ? '' : String(item.platformNo),
      ]),
    );
    // G9999 leaves 上海虹桥 at 09:05 and reaches its last stop at 25:10: a time past midnight
    // is the next day's.
    expect(rows.find((r) => r[0] === 'G9999')?.slice(1, 3)).toEqual(['09:00', '09:05']);
    const late = tableRows((await page(station(HOSTILE[1]))).body).find((r) => r[0] === 'G9999');
    expect(late?.slice(1, 3)).toEqual(['23:30', '00:20 (next day)']);
  });

  it("shows the units the day's records name, as GetDailyRecords does", async () => {
    const api = await web.app.inject({ url: `/api/v2/records/daily?date=${WEB_TODAY}&limit=200` });
    const data = (
      api.json() as {
        data: {
          items: { emuId: number; trainCode: { prefix: string; number: number } }[];
          emuCodeMappings: Record<string, string>;
        };
      }
    ).data;
    const units = new Map<string, string[]>();
    for (const item of data.items) {
      const code = `${item.trainCode.prefix}${item.trainCode.number}`;
      units.set(code, [...(units.get(code) ?? []), data.emuCodeMappings[item.emuId]!].sort());
    }
    const rows = tableRows((await page(station(HONGQIAO))).body);
    let seen = 0;
    for (const row of rows) {
      const expected = units.get(row[0]!);
      expect(row[6]).toBe(expected ? expected.join(' + ') : 'not seen');
      if (expected) seen++;
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('switches the day by a labelled date input (YYYY-MM-DD) or the previous/next links', async () => {
    const res = await page(station(HONGQIAO));
    expect(res.body).toMatch(/<label for="station-date"[^>]*>[^<]*Service day/);
    expect(res.body).toMatch(
      /<input\s+type="date"\s+id="station-date"\s+name="date"\s+value="2026-08-16"/,
    );
    const prev = `/station/${encodeURIComponent(HONGQIAO)}?date=20260815`;
    expect(res.body).toContain(`href="${prev}"`);
    expect(res.body).toContain(`href="/station/${encodeURIComponent(HONGQIAO)}?date=20260817"`);
    const byInput = await page(station(HONGQIAO, '?date=2026-08-15'));
    const byLink = await page(prev);
    expect(byInput.statusCode).toBe(200);
    expect(tableRows(byInput.body)).toEqual(tableRows(byLink.body));
    expect(byLink.body).toContain('Saturday, August 15, 2026');
    // G1's timetable of 08-15 is new that day; a day with no train at a known station says so.
    const empty = await page(station(HONGQIAO, '?date=20200101'));
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('No train stops here on this day.');
  });

  it('pages a board larger than a page', async () => {
    const first = await page(station(BUSY));
    const second = await page(station(BUSY, '?page=2'));
    const a = tableRows(first.body);
    const b = tableRows(second.body);
    expect(a).toHaveLength(50);
    expect(b).toHaveLength(BUSY_TRAINS - 50);
    expect(new Set([...a, ...b].map((r) => r[0])).size).toBe(BUSY_TRAINS);
    expect(a[0]![2]).toBe('06:00');
    expect(b.at(-1)![2]).toBe('15:50');
    expect(first.body).toContain('Page 1 of 2');
    expect(first.body).toContain(`href="${station(BUSY, '?date=20260816&amp;page=2')}"`);
  });

  it('answers a malformed date or page with a 400 page naming the field', async () => {
    for (const [query, field] of [
      ['?date=20261340', 'date'],
      ['?date=abc', 'date'],
      ['?date=2026-02-30', 'date'],
      ['?page=-1', 'page'],
      ['?page=1e9', 'page'],
      ['?page=x', 'page'],
      ['?page=1000000000', 'page'],
      ['?page=3', 'page'],
      ['?page=1&page=2', 'page'],
    ] as const) {
      const res = await page(station(BUSY, query));
      expect(res.statusCode, query).toBe(400);
      expect(res.body, query).toMatch(new RegExp(`<p role="alert">${field}: `));
    }
  });

  it('answers an unknown station with a 404 page suggesting stations (pinyin initials too)', async () => {
    const res = await page(station('shhq'));
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain(`href="${station(HONGQIAO)}"`);
    const none = await page(station('无此站'));
    expect(none.statusCode).toBe(404);
  });

  it('sends an ETag of the versions it shows, per language and scheme, and a 304 for it', async () => {
    const a = await page(station(HONGQIAO));
    const etag = a.headers.etag as string;
    expect(etag).toMatch(/^"/);
    const again = await web.app.inject({
      url: station(HONGQIAO),
      headers: { ...en, 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    const other = await page(station(HONGQIAO), zh);
    expect(other.headers.etag).not.toBe(etag);
    expect(other.body).toMatch(/<html\s+lang="zh-CN"/);
    const dark = await web.app.inject({
      url: station(HONGQIAO),
      headers: { ...en, cookie: 'theme=dark' },
    });
    expect(dark.headers.etag).not.toBe(etag);
    const day = await page(station(HONGQIAO, '?date=20260815'));
    expect(day.headers.etag).not.toBe(etag);
  });

  it('prints hostile station names as text, on the board and as the station itself', async () => {
    const board = await page(station(HONGQIAO));
    expect(board.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(unsafeIn(board.body)).toEqual([]);
    for (const name of HOSTILE) {
      // Each one's board: G7301 runs from the one to the other.
      const own = await page(station(name));
      expect(own.statusCode).toBe(200);
      expect(own.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(own.body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(own.body).not.toContain(name);
      expect(unsafeIn(own.body)).toEqual([]);
    }
  });
});
