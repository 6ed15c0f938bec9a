import { describe, expect, it } from 'vitest';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useWebApp } from './helpers/web-harness.js';
import { loadDaysFixture, tableRows, unsafeIn } from './helpers/days-fixture.js';

/** A built day of 150 trains (more than a page), and a built day with none. */
const BIG_DAY = serviceDayFromYmd('20260809');
const EMPTY_DAY = serviceDayFromYmd('20260808');
const BIG_TRAINS = 150;

const web = useWebApp(async (db) => {
  await loadDaysFixture(db);
  // Written as a build writes them (the builds' rows mark the days built and move their
  // versions): days shaped for paging and for "built, nothing seen".
  await db.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status)
     SELECT $1, 'C' || (8000 + n), (SELECT min(id) FROM emus), 2, '{test}', 0, 0, 1
       FROM generate_series(0, $2 - 1) AS n`,
    [BIG_DAY, BIG_TRAINS],
  );
  await db.query(
    `INSERT INTO daily_record_builds (service_day, version, inputs) VALUES ($1, 1, ''), ($2, 1, '')`,
    [BIG_DAY, EMPTY_DAY],
  );
});

const en = { accept: 'text/html', 'accept-language': 'en' };
const page = (url: string, headers: Record<string, string> = en) =>
  web.app.inject({ url, headers });

interface ApiRecords {
  nextCursor: string;
  items: { emuId: number; trainCode: { prefix: string; number: number } }[];
  emuCodeMappings: Record<string, string>;
}

/** Every record of a day through GetDailyRecords, as "train emu" pairs, sorted. */
async function apiPairs(ymd: string): Promise<string[]> {
  const pairs: string[] = [];
  let cursor = '';
  do {
    const res = await web.app.inject({
      url: `/api/v2/records/daily?date=${ymd}&limit=200&cursor=${cursor}`,
    });
    expect(res.statusCode).toBe(200);
    const data = (res.json() as { data: ApiRecords }).data;
    for (const item of data.items) {
      pairs.push(
        `${item.trainCode.prefix}${item.trainCode.number} ${data.emuCodeMappings[item.emuId]}`,
      );
    }
    cursor = data.nextCursor;
  } while (cursor !== '');
  return pairs.sort();
}

/** The page's rows as "train emu" pairs (a coupled train's units split), sorted. */
const pagePairs = (rows: string[][]) =>
  rows.flatMap((r) => r[1]!.split(' + ').map((unit) => `${r[0]} ${unit}`)).sort();

describe('the days page /exports/daily', () => {
  it('shows the month of the built days as a calendar and a list, each day with its CSV', async () => {
    const res = await page('/exports/daily');
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(res.body).toContain('data-calendar');
    for (let d = 10; d <= 16; d++) {
      expect(res.body).toContain(`href="/day/202608${d}"`);
      expect(res.body).toContain(`href="/exports/daily/202608${d}.csv"`);
    }
    // 08-08 and 08-09 are built but have no export.
    expect(res.body).not.toContain('href="/exports/daily/20260809.csv"');
    const main = (body: string) => body.slice(body.indexOf('<main'), body.indexOf('</main>'));
    const month = await page('/exports/daily?year=2026&month=8');
    expect(main(month.body)).toBe(main(res.body));
    const year = await page('/exports/daily?year=2026');
    expect(main(year.body)).toBe(main(res.body));
    const none = await page('/exports/daily?year=2025&month=3');
    expect(none.statusCode).toBe(200);
    expect(none.body).not.toContain('href="/day/');
  });

  it("serves a day's CSV with the API's bytes and tag, and a 304 for the tag", async () => {
    const api = await web.app.inject({ url: '/api/v2/exports/daily/20260812?binary=true' });
    expect(api.statusCode).toBe(200);
    const res = await page('/exports/daily/20260812.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.rawPayload.equals(api.rawPayload)).toBe(true);
    expect(res.headers.etag).toBe(api.headers.etag);
    const again = await page('/exports/daily/20260812.csv', {
      ...en,
      'if-none-match': res.headers.etag as string,
    });
    expect(again.statusCode).toBe(304);
    expect((await page('/exports/daily/20260101.csv')).statusCode).toBe(404);
    expect((await page('/exports/daily/2026x.csv')).statusCode).toBe(400);
  });

  it('answers a malformed year or month with a 400 page naming it', async () => {
    for (const [query, field] of [
      ['?year=abc&month=8', 'year'],
      ['?year=2026&month=13', 'month'],
      ['?month=8', 'year'],
      ['?year=2026&month=8&month=9', 'month'],
    ] as const) {
      const res = await page(`/exports/daily${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.body, query).toContain(`<p role="alert">${field}: `);
    }
  });
});

