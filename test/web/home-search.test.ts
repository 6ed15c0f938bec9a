import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { unsafeMarkup } from '../helpers/html-safety.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { LAST_DAY, startWebServer, type WebServer } from './helpers/web-harness.js';

const t = useTestDatabase();
let server: WebServer;

beforeAll(async () => {
  server = await startWebServer(t.current.db, {
    // Searches see new timetables at once; the API reads below are not limited.
    env: { SEARCH_CHECK_EVERY_MS: '0', QUOTA_ANONYMOUS_CAPACITY: '1000000' },
  });
  await renderDailyExport(t.current.db, LAST_DAY, { today: LAST_DAY });
});
afterAll(async () => server?.close());

const english = { accept: 'text/html', 'accept-language': 'en' };

function get(url: string, headers: Record<string, string> = english) {
  return server.app.inject({ url, headers });
}

/** The text of an element's content, tags removed, spaces folded. */
function textOf(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

async function apiData(url: string) {
  const res = await server.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return res.json().data;
}

describe('the home page', () => {
  it('shows the latest built day with the counts the API gives for it, and its CSV', async () => {
    const index = await apiData('/api/v2/exports/daily');
    const latest = index.items.at(-1).serviceDay;
    expect(latest).toBe(LAST_DAY);
    const ymd = ymdOfServiceDay(latest);
    const exported = await apiData(`/api/v2/exports/daily/${ymd}`);
    const records: { trainCode?: { prefix: string; number: number }; emuId: number }[] = [];
    let cursor = '';
    do {
      const page = await apiData(
        `/api/v2/records/daily?date=${ymd}&limit=200&cursor=${encodeURIComponent(cursor)}`,
      );
      records.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(records.length).toBe(exported.total);
    const trains = new Set(records.map((r) => `${r.trainCode!.prefix}${r.trainCode!.number}`)).size;
    const emus = new Set(records.map((r) => r.emuId)).size;
    // The fixture's day has coupled trains and units on two numbers: the three counts differ.
    expect(new Set([records.length, trains, emus]).size).toBe(3);

    const res = await get('/');
    expect(res.statusCode).toBe(200);
    const counts = res.body.match(/<p data-latest-counts>([^<]*)<\/p>/)?.[1];
    expect(counts).toBe(`${records.length} records: ${trains} trains run by ${emus} units`);
    expect(res.body).toContain(`<a href="/day/${ymd}" data-latest-day>2026-08-16</a>`);
    expect(res.body).toContain(`href="/api/v2/exports/daily/${ymd}?binary=true"`);
    const csv = await server.app.inject({ url: `/api/v2/exports/daily/${ymd}?binary=true` });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('lists the newest ten changes of the feed, newest first, each linked', async () => {
    const feed: {
      kind: string;
      date: string;
      key: { trainCode: string; emuCode: string };
    }[] = [];
    let cursor = '';
    for (;;) {
      const page = await apiData(`/api/v2/records/changes?limit=5000&cursor=${cursor}`);
      feed.push(...page.items);
      cursor = page.nextCursor;
      if (!page.more) break;
    }
    expect(feed.length).toBeGreaterThan(10);
    const expected = feed
      .slice(-10)
      .reverse()
      .map((c) => `${c.kind} ${c.key.trainCode} ${c.key.emuCode} ${c.date}`);
    const res = await get('/');
    const shown = [...res.body.matchAll(/<li data-change>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    expect(shown).toHaveLength(10);
    expect(
      shown.map((li) => {
        const [kind, train, emu, day] = textOf(li).split(' ');
        return `${kind} ${train} ${emu} ${day!.replaceAll('-', '')}`;
      }),
    ).toEqual(expected);
    const first = feed.at(-1)!;
    expect(shown[0]).toContain(`<a href="/train/${first.key.trainCode}">`);
    expect(shown[0]).toContain(`<a href="/emu/${first.key.emuCode}">`);
    expect(shown[0]).toContain(`<a href="/day/${first.date}">`);
  });

  it('has an ETag from the data versions and answers 304; one page per language', async () => {
    const first = await get('/');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"/);
    const again = await server.app.inject({
      url: '/',
      headers: { ...english, 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const zh = await get('/', { accept: 'text/html' });
    expect(zh.headers.etag).not.toBe(etag);
    expect(zh.body).toContain('最新生成的运营日');
    // The switches' links are those of `/`, whatever the query said.
    const queried = await get('/?utm=x');
    expect(queried.headers.etag).toBe(etag);
    expect(queried.body).toContain('href="/?lang=zh-CN"');
  });
});

describe('the results page', () => {
  it('goes straight to the page of a query with one clear hit (303)', async () => {
    const cases: [string, string][] = [
      ['G1', '/train/G1'],
      ['g1', '/train/G1'],
      ['cr400af2001', '/emu/CR400AF-2001'],
      ['CR400AF-2001', '/emu/CR400AF-2001'],
      ['2001', '/emu/CR400AF-2001'],
      ['上海虹桥', `/station/${encodeURIComponent('上海虹桥')}`],
      ['shanghaihongqiao', `/station/${encodeURIComponent('上海虹桥')}`],
      ['shhq', `/station/${encodeURIComponent('上海虹桥')}`],
    ];
    for (const [q, location] of cases) {
      const res = await get(`/search?q=${encodeURIComponent(q)}`);
      expect(res.statusCode, q).toBe(303);
      expect(res.headers.location, q).toBe(location);
    }
  });

  it('lists hits by kind, trains before stations, each with its subtitle and tags', async () => {
    const res = await get('/search?q=d');
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(res.body).toContain('<h1>Results for “d”</h1>');
    const groups = [...res.body.matchAll(/data-results="(\w+)"/g)].map((m) => m[1]);
    expect(groups).toEqual(['train', 'station']);
    const trains = res.body.slice(res.body.indexOf('data-results="train"'));
    expect(trains).toMatch(/<a href="\/train\/D3125">D3125<\/a>\s*<span class="muted">上海虹桥 → /);
    // The header's box keeps the query.
    expect(res.body).toMatch(/id="header-q"\s+name="q"\s+value="d"/);

    // A paired run: both its numbers are exact, a list to choose from; each names the other.
    const paired = await get(`/search?q=${encodeURIComponent('G4340/37')}`);
    expect(paired.statusCode).toBe(200);
    expect(paired.body).toMatch(
      /<a href="\/train\/G4337">G4337<\/a>[\s\S]*?<span class="chip">G4340<\/span>/,
    );
    expect(paired.body).toMatch(
      /<a href="\/train\/G4340">G4340<\/a>[\s\S]*?<span class="chip">G4337<\/span>/,
    );

    const units = await get('/search?q=CR400AF');
    expect([...units.body.matchAll(/data-results="(\w+)"/g)].map((m) => m[1])).toEqual(['emu']);
    expect(units.body).toMatch(
      /<a href="\/emu\/CR400AF-2001">CR400AF-2001<\/a>\s*<span class="muted">CR400AF · /,
    );
  });

  it('says so when nothing matches (200), and sends an empty query home', async () => {
    const none = await get('/search?q=zzzzqqq');
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('Nothing matches “zzzzqqq”.');
    for (const url of ['/search', '/search?q=', '/search?q=%20%20']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location).toBe('/');
    }
  });

  it('answers 400 naming q for a query given twice or longer than the box', async () => {
    for (const url of ['/search?q=G1&q=G2', `/search?q=${'G'.repeat(65)}`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toMatch(/<p role="alert">q: /);
    }
    const zh = await get('/search?q=a&q=b', { accept: 'text/html' });
    expect(zh.body).toContain('q：只能给出一次');
    expect((await get(`/search?q=${'G'.repeat(64)}`)).statusCode).toBe(200);
  });

  it('prints a hostile query and a hostile station name escaped', async () => {
    const hostile = '"><script>alert(1)</script>';
    const res = await get(`/search?q=${encodeURIComponent(hostile)}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>alert(1)');
    expect(res.body).toContain(
      '<h1>Results for “&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;”</h1>',
    );
    expect(res.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(unsafeMarkup(res.body, FRAME)).toEqual([]);

    const station = '<img src=x onerror=alert(1)>';
    await ingestTimetableLines(t.current.db, [
      timetable(
        'G9901',
        '20260701',
        [
          [station, undefined, '08:00'],
          ['"><img src=x onerror=alert(2)>', '09:00'],
        ],
        {
          allCodes: ['G9901'],
          bureauName: '上海局',
        },
      ),
    ]);
    const list = await get('/search?q=onerror');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('<img src=x');
    expect(list.body).toContain('&lt;img src=x onerror=alert(1)&gt;</a>');
    expect(list.body).toContain(`href="/station/${encodeURIComponent(station)}"`);
    expect(unsafeMarkup(list.body, FRAME)).toEqual([]);
    const suggest = await get('/suggest?q=onerror');
    expect(suggest.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(suggest.json().items.map((i: { code: string }) => i.code)).toContain(station);
  });
});

/** The page's own frame: its hashed script, meta and link elements, the search form and box. */
const FRAME = {
  allowScript: (attributes: string, text: string) =>
    text === '' && /^\s*src="\/assets\/web\/main\.[\w-]{12}\.js"\s+defer\s*$/.test(attributes),
  allowElement: (name: string, attributes: string) =>
    name === 'meta' ||
    name === 'link' ||
    (name === 'form' && attributes.includes('action="/search" method="get"')) ||
    (name === 'input' && /^\s*type="search"/.test(attributes)),
};

describe('the suggestions endpoint', () => {
  it('answers the search as items with their page, counted as a page', async () => {
    const res = await get(`/suggest?q=${encodeURIComponent('G4340/37')}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      status: '2 suggestions',
      items: [
        { type: 'train', code: 'G4337', subtitle: expect.any(String), href: '/train/G4337' },
        { type: 'train', code: 'G4340', subtitle: expect.any(String), href: '/train/G4340' },
      ],
    });
    const station = (await get('/suggest?q=shhq')).json();
    expect(station.items[0]).toMatchObject({
      type: 'station',
      code: '上海虹桥',
      href: `/station/${encodeURIComponent('上海虹桥')}`,
    });
    expect((await get('/suggest?q=')).json()).toEqual({ items: [], status: '' });
    const twice = await get('/suggest?q=a&q=b');
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.field).toBe('q');
    expect((await get(`/suggest?q=${'x'.repeat(65)}`)).statusCode).toBe(400);
  });
});
