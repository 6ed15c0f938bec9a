import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import {
  dailyExportDataSchema,
  dailyExportIndexDataSchema,
} from '../../src/http/api/routes/exports-daily.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';

const indexSchema = dataEnvelope(dailyExportIndexDataSchema);
const exportSchema = dataEnvelope(dailyExportDataSchema);
/** An export can change (late data, corrections rebuild its day): a minute, then revalidate. */
const ANONYMOUS_CACHE = 'public, max-age=60';

describe('GET /api/v2/exports/daily and /api/v2/exports/daily/{date}', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let aug10: number;
  let stored: { content: Buffer; row_count: number; sha256: string };

  beforeAll(async () => {
    aug10 = await seedDay(t.current.db, '20260810', busyDay(2000));
    await seedDay(t.current.db, '20260811', busyDay(3000).slice(0, 4));
    await seedDay(t.current.db, '20260915', busyDay(4000).slice(0, 2));
    const r = await t.current.db.query<{ content: Uint8Array; row_count: number; sha256: string }>(
      'SELECT content, row_count, sha256 FROM daily_exports WHERE service_day = $1',
      [aug10],
    );
    stored = { ...r.rows[0]!, content: Buffer.from(r.rows[0]!.content) };
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '100000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists the latest month with exports when year and month are absent', async () => {
    const res = await app.inject('/api/v2/exports/daily');
    expect(res.statusCode).toBe(200);
    const body = indexSchema.parse(res.json());
    expect(body.data).toEqual({
      selectedYear: 2026,
      selectedMonth: 9,
      availableYears: [2026],
      availableMonths: [8, 9],
      items: [{ serviceDay: aug10 + 36 }],
    });
    expect(body.meta.cost).toBe(2);
    expect(res.headers['x-api-cost']).toBe('2');
  });

  it('lists a chosen month, and an empty one', async () => {
    const aug = indexSchema.parse(
      (await app.inject('/api/v2/exports/daily?year=2026&month=8')).json(),
    );
    expect(aug.data.items).toEqual([{ serviceDay: aug10 }, { serviceDay: aug10 + 1 }]);
    const empty = indexSchema.parse(
      (await app.inject('/api/v2/exports/daily?year=2025&month=1')).json(),
    );
    expect(empty.data).toMatchObject({
      selectedYear: 2025,
      selectedMonth: 1,
      availableMonths: [],
      items: [],
    });
  });

  for (const [query, message] of [
    ['year=2026', /^month is required when year is given/],
    ['month=8', /^year is required when month is given/],
    ['year=2026&month=13', /^month must be a whole number from 1 to 12/],
    ['year=2026&month=0', /^month must be a whole number from 1 to 12/],
    ['year=0&month=1', /^year must be a whole number from 1 to 9999/],
    ['year=abc&month=1', /^year must be/],
  ] as const) {
    it(`refuses ${query} naming the parameter`, async () => {
      const res = await app.inject(`/api/v2/exports/daily?${query}`);
      expect(res.statusCode).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(message);
      expect(body.meta.cost).toBe(0);
    });
  }

  it("sends one day's CSV as base64 in the envelope", async () => {
    const res = await app.inject('/api/v2/exports/daily/20260810');
    expect(res.statusCode).toBe(200);
    const body = exportSchema.parse(res.json());
    expect(body.data.serviceDay).toBe(aug10);
    expect(body.data.total).toBe(47);
    expect(Buffer.from(body.data.content, 'base64').equals(stored.content)).toBe(true);
    expect(body.meta.cost).toBe(50);
    expect(res.headers['etag']).toBe(`"${stored.sha256}.json"`);
  });

  it('sends the CSV itself with binary=true, with the download headers', async () => {
    const res = await app.inject('/api/v2/exports/daily/20260810?binary=true');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=20260810.csv');
    expect(res.rawPayload.equals(stored.content)).toBe(true);
    expect(res.rawPayload.subarray(0, 3).toString('hex')).toBe('efbbbf'); // the BOM
    expect(res.headers['x-api-cost']).toBe('50');
    expect(Number(res.headers['x-api-remain'])).toBeGreaterThan(0);
    expect(res.headers['etag']).toBe(`"${stored.sha256}"`);
    expect(res.headers['cache-control']).toBe(ANONYMOUS_CACHE);
  });

  it('answers If-None-Match on an export with 304, for 1 token, quota headers present', async () => {
    const before = await app.inject('/api/v2/exports/daily/20260810?binary=true');
    const remain = Number(before.headers['x-api-remain']);
    const res = await app.inject({
      url: '/api/v2/exports/daily/20260810?binary=true',
      headers: { 'if-none-match': `"other", ${before.headers['etag']}` },
    });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers['etag']).toBe(before.headers['etag']);
    expect(res.headers['cache-control']).toBe(ANONYMOUS_CACHE);
    expect(res.headers['x-api-cost']).toBe('1');
    expect(Number(res.headers['x-api-remain'])).toBeLessThanOrEqual(remain);
    const json = await app.inject({
      url: '/api/v2/exports/daily/20260810',
      headers: { 'if-none-match': `"${stored.sha256}.json"` },
    });
    expect(json.statusCode).toBe(304);
    // The binary tag does not validate the JSON representation (strong tags differ).
    const other = await app.inject({
      url: '/api/v2/exports/daily/20260810',
      headers: { 'if-none-match': `"${stored.sha256}"` },
    });
    expect(other.statusCode).toBe(200);
    const stale = await app.inject({
      url: '/api/v2/exports/daily/20260810?binary=true',
      headers: { 'if-none-match': '"0000"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('never calls an export immutable, finished day or not: it changes when its day is rebuilt', async () => {
    for (const url of [
      '/api/v2/exports/daily/20260810?binary=true',
      '/api/v2/exports/daily/20260810',
      '/api/v2/exports/daily/20260811?binary=true',
    ]) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe(ANONYMOUS_CACHE);
      expect(res.headers['cache-control']).not.toContain('immutable');
    }
  });

  it('lists and serves only built days: a stray export of a day never built (2099) is neither', async () => {
    // As `emutrack export 20990101` stored one before it refused days that do not exist.
    await t.current.db.query(
      `INSERT INTO daily_exports (service_day, year, month, content, row_count, sha256)
       VALUES (47481, 2099, 12, '\\xefbbbf'::bytea, 0, repeat('0', 64))`,
    );
    try {
      const latest = indexSchema.parse((await app.inject('/api/v2/exports/daily')).json());
      expect(latest.data).toMatchObject({ selectedYear: 2026, selectedMonth: 9 });
      expect(latest.data.availableYears).toEqual([2026]);
      const res = await app.inject('/api/v2/exports/daily/20991231');
      expect(res.statusCode).toBe(404);
    } finally {
      await t.current.db.query('DELETE FROM daily_exports WHERE service_day = 47481');
    }
  });

  it('answers a day without an export with 404 not_found, free of quota', async () => {
    const res = await app.inject('/api/v2/exports/daily/20260101');
    expect(res.statusCode).toBe(404);
    const body = errorEnvelopeSchema.parse(res.json());
    expect(body.error).toEqual({ code: 'not_found', message: 'no export for 20260101' });
    expect(body.meta.cost).toBe(0);
  });

  for (const [url, message] of [
    ['/api/v2/exports/daily/2026-08-10', /^date must be a calendar date/],
    ['/api/v2/exports/daily/20260231', /^date must be a calendar date.*day 31/],
    ['/api/v2/exports/daily/20260810?binary=yes', /^binary must be true or false/],
    ['/api/v2/exports/daily/20260810?binary=true&binary=false', /^binary must be given once/],
  ] as const) {
    it(`refuses ${url} naming the parameter`, async () => {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_param' });
      expect(res.json().error.message).toMatch(message);
    });
  }

  it('with QUOTA_OVER_CAPACITY=whole_bucket, charges a caller whose bucket is smaller than the cost (anonymous: 25 < 50) its whole bucket', async () => {
    const small = await makeApp(t.current.db, { env: { QUOTA_OVER_CAPACITY: 'whole_bucket' } });
    try {
      const first = await small.inject('/api/v2/exports/daily/20260810?binary=true');
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-api-cost']).toBe('25');
      expect(first.headers['x-api-remain']).toBe('0');
      const second = await small.inject('/api/v2/exports/daily/20260810?binary=true');
      expect(second.statusCode).toBe(429);
      expect(second.json().meta).toEqual({ remain: 0, cost: 0, retryAfter: 300 * 5 });
      expect(second.headers['retry-after']).toBe('1500');
    } finally {
      await small.close();
    }
  });
});
