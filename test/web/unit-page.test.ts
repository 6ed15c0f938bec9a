import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { loadFixtureWeek } from '../api/helpers/fixture-week.js';
import { useWebApp, WEB_TODAY } from './helpers/web-harness.js';
import {
  HOSTILE_ALIAS,
  HOSTILE_DEPOT,
  HOSTILE_UNIT,
  importHostileUnit,
} from './helpers/hostile-fleet.js';
import {
  midnightOfServiceDay,
  serviceDayFromYmd,
  ymdOfServiceDay,
} from '../../src/shared/time/service-day.js';

const web = useWebApp(async (db) => {
  await loadFixtureWeek(db);
  await importHostileUnit(db);
});

const browser = { accept: 'text/html' };
const page = (url: string, headers: Record<string, string> = {}) =>
  web.app.inject({ url, headers: { ...browser, ...headers } });

interface ApiHistoryItem {
  id: number;
  serviceDay: number;
  timetableId?: number;
  trainCode?: { prefix: string; number: number };
  sources?: string[];
}
interface ApiHistory {
  items: ApiHistoryItem[];
  nextCursor: string;
  timetableMappings?: Record<
    string,
    { startStation?: string; endStation?: string; startOffset?: number; endOffset?: number }
  >;
}

async function api<T>(url: string): Promise<T> {
  const res = await web.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return (res.json() as { data: T }).data;
}

const codeOf = (item: ApiHistoryItem) => `${item.trainCode!.prefix}${item.trainCode!.number}`;

/** The history rows of a unit page: service day and train of each, in order. */
function historyRows(body: string): { serviceDay: number; train: string }[] {
  const table = body.match(/<table class="reflow history">[\s\S]*?<\/table>/)?.[0] ?? '';
  return [...table.matchAll(/<tr data-service-day="(\d+)">[\s\S]*?href="\/train\/([^"]+)"/g)].map(
    (m) => ({ serviceDay: Number(m[1]), train: decodeURIComponent(m[2]!) }),
  );
}

const SHANGHAI_DAY = (ymd: string) => serviceDayFromYmd(ymd);

