import { parse } from 'csv-parse/sync';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { midnightOfServiceDay, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { LAST_DAY, loadFixtureWeek } from '../api/helpers/fixture-week.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { useWebApp } from './helpers/web-harness.js';

const HOSTILE = '<script>alert(1)</script>';
const HOSTILE_ATTR = '"><img src=x onerror=alert(1)>';

const web = useWebApp(async (db) => {
  await loadFixtureWeek(db);
  await inferCirculations(db, { asOf: LAST_DAY });
  await ingestTimetableLines(db, [
    timetable('G9998', '20260801', [
      [HOSTILE, undefined, '08:00'],
      [HOSTILE_ATTR, '09:00'],
    ]),
  ]);
});

const browser = { accept: 'text/html' };

async function page(url: string, headers: Record<string, string> = {}) {
  return web.app.inject({ url, headers: { ...browser, ...headers } });
}

async function apiData<T>(url: string): Promise<T> {
  const res = await web.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return (res.json() as { data: T }).data;
}

/** The text of the page's section with the heading id `id` (up to the next section). */
function section(body: string, id: string): string {
  const at = body.indexOf(`id="${id}"`);
  expect(at, id).toBeGreaterThan(-1);
  const end = body.indexOf('</section>', at);
  return body.slice(at, end);
}

const dateOf = (serviceDay: number) => {
  const ymd = ymdOfServiceDay(serviceDay);
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
};

interface HistoryData {
  items: { serviceDay: number; emuId: number; status: number; sources?: string[] }[];
  emuCodeMappings: Record<string, string>;
  nextCursor: string;
}

describe('the train page', () => {
  it('shows the units, timetable stops and history days the API answers for the same train', async () => {
    const res = await page('/train/G1');
    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    const history = await apiData<HistoryData>('/api/v2/history/train/G1?limit=30');
    expect(history.items.length).toBeGreaterThan(0);
    // Units of today (the fixture's last day) with their codes.
    const units = section(res.body, 'units-h');
    const todays = history.items.filter((i) => i.serviceDay === LAST_DAY);
    expect(todays.length).toBeGreaterThan(0);
    for (const item of todays) expect(units).toContain(history.emuCodeMappings[item.emuId]);
    // The history list: the same days and units, in the same order, newest first.
    const list = section(res.body, 'history-h');
    const shown = [
      ...list.matchAll(/<a href="\/day\/(\d{8})">[^<]*<\/a>[\s\S]*?<a href="\/emu\/([^"]+)">/g),
    ].map((m) => `${m[1]} ${decodeURIComponent(m[2]!)}`);
    expect(shown).toEqual(
      history.items.map(
        (i) => `${ymdOfServiceDay(i.serviceDay)} ${history.emuCodeMappings[i.emuId]}`,
      ),
    );
    // Each record's provenance as the API says it: "seen by" and the first three sources.
    const seen = [...list.matchAll(/<tr>[\s\S]*?<\/tr>/g)]
      .slice(1)
      .map((m) => /class="muted seen-by">\S+ ([^<]*)<\/small>/.exec(m[0])?.[1] ?? '');
    expect(seen).toEqual(
      history.items.map((i) => {
        const s = i.sources ?? [];
        return s.slice(0, 3).join(', ') + (s.length > 3 ? ` +${s.length - 3}` : '');
      }),
    );
    expect(history.items.every((i) => (i.sources ?? []).length > 0)).toBe(true);
    // The timetable: the stops of the current timetable, in order.
    const current = await apiData<{ stops: { stationName: string; departAt?: number }[] }>(
      '/api/v2/timetable/train/G1/current',
    );
    const stops = section(res.body, 'timetable-h');
    const stations = [...stops.matchAll(/<a href="\/station\/([^"]+)">/g)].map((m) =>
      decodeURIComponent(m[1]!),
    );
    expect(stations).toEqual(current.stops.map((s) => s.stationName));
    const first = current.stops[0]!.departAt! - midnightOfServiceDay(LAST_DAY);
    const hhmm = `${String(Math.floor(first / 3600)).padStart(2, '0')}:${String((first / 60) % 60).padStart(2, '0')}`;
    expect(stops).toContain(hhmm);
  });

  it('shows the circulation, its picture links and the prediction the API answers', async () => {
    const res = await page('/train/G7301', { 'accept-language': 'en' });
    expect(res.statusCode).toBe(200);
    const current = await apiData<{
      circulation: { source: string; nodes: { allCodes: { prefix: string; number: number }[] }[] };
    }>('/api/v2/timetable/train/G7301/current');
    const circulation = section(res.body, 'circulation-h');
    const trains = [...circulation.matchAll(/href="\/train\/([A-Z0-9]+)"/g)].map((m) => m[1]);
    expect(trains).toEqual(
      current.circulation.nodes.flatMap((n) => n.allCodes.map((c) => `${c.prefix}${c.number}`)),
    );
    expect(current.circulation.source).toBe('inferred');
    expect(circulation).toContain('Inferred from the records');
    // The picture's links are the API's, and answer a caller without a credential.
    const png = circulation.match(/href="([^"]+format=png[^"]*)"/)![1]!.replaceAll('&amp;', '&');
    expect(circulation).toMatch(/href="[^"]+format=pdf&amp;binary=true"/);
    const picture = await web.app.inject({ url: png });
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    // The prediction of each coming day: the API's units and confidences.
    const prediction = section(res.body, 'prediction-h');
    for (const date of ['20260817', '20260818', '20260819']) {
      const p = await apiData<{
        items: { emuId: number; confidence: number }[];
        emuCodeMappings: Record<string, string>;
      }>(`/api/v2/prediction/train/G7301?date=${date}`);
      expect(p.items.length).toBeGreaterThan(0);
      const day = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`;
      const rows = prediction.split('<tr>').filter((row) => row.includes(`>${day}</th>`));
      expect(rows.map((row) => row.match(/href="\/emu\/([^"]+)"/)![1])).toEqual(
        p.items.map((i) => p.emuCodeMappings[i.emuId]),
      );
      expect(rows.map((row) => row.match(/>(\d+)%</)![1])).toEqual(
        p.items.map((i) => String(Math.round(i.confidence * 100))),
      );
    }
  });

  it('shows the month calendar: the unit of each day of the month, and months before', async () => {
    const res = await page('/train/G1');
    const calendar = section(res.body, 'calendar-h');
    const history = await apiData<HistoryData>('/api/v2/history/train/G1?limit=100');
    for (const item of history.items) {
      const ymd = ymdOfServiceDay(item.serviceDay);
      const label = calendar.match(new RegExp(`href="/day/${ymd}" aria-label="([^"]+)"`));
      expect(label?.[1], ymd).toContain(history.emuCodeMappings[item.emuId]);
    }
    expect(calendar).toContain('href="/train/G1?month=2026-07#calendar-h"');
    // No month after today's.
    expect(calendar).not.toContain('month=2026-09');
    const july = await page('/train/G1?month=2026-07');
    expect(section(july.body, 'calendar-h')).not.toContain('href="/day/');
    const bad = await page('/train/G1?month=2026-7');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/role="alert">month[:：]/);
  });

  it('pages the history list newest first with the API cursor', async () => {
    const first = await page('/train/G7301');
    const older = section(first.body, 'history-h').match(/href="(\/train\/G7301\?cursor=[^"#]+)/);
    // 14 records fit one page of 30: no older page.
    expect(older).toBeNull();
    const bad = await page('/train/G7301?cursor=nonsense');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/role="alert">cursor[:：]/);
    const history = await apiData<HistoryData>('/api/v2/history/train/G7301?limit=3');
    const next = await page(`/train/G7301?cursor=${history.nextCursor}`);
    const rest = await apiData<HistoryData>(
      `/api/v2/history/train/G7301?limit=30&cursor=${history.nextCursor}`,
    );
    const shown = [...section(next.body, 'history-h').matchAll(/href="\/emu\/([^"]+)"/g)].map((m) =>
      decodeURIComponent(m[1]!),
    );
    expect(shown).toEqual(rest.items.map((i) => rest.emuCodeMappings[i.emuId]));
    expect(section(next.body, 'history-h')).toContain('href="/train/G7301#history-h"');
  });

  it('sends a kept page as kept (brotli) to a browser that takes it, and decoded to others', async () => {
    const plain = await page('/train/G7301');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const br = await page('/train/G7301', { 'accept-encoding': 'gzip, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
      expect(br.headers.etag).toBe(plain.headers.etag);
    }
    const gz = await page('/train/G7301', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
  });

  it('redirects a non-canonical number to the canonical address for good', async () => {
    const res = await page('/train/g1?month=2026-08');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/train/G1?month=2026-08');
    const csv = await page('/train/g1/history.csv?from=2026-08-10&to=2026-08-16');
    expect(csv.statusCode).toBe(301);
    expect(csv.headers.location).toBe('/train/G1/history.csv?from=2026-08-10&to=2026-08-16');
  });

  it('answers an unknown train with a 404 page suggesting trains', async () => {
    const res = await page('/train/G12');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<a href="/train/G1234">');
    const malformed = await page('/train/XYZ1');
    expect(malformed.statusCode).toBe(404);
  });

  it('answers an address refused before any route with the 400 page naming the path', async () => {
    for (const [url, why] of [
      [`/train/${'G'.repeat(150)}`, '地址中的某一段超过 100 个字符'],
      [`/station/${'上'.repeat(120)}`, '地址中的某一段超过 100 个字符'],
      ['/station/%E4%B8', '地址格式错误（百分号编码有误）'],
    ] as const) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy'], url).toContain("script-src 'self'");
      expect(res.body, url).toContain(`path：${why}`);
    }
    const english = await page(`/emu/${'A'.repeat(150)}`, { 'accept-language': 'en' });
    expect(english.body).toContain('path: a part of the address is longer than 100 characters');
    // A program still gets the error object.
    const program = await web.app.inject({ url: `/train/${'G'.repeat(150)}` });
    expect(program.statusCode).toBe(400);
    expect(program.json()).toMatchObject({ error: { code: 'invalid_param' } });
  });

  it('prints a hostile station name escaped', async () => {
    const res = await page('/train/G9998');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(HOSTILE);
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('the history CSV', () => {
  it('holds the history of the range, a row per record', async () => {
    const res = await page('/train/G1/history.csv?from=2026-08-10&to=2026-08-16');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toContain('attachment');
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const rows = parse(res.body.slice(1)) as string[][];
    expect(rows[0]).toEqual([
      'serviceDate',
      'trainCode',
      'emuCode',
      'startStation',
      'endStation',
      'startTime',
      'endTime',
    ]);
    const history = await apiData<HistoryData>(
      `/api/v2/history/train/G1?limit=100&start=${midnightOfServiceDay(LAST_DAY - 6)}&end=${midnightOfServiceDay(LAST_DAY)}`,
    );
    const expected = history.items
      .map((i) => `${dateOf(i.serviceDay)} ${history.emuCodeMappings[i.emuId]}`)
      .sort();
    expect(rows.slice(1).map((r) => `${r[0]} ${r[2]}`)).toEqual(expected);
    expect(rows.slice(1).every((r) => r[1] === 'G1')).toBe(true);
  });

  it('is a 400 page naming the field for a bad date, a reversed or too long range', async () => {
    for (const [query, field] of [
      ['from=2026-13-01&to=2026-08-16', 'from'],
      ['from=2026-08-01&to=yesterday', 'to'],
      ['to=2026-08-16', 'from'],
      ['from=2026-08-16&to=2026-08-01', 'from'],
      ['from=2024-01-01&to=2026-08-16', 'to'],
    ] as const) {
      const res = await page(`/train/G1/history.csv?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body, query).toMatch(new RegExp(`role="alert">${field}[:：]`));
    }
  });
});

describe('caching', () => {
  it('carries an ETag of what it shows, per language, and answers 304 to it', async () => {
    const first = await page('/train/G1');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await page('/train/G1', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    const en = await page('/train/G1', { 'accept-language': 'en' });
    expect(en.headers.etag).not.toBe(etag);
    const csv = await page('/train/G1/history.csv?from=2026-08-10&to=2026-08-16');
    // A new inference run moves the circulations' version: the page's ETag moves with it.
    await inferCirculations(web.t.current.db, { asOf: LAST_DAY });
    const moved = await page('/train/G1', { 'if-none-match': etag });
    expect(moved.statusCode).toBe(200);
    expect(moved.headers.etag).not.toBe(etag);
    const csvAgain = await page('/train/G1/history.csv?from=2026-08-10&to=2026-08-16', {
      'if-none-match': csv.headers.etag as string,
    });
    expect(csvAgain.statusCode).toBe(304);
  });
});