describe('the day page /day/{YYYYMMDD}', () => {
  it('shows the records GetDailyRecords gives for the day, a row per train', async () => {
    for (const ymd of ['20260810', '20260812', '20260816']) {
      const res = await page(`/day/${ymd}`);
      expect(res.statusCode).toBe(200);
      expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
      const rows = tableRows(res.body);
      expect(pagePairs(rows)).toEqual(await apiPairs(ymd));
      expect(new Set(rows.map((r) => r[0])).size).toBe(rows.length);
    }
    const rows = tableRows((await page('/day/20260812')).body);
    // G7301 is a coupled pair: one row, both units, model, bureau, depot and both statuses.
    const coupled = rows.find((r) => r[0] === 'G7301')!;
    expect(coupled[1]).toMatch(/^CRH2A-\d+ \+ CRH2A-\d+$/);
    expect(coupled[2]).toBe('CRH2A');
    // Status 3 each: confirmed (0x01), coupled with the position unknown (0x02).
    expect(coupled[6]).toBe('confirmed, coupled / confirmed, coupled');
    expect(rows.find((r) => r[0] === 'G6101')![6]).toBe('confirmed');
  });

  it('filters by train type, model, bureau and depot with a GET form of labelled fields', async () => {
    const all = tableRows((await page('/day/20260812')).body);
    const form = (await page('/day/20260812')).body;
    for (const name of ['train', 'model', 'bureau', 'depot']) {
      expect(form).toMatch(new RegExp(`<label for="day-${name}"`));
      expect(form).toMatch(new RegExp(`<select id="day-${name}" name="${name}">`));
    }
    expect(form).toContain('<form class="filters" action="/day/20260812" method="get">');
    const g = tableRows((await page('/day/20260812?train=G')).body);
    expect(g.map((r) => r[0])).toEqual(all.filter((r) => r[0]!.startsWith('G')).map((r) => r[0]));
    expect(g.length).toBeLessThan(all.length);
    expect(tableRows((await page('/day/20260812?train=d')).body).map((r) => r[0])).toEqual([
      'D3125',
    ]);
    for (const [field, column, value] of [
      ['model', 2, 'CRH2A'],
      ['bureau', 3, '上海局'],
      ['depot', 4, '北京南动车所'],
    ] as const) {
      const rows = tableRows(
        (await page(`/day/20260812?${field}=${encodeURIComponent(value)}`)).body,
      );
      expect(rows.length, field).toBeGreaterThan(0);
      expect(rows.length, field).toBeLessThan(all.length);
      expect(rows.map((r) => r[0])).toEqual(
        all.filter((r) => r[column]!.split(' / ').includes(value)).map((r) => r[0]),
      );
    }
    const both = await page(`/day/20260812?train=C&model=CR400AF`);
    expect(both.statusCode).toBe(200);
    expect(both.body).toContain('No train of this day matches these filters.');
  });

  it('pages a day of more trains than a page, keeping the filters in the links', async () => {
    const first = await page('/day/20260809?train=C');
    const second = await page('/day/20260809?train=C&page=2');
    const a = tableRows(first.body);
    const b = tableRows(second.body);
    expect(a).toHaveLength(100);
    expect(b).toHaveLength(BIG_TRAINS - 100);
    expect([...a, ...b].map((r) => r[0])).toEqual(
      Array.from({ length: BIG_TRAINS }, (_, i) => `C${8000 + i}`),
    );
    expect(first.body).toContain('href="/day/20260809?train=C&amp;page=2"');
    expect(first.body).toContain('Page 1 of 2');
  });

  it('answers a malformed date, page or filter with a 400 page naming the field', async () => {
    for (const [url, field] of [
      ['/day/20261340', 'date'],
      ['/day/abc', 'date'],
      ['/day/2026-08-12', 'date'],
      ['/day/202608120', 'date'],
      ['/day/20260812?page=-1', 'page'],
      ['/day/20260812?page=1e9', 'page'],
      ['/day/20260812?page=x', 'page'],
      ['/day/20260812?page=0', 'page'],
      ['/day/20260812?page=2', 'page'],
      ['/day/20260812?train=G1', 'train'],
      [`/day/20260812?model=${'x'.repeat(65)}`, 'model'],
      ['/day/20260812?bureau=a&bureau=b', 'bureau'],
    ] as const) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.body, url).toContain(`<p role="alert">${field}: `);
    }
  });

  it('says when a built day has no records, and when a day is not built yet (404)', async () => {
    const empty = await page('/day/20260808');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('This day has been built, and no train was recorded on it.');
    const unbuilt = await page('/day/20260101');
    expect(unbuilt.statusCode).toBe(404);
    expect(unbuilt.body).toContain('has not been built yet');
    expect(unbuilt.body).toContain('href="/exports/daily"');
  });

  it('sends an ETag of the day version per language and filters, and a 304 for it', async () => {
    const a = await page('/day/20260812');
    const etag = a.headers.etag as string;
    expect(etag).toMatch(/^"/);
    const again = await page('/day/20260812', { ...en, 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect((await page('/day/20260812', { accept: 'text/html' })).headers.etag).not.toBe(etag);
    expect((await page('/day/20260812?train=G')).headers.etag).not.toBe(etag);
    expect((await page('/day/20260813')).headers.etag).not.toBe(etag);
    const days = await page('/exports/daily');
    const days304 = await page('/exports/daily', {
      ...en,
      'if-none-match': days.headers.etag as string,
    });
    expect(days304.statusCode).toBe(304);
  });

  it("prints a hostile station name of a record's timetable as text", async () => {
    const res = await page('/day/20260812');
    const row = tableRows(res.body).find((r) => r[0] === 'G7301')!;
    expect(row[5]).toBe(
      '&quot;&gt;&lt;img src=x onerror=alert(1)&gt; → &lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(unsafeIn(res.body)).toEqual([]);
  });
});