describe('the unit page /emu/{code}', () => {
  it('shows the allocation and coach layout GetEmuAllocation answers', async () => {
    const res = await page('/emu/CR400AF-2001');
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    const allocation = await api<{
      model: string;
      bureau: string;
      trainDepot: string;
      depot: string;
      alias: string[];
      coachLayouts: { coachNo: number; coachTypeName: string; capacity: number }[];
    }>('/api/v2/allocation/emu/CR400AF-2001');
    const facts = res.body.match(/<dl class="facts unit-facts">[\s\S]*?<\/dl>/)![0];
    for (const value of [
      allocation.model,
      allocation.bureau,
      allocation.trainDepot,
      allocation.depot,
    ]) {
      expect(facts).toContain(`${value}</`);
    }
    for (const alias of allocation.alias)
      expect(facts).toContain(`<span class="chip">${alias}</span>`);
    expect(allocation.alias.length).toBeGreaterThan(0);
    const coaches = res.body.match(/<table class="reflow coaches">[\s\S]*?<\/table>/)![0];
    const rows = [
      ...coaches.matchAll(
        /<th scope="row" data-label="[^"]+">(\d+)<\/th>\s*<td[^>]*>([^<]+)<\/td>\s*<td[^>]*>(\d+)</g,
      ),
    ];
    expect(rows.map((m) => [Number(m[1]), m[2], Number(m[3])])).toEqual(
      allocation.coachLayouts.map((c) => [c.coachNo, c.coachTypeName, c.capacity]),
    );
    expect(rows.length).toBe(8);
  });

  it('lists the same history days and trains as GetEmuHistory, newest first, and pages on its cursor', async () => {
    for (const code of ['CR400AF-2001', 'CR400BF-5033', 'CRH380A-2641']) {
      const res = await page(`/emu/${code}`);
      const history = await api<ApiHistory>(`/api/v2/history/emu/${code}?limit=30`);
      expect(history.items.length, code).toBeGreaterThan(0);
      expect(historyRows(res.body), code).toEqual(
        history.items.map((i) => ({ serviceDay: i.serviceDay, train: codeOf(i) })),
      );
      // Each record's provenance as the API says it (the fixture's records name few sources).
      const table = res.body.match(/<table class="reflow history">[\s\S]*?<\/table>/)?.[0] ?? '';
      const seen = [...table.matchAll(/<tr data-service-day[\s\S]*?<\/tr>/g)].map(
        (m) => /class="muted seen-by">\S+ ([^<]*)<\/small>/.exec(m[0])?.[1] ?? '',
      );
      expect(seen, code).toEqual(
        history.items.map((i) => (i.sources ?? []).slice(0, 3).join(', ')),
      );
    }
    // From a cursor the API gives (its third record), the page lists what the API lists next.
    const first = await api<ApiHistory>('/api/v2/history/emu/CR400AF-2001?limit=3');
    expect(first.nextCursor).not.toBe('');
    const next = await api<ApiHistory>(
      `/api/v2/history/emu/CR400AF-2001?limit=30&cursor=${first.nextCursor}`,
    );
    const res = await page(`/emu/CR400AF-2001?cursor=${first.nextCursor}`);
    expect(res.statusCode).toBe(200);
    expect(historyRows(res.body)).toEqual(
      next.items.map((i) => ({ serviceDay: i.serviceDay, train: codeOf(i) })),
    );
    expect(res.body).toContain('<a class="button secondary" href="/emu/CR400AF-2001">');
  });

  it("lists today's trains in running order and marks the month's days in the calendar", async () => {
    const today = SHANGHAI_DAY(WEB_TODAY);
    const start = midnightOfServiceDay(today);
    const history = await api<ApiHistory>(
      `/api/v2/history/emu/CR400AF-2001?start=${start}&end=${start}&limit=100`,
    );
    const expected = [...history.items]
      .sort(
        (a, b) =>
          history.timetableMappings![a.timetableId!]!.startOffset! -
          history.timetableMappings![b.timetableId!]!.startOffset!,
      )
      .map(codeOf);
    expect(expected).toEqual(['G1', 'G2']);
    const res = await page('/emu/CR400AF-2001');
    const list = res.body.match(/<ol class="plain-list circulation"[\s\S]*?<\/ol>/)![0];
    expect([...list.matchAll(/href="\/train\/([^"]+)"/g)].map((m) => m[1])).toEqual(expected);
    expect(list).toContain('北京南 → 上海虹桥');
    // The month of today: every day with a record links to its day, named with its trains.
    const week = await api<ApiHistory>('/api/v2/history/emu/CR400AF-2001?limit=100');
    const days = new Set(week.items.map((i) => i.serviceDay));
    const calendar = res.body.match(/<div class="calendar"[\s\S]*?<\/div>/)![0];
    const linked = [...calendar.matchAll(/href="\/day\/(\d{8})"/g)].map((m) =>
      serviceDayFromYmd(m[1]!),
    );
    expect(new Set(linked)).toEqual(days);
    expect(calendar).toContain('aria-label="16 G1 +1 (2026年8月16日: 担当 G1, G2)"');
    // An earlier month has none of them; a later one than today's is refused.
    const july = await page('/emu/CR400AF-2001?month=2026-07');
    expect(july.statusCode).toBe(200);
    expect(july.body).toContain('2026年7月');
    const julyCalendar = july.body.match(/<div class="calendar"[\s\S]*?<\/div>/)![0];
    expect(julyCalendar).not.toContain('href="/day/');
    expect(julyCalendar).toContain('href="/emu/CR400AF-2001?month=2026-08"');
  });

  it('answers the other written forms of a unit with a 301 to its canonical address, keeping the query', async () => {
    for (const [written, canonical] of [
      ['CR400AF2001', 'CR400AF-2001'],
      ['cr400af-2001', 'CR400AF-2001'],
      ['CR400AF-2001-02-03F', 'CR400AF-2001'],
      ['5157号', 'CR400BF-A-5157'],
      ['CR400BFA5157', 'CR400BF-A-5157'],
    ]) {
      const res = await page(`/emu/${encodeURIComponent(written!)}?month=2026-08`);
      expect(res.statusCode, written).toBe(301);
      expect(res.headers.location, written).toBe(`/emu/${canonical}?month=2026-08`);
    }
    const csv = await page('/emu/cr400af2001/history.csv?from=2026-08-10&to=2026-08-16');
    expect(csv.statusCode).toBe(301);
    expect(csv.headers.location).toBe(
      '/emu/CR400AF-2001/history.csv?from=2026-08-10&to=2026-08-16',
    );
  });

  it('answers an unknown unit with the 404 page and units it may have meant', async () => {
    const res = await page('/emu/CR400AF-2009');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('href="/emu/CR400AF-2001"');
    expect((await page('/emu/banana')).statusCode).toBe(404);
    expect((await page(`/emu/${'X'.repeat(90)}`)).statusCode).toBe(404);
  });

  it('answers malformed parameters with the 400 page naming the field', async () => {
    for (const [url, field] of [
      ['/emu/CR400AF-2001?cursor=yesterday', 'cursor'],
      ['/emu/CR400AF-2001?month=2026-13', 'month'],
      ['/emu/CR400AF-2001?month=2027-01', 'month'],
      ['/emu/CR400AF-2001?cursor=1:2&cursor=3:4', 'cursor'],
    ]) {
      const res = await page(url!);
      expect(res.statusCode, url).toBe(400);
      expect(res.body, url).toMatch(new RegExp(`<p role="alert">${field}[:：]`));
    }
  });

  it('sends an ETag from the data versions and a 304 for it, one per language', async () => {
    const zh = await page('/emu/CR400AF-2001');
    const etag = zh.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await page('/emu/CR400AF-2001', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const en = await page('/emu/CR400AF-2001', { 'accept-language': 'en' });
    expect(en.headers.etag).not.toBe(etag);
    expect(en.body).toContain('<h1>Unit CR400AF-2001</h1>');
    // A change to the register (a new alias) moves the version, and so the tag.
    await web.t.current.db.query(
      `INSERT INTO emu_aliases (alias, emu_id) SELECT 'CR400AF-2001-X', id FROM emus WHERE code = 'CR400AF-2001'`,
    );
    const moved = await page('/emu/CR400AF-2001', { 'if-none-match': etag });
    expect(moved.statusCode).toBe(200);
    expect(moved.headers.etag).not.toBe(etag);
    expect(moved.body).toContain('<span class="chip">CR400AF-2001-X</span>');
  });

  it('prints a hostile alias and depot from the fleet as text', async () => {
    const res = await page(`/emu/${HOSTILE_UNIT}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(HOSTILE_ALIAS);
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(res.body).toContain(`href="/fleet/depot/${encodeURIComponent(HOSTILE_DEPOT)}"`);
    // The alias finds the unit (a 301 to its code).
    const alias = await page(`/emu/${encodeURIComponent(HOSTILE_ALIAS)}`);
    expect(alias.statusCode).toBe(301);
    expect(alias.headers.location).toBe(`/emu/${HOSTILE_UNIT}`);
  });
});

describe('the history CSV /emu/{code}/history.csv', () => {
  it('writes the records of the range GetEmuHistory answers, newest first', async () => {
    const res = await page('/emu/CR400AF-2001/history.csv?from=2026-08-10&to=2026-08-14');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="CR400AF-2001-2026-08-10-2026-08-14.csv"',
    );
    const rows = parse(res.body, { columns: true }) as Record<string, string>[];
    const start = midnightOfServiceDay(SHANGHAI_DAY('20260810'));
    const end = midnightOfServiceDay(SHANGHAI_DAY('20260814'));
    const history = await api<ApiHistory>(
      `/api/v2/history/emu/CR400AF-2001?start=${start}&end=${end}&limit=100`,
    );
    expect(history.items.length).toBeGreaterThan(0);
    expect(
      rows.map((r) => [
        r.service_day,
        r.train_code,
        r.emu_code,
        r.start_station,
        r.end_station,
        r.start_offset,
      ]),
    ).toEqual(
      history.items.map((i) => {
        const tt = history.timetableMappings![i.timetableId!]!;
        const ymd = ymdOfServiceDay(i.serviceDay);
        return [
          `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`,
          codeOf(i),
          'CR400AF-2001',
          tt.startStation,
          tt.endStation,
          String(tt.startOffset),
        ];
      }),
    );
    const etag = res.headers.etag as string;
    const again = await page('/emu/CR400AF-2001/history.csv?from=2026-08-10&to=2026-08-14', {
      'if-none-match': etag,
    });
    expect(again.statusCode).toBe(304);
  });

  it('refuses a missing, malformed or too long range with the 400 page naming the field', async () => {
    for (const [query, field] of [
      ['', 'from'],
      ['from=2026-08-10', 'to'],
      ['from=20260810&to=2026-08-16', 'from'],
      ['from=2026-08-10&to=2026-02-30', 'to'],
      ['from=2026-08-16&to=2026-08-10', 'to'],
      ['from=2025-08-10&to=2026-08-16', 'to'],
    ]) {
      const res = await page(`/emu/CR400AF-2001/history.csv?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type'], query).toBe('text/html; charset=utf-8');
      expect(res.body, query).toMatch(new RegExp(`<p role="alert">${field}[:：]`));
    }
    // 366 days is the most.
    const year = await page('/emu/CR400AF-2001/history.csv?from=2025-08-16&to=2026-08-16');
    expect(year.statusCode).toBe(200);
  });

  it('is offered by a form with labelled date fields', async () => {
    const res = await page('/emu/CR400AF-2001');
    expect(res.body).toContain(
      '<form class="filters" action="/emu/CR400AF-2001/history.csv" method="get">',
    );
    expect(res.body).toMatch(
      /<label for="csv-from"\s*>[^<]*<input\s+type="date"\s+id="csv-from"\s+name="from"/,
    );
    expect(res.body).toMatch(
      /<label for="csv-to"\s*>[^<]*<input\s+type="date"\s+id="csv-to"\s+name="to"/,
    );
  });
});
