import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { dailyRecordsDataSchema } from '../../src/http/api/schemas.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { busyDay, seedDay, storedRecords, type StoredRecord } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';

const successSchema = dataEnvelope(dailyRecordsDataSchema);

describe('GET /api/v2/records/daily', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let dayA: number;
  let dayB: number;
  let recordsA: StoredRecord[];

  beforeAll(async () => {
    dayA = await seedDay(t.current.db, '20260810', busyDay(2000));
    dayB = await seedDay(t.current.db, '20260811', busyDay(3000).slice(0, 5));
    recordsA = await storedRecords(t.current.db, dayA);
    // Generous quota: this file is about records, not throttling.
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '100000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (query: string) =>
    app.inject({ method: 'GET', url: `/api/v2/records/daily?${query}` });

  it('has the seeded day to page through (47 records, confirmed, unconfirmed and coupled)', () => {
    expect(recordsA).toHaveLength(47);
    expect(dayB).toBe(dayA + 1);
  });

  it('answers the first page in the envelope, newest id first, with a next cursor', async () => {
    const res = await get('date=20260810');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = successSchema.parse(res.json());
    expect(body.data.serviceDay).toBe(dayA);
    expect(body.data.cursor).toBe('');
    expect(body.data.limit).toBe(20);
    expect(body.data.items.map((i) => i.id)).toEqual(recordsA.slice(0, 20).map((r) => r.id));
    expect(body.data.nextCursor).toBe(`${dayA}:${recordsA[19]!.id}`);
    expect(body.meta).toEqual({ remain: 100000 - 1, cost: 1 });
    expect(res.headers['x-api-remain']).toBe(String(body.meta.remain));
    expect(res.headers['x-api-cost']).toBe('1');
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('pages through the whole day: every record exactly once, "" as the last nextCursor', async () => {
    const seen: number[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const res = await get(`date=20260810&limit=7&cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode).toBe(200);
      const { data } = successSchema.parse(res.json());
      pages++;
      expect(data.cursor).toBe(cursor);
      expect(data.limit).toBe(7);
      seen.push(...data.items.map((i) => i.id));
      if (data.nextCursor === '') break;
      expect(data.nextCursor).toBe(`${dayA}:${data.items[data.items.length - 1]!.id}`);
      cursor = data.nextCursor;
    }
    expect(pages).toBe(7); // 47 = 6 x 7 + 5
    expect(seen).toEqual(recordsA.map((r) => r.id));
    expect(new Set(seen).size).toBe(47);
  });

  it('a page that ends exactly at the last record says so ("" nextCursor, no empty extra page)', async () => {
    const res = await get('date=20260811&limit=5');
    const { data } = successSchema.parse(res.json());
    expect(data.items).toHaveLength(5);
    expect(data.nextCursor).toBe('');
  });

  it('carries status, trainCode and emuCodeMappings per item, and omits what it does not know', async () => {
    const res = await get('date=20260810&limit=200');
    expect(res.body).not.toContain('null');
    expect(res.body).not.toContain('timetableId');
    const { data } = successSchema.parse(res.json());
    expect(data.limit).toBe(200);
    expect(data.items).toHaveLength(47);
    const byId = new Map(recordsA.map((r) => [r.id, r]));
    for (const item of data.items) {
      const stored = byId.get(item.id)!;
      expect(item.serviceDay).toBe(dayA);
      expect(item.emuId).toBe(stored.emu_id);
      expect(item.status).toBe(stored.status);
      expect(`${item.trainCode!.prefix}${item.trainCode!.number}`).toBe(stored.train_code);
      expect(data.emuCodeMappings![String(item.emuId)]).toBe(stored.code);
    }
    expect(Object.keys(data.emuCodeMappings!)).toHaveLength(47);
    const coupled = data.items.filter((i) => i.trainCode!.prefix === 'D');
    expect(coupled).toHaveLength(2);
    for (const item of coupled) expect(item.status).toBe(0x01 | 0x02);
    const g1001 = data.items.find((i) => i.trainCode!.number === 1001)!; // seen once
    expect(g1001.status).toBe(0);
    const g1002 = data.items.find((i) => i.trainCode!.number === 1002)!; // seen twice
    expect(g1002.status).toBe(0x01);
    // Records cost 0.05 each, rounded up: 47 records = 3.
    expect(res.headers['x-api-cost']).toBe('3');
  });

  it('cuts a limit above 200 to 200 and says so', async () => {
    for (const limit of ['201', '5000', '99999999999999999999999']) {
      const res = await get(`date=20260810&limit=${limit}`);
      expect(res.statusCode).toBe(200);
      expect(successSchema.parse(res.json()).data.limit).toBe(200);
    }
  });

  it('answers an empty day with no items and an empty nextCursor', async () => {
    const res = await get('date=20200101');
    expect(res.statusCode).toBe(200);
    const body = successSchema.parse(res.json());
    expect(body.data.items).toEqual([]);
    expect(body.data.nextCursor).toBe('');
    expect(body.meta.cost).toBe(0);
  });

  const invalid: [string, string, RegExp][] = [
    ['date missing', '', /^date is required/],
    ['date with dashes', 'date=2026-08-10', /^date must be a calendar date/],
    ['date of 7 digits', 'date=2026081', /^date must be a calendar date.*8 digits/],
    ['date of 9 digits', 'date=202608100', /^date must be a calendar date/],
    ['date with letters', 'date=2026081a', /^date must be a calendar date/],
    ['date empty', 'date=', /^date must be a calendar date/],
    ['date 20260230', 'date=20260230', /^date must be a calendar date.*day 30 does not exist/],
    ['date month 13', 'date=20261301', /^date must be a calendar date.*month 13/],
    ['date before 1970', 'date=19691231', /^date must be 19700101 or later/],
    ['date given twice', 'date=20260810&date=20260811', /^date must be given once/],
    ['limit 0', 'date=20260810&limit=0', /^limit must be a whole number of at least 1/],
    ['limit -1', 'date=20260810&limit=-1', /^limit must be a whole number of at least 1/],
    ['limit abc', 'date=20260810&limit=abc', /^limit must be a whole number/],
    ['limit 1.5', 'date=20260810&limit=1.5', /^limit must be a whole number/],
    ['limit empty', 'date=20260810&limit=', /^limit must be a whole number/],
    ['cursor without colon', 'date=20260810&cursor=20675', /^cursor must be <serviceDay>:<id>/],
    ['cursor with letters', 'date=20260810&cursor=abc:def', /^cursor must be <serviceDay>:<id>/],
    ['cursor id 0', 'date=20260810&cursor=20675:0', /^cursor must be <serviceDay>:<id>/],
    ['cursor negative', 'date=20260810&cursor=20675:-5', /^cursor must be <serviceDay>:<id>/],
    ['cursor of a date', 'date=20260810&cursor=20260810:5', /^cursor must be <serviceDay>:<id>/],
    [
      'cursor of another day',
      'date=20260810&cursor=20676:5',
      /^cursor .*belongs to service day 20676, not to date 20260810/,
    ],
  ];
  for (const [name, query, message] of invalid) {
    it(`refuses ${name} with 400 invalid_param naming the parameter`, async () => {
      const res = await get(query);
      expect(res.statusCode).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(message);
      expect(body.meta.cost).toBe(0);
      expect(res.headers['x-api-cost']).toBe('0');
      expect(res.headers['x-api-remain']).toBe(String(body.meta.remain));
      expect(body.meta.remain).toBeGreaterThan(0);
    });
  }

  it('reports every bad parameter of one request', async () => {
    const res = await get('date=2026&limit=0&cursor=x');
    const { error } = errorEnvelopeSchema.parse(res.json());
    expect(error.message).toMatch(/date .*; limit .*; cursor /);
  });

  it('a foreign cursor from the next page of another day is refused even when well formed', async () => {
    const other = successSchema.parse((await get('date=20260811&limit=2')).json());
    expect(other.data.nextCursor).not.toBe('');
    const res = await get(`date=20260810&cursor=${other.data.nextCursor}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^cursor /);
  });

  it('carries timetableId and timetableMappings once a record has a timetable', async () => {
    const target = recordsA[3]!;
    const tt = await t.current.db.query<{ id: number }>(
      `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                               start_offset, end_offset)
       VALUES ('\\x01', $1, ARRAY[$1], '北京南', '上海虹桥', 25200, 45000) RETURNING id`,
      [target.train_code],
    );
    const timetableId = tt.rows[0]!.id;
    await t.current.db.query('UPDATE daily_records SET timetable_id = $2 WHERE id = $1', [
      target.id,
      timetableId,
    ]);
    // As the build that writes a record's timetable does: it moves the day's version, which is
    // what a kept page or a kept day is read again after (daily-record-days.ts).
    await t.current.db.query(
      `INSERT INTO daily_record_builds AS b (service_day, version, inputs) VALUES ($1, 1, 'test')
       ON CONFLICT (service_day) DO UPDATE SET version = b.version + 1`,
      [dayA],
    );
    const { data } = successSchema.parse((await get('date=20260810&limit=10')).json());
    const withTimetable = data.items.filter((i) => i.timetableId !== undefined);
    expect(withTimetable.map((i) => [i.id, i.timetableId])).toEqual([[target.id, timetableId]]);
    expect(data.timetableMappings).toEqual({
      [timetableId]: {
        startStation: '北京南',
        endStation: '上海虹桥',
        startOffset: 25200,
        endOffset: 45000,
      },
    });
  });
});
