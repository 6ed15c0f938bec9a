import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { emuHistoryDataSchema, trainHistoryDataSchema } from '../../src/http/api/routes/history.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { makeApp } from './helpers/api-harness.js';
import { expectNoNulls, expectQuotaHeaders } from './helpers/json-checks.js';

const trainSchema = dataEnvelope(trainHistoryDataSchema);
const emuSchema = dataEnvelope(emuHistoryDataSchema);

const D0 = serviceDayFromYmd('20260601');
const DAYS = 40;
const midnight = (k: number) => midnightOfServiceDay(D0 + k);

interface Stored {
  id: number;
  service_day: number;
  train_code: string;
  emu_id: number;
  status: number;
  timetable_id: number | null;
}

/** Newest first, as the API pages them. */
const newestFirst = (a: Stored, b: Stored) => b.service_day - a.service_day || b.id - a.id;

describe('GET /api/v2/history/train/{trainCode} and /history/emu/{emuCode}', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let records: Stored[];
  let e1: number;
  let e2: number;
  let e3: number;

  beforeAll(async () => {
    const { db } = t.current;
    await ingestTimetableLines(db, [
      timetable('G9001', '20260101', [
        ['甲', undefined, '08:00'],
        ['乙', '09:00', undefined],
      ]),
      // Known by its timetable only: no records.
      timetable('G9003', '20260101', [
        ['甲', undefined, '10:00'],
        ['乙', '11:00', undefined],
      ]),
    ]);
    const emus = await db.query<{ id: number; code: string }>(
      `INSERT INTO emus (code, model, registered_by)
       VALUES ('CR400AF-3001', 'CR400AF', 'fleet'), ('CR400AF-3002', 'CR400AF', 'fleet'),
              ('CR400AF-3003', 'CR400AF', 'fleet')
       RETURNING id, code`,
    );
    [e1, e2, e3] = emus.rows.map((r) => r.id) as [number, number, number];
    await db.query(
      `INSERT INTO emu_aliases (alias, emu_id)
       VALUES ('CR400AF-3001', $1), ('CR400AF3001', $1), ('CR400AF-3002', $2), ('CR400AF-3003', $3)`,
      [e1, e2, e3],
    );
    // Days inserted in a scrambled order, so that ids do not follow days: pages must order by
    // day first. E1 runs G9001 and G9002 daily (G9002 unconfirmed every fifth day); E2 joins
    // G9001 on even days (a coupled pair: both 0x03).
    const order = Array.from({ length: DAYS }, (_, k) => (k * 17) % DAYS);
    for (const k of order) {
      const coupled = k % 2 === 0;
      await db.query(
        `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                    first_observed_at, last_observed_at, status, timetable_id)
         SELECT $1, x.train_code, x.emu_id, 2, '{a,b}', 0, 0, x.status, x.timetable_id
           FROM (VALUES ('G9002', $2::int, $5::int, NULL::int),
                        ('G9001', $2::int, $4::int, (SELECT id FROM timetables WHERE train_code = 'G9001')),
                        ('G9001', CASE WHEN $3 THEN $6::int END, $4::int,
                         (SELECT id FROM timetables WHERE train_code = 'G9001')))
                AS x(train_code, emu_id, status, timetable_id)
          WHERE x.emu_id IS NOT NULL`,
        [D0 + k, e1, coupled, coupled ? 3 : 1, k % 5 === 0 ? 0 : 1, e2],
      );
    }
    records = (
      await db.query<Stored>(
        'SELECT id, service_day, train_code, emu_id, status, timetable_id FROM daily_records',
      )
    ).rows;
    app = await makeApp(db, { env: { QUOTA_ANONYMOUS_CAPACITY: '1000000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (url: string) => app.inject({ method: 'GET', url: `/api/v2/history/${url}` });

  /** Every page of a history, following nextCursor; the ids in order. */
  async function pageThrough(path: string, query: string) {
    const ids: number[] = [];
    let cursor = '';
    let pages = 0;
    for (;;) {
      const res = await get(`${path}?${query}&cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, `${path}?${query}&cursor=${cursor}`).toBe(200);
      const body = res.json();
      const { data } = path.startsWith('train/') ? trainSchema.parse(body) : emuSchema.parse(body);
      pages++;
      expect(data.cursor).toBe(cursor);
      ids.push(...data.items.map((i) => i.id));
      if (data.nextCursor === '') break;
      const last = data.items[data.items.length - 1]!;
      expect(data.nextCursor).toBe(`${last.serviceDay}:${last.id}`);
      cursor = data.nextCursor;
      expect(pages).toBeLessThan(500);
    }
    return { ids, pages };
  }

  const inDays = (from: number, to: number) => (r: Stored) =>
    r.service_day >= D0 + from && r.service_day <= D0 + to;

  it('has the history to page through (40 days; 140 records; ids not in day order)', () => {
    expect(records).toHaveLength(40 * 2 + 20);
    const byId = [...records].sort((a, b) => a.id - b.id).map((r) => r.service_day);
    expect(byId).not.toEqual([...byId].sort((a, b) => a - b));
  });

  it("pages a train's history newest first, in the envelope, with mappings and each record's status", async () => {
    const res = await get('train/G9001?limit=5');
    expect(res.statusCode).toBe(200);
    const body = trainSchema.parse(res.json());
    expectNoNulls(res.json());
    expect(body.meta.cost).toBe(1);
    expectQuotaHeaders(res, body.meta);
    const expected = records.filter((r) => r.train_code === 'G9001').sort(newestFirst);
    const { data } = body;
    expect(data.trainCode).toEqual({ prefix: 'G', number: 9001 });
    expect(data).not.toHaveProperty('start');
    expect(data).not.toHaveProperty('end');
    expect(data.items).toEqual(
      expected.slice(0, 5).map((r) => ({
        id: r.id,
        serviceDay: r.service_day,
        emuId: r.emu_id,
        timetableId: r.timetable_id,
        status: r.status,
        // The record's provenance: an emutrack addition to the live service's shape.
        sources: ['a', 'b'],
      })),
    );
    expect(data.nextCursor).toBe(`${expected[4]!.service_day}:${expected[4]!.id}`);
    expect(data.emuCodeMappings).toEqual({ [e1]: 'CR400AF-3001', [e2]: 'CR400AF-3002' });
    const timetableId = expected[0]!.timetable_id!;
    expect(data.timetableMappings).toEqual({
      [timetableId]: { startStation: '甲', endStation: '乙', startOffset: 28800, endOffset: 32400 },
    });
  });

  it("pages an EMU's history newest first with train codes, and leaves out what a record lacks", async () => {
    const res = await get('emu/CR400AF-3001?limit=4');
    const body = emuSchema.parse(res.json());
    expectNoNulls(res.json());
    const expected = records.filter((r) => r.emu_id === e1).sort(newestFirst);
    expect(body.data.emuId).toBe(e1);
    expect(body.data.emuCodeMappings).toEqual({ [e1]: 'CR400AF-3001' });
    expect(body.data.items).toEqual(
      expected.slice(0, 4).map((r) => ({
        id: r.id,
        serviceDay: r.service_day,
        trainCode: { prefix: 'G', number: Number(r.train_code.slice(1)) },
        status: r.status,
        ...(r.timetable_id === null ? {} : { timetableId: r.timetable_id }),
        sources: ['a', 'b'],
      })),
    );
    expect(body.data.items.some((i) => !('timetableId' in i))).toBe(true);
  });

  const ranges: [string, string, (r: Stored) => boolean][] = [
    ['no range', '', () => true],
    ['start and end at midnights', `start=${midnight(5)}&end=${midnight(30)}`, inDays(5, 30)],
    [
      'start a second before midnight, end a second before midnight',
      `start=${midnight(5) - 1}&end=${midnight(31) - 1}`,
      inDays(4, 30),
    ],
    [
      'start and end within one day',
      `start=${midnight(7) + 3600}&end=${midnight(7) + 7200}`,
      inDays(7, 7),
    ],
    ['start only', `start=${midnight(33) + 60}`, inDays(33, DAYS)],
    ['end only', `end=${midnight(2)}`, inDays(-1, 2)],
    ['a range before every record', `start=${midnight(-30)}&end=${midnight(-1)}`, () => false],
    ['a range past every record', `start=${midnight(DAYS)}`, () => false],
  ];
  for (const [name, range, keep] of ranges) {
    for (const [who, path, mine] of [
      ['train', 'train/G9001', (r: Stored) => r.train_code === 'G9001'],
      ['EMU', 'emu/CR400AF-3001', (r: Stored) => r.emu_id === e1],
    ] as const) {
      it(`pages a ${who} history with ${name}: every record in range exactly once, in order`, async () => {
        const expected = records
          .filter((r) => mine(r) && keep(r))
          .sort(newestFirst)
          .map((r) => r.id);
        for (const limit of [1, 3, 7, 200]) {
          const { ids, pages } = await pageThrough(path, `limit=${limit}&${range}`);
          expect(ids, `limit ${limit}`).toEqual(expected);
          expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
        }
      });
    }
  }

  it('echoes start and end, and takes in the whole service day at either edge', async () => {
    const res = await get(`train/G9002?start=${midnight(10)}&end=${midnight(12)}&limit=200`);
    const { data } = trainSchema.parse(res.json());
    expect(data.start).toBe(midnight(10));
    expect(data.end).toBe(midnight(12));
    expect(data.items.map((i) => i.serviceDay)).toEqual([D0 + 12, D0 + 11, D0 + 10]);
    const lastSecond = trainSchema.parse(
      (await get(`train/G9002?start=${midnight(11) - 1}&end=${midnight(11) - 1}`)).json(),
    ).data;
    expect(lastSecond.items.map((i) => i.serviceDay)).toEqual([D0 + 10]);
  });

  it('finds an EMU by alias or any written form of its code and maps it to its canonical code', async () => {
    const { data } = emuSchema.parse((await get('emu/CR400AF3001?limit=2')).json());
    expect(data.emuId).toBe(e1);
    expect(data.emuCodeMappings).toEqual({ [e1]: 'CR400AF-3001' });
    // Written forms no sighting used are normalised by the registry's rules (findEmuId).
    for (const form of ['emu/cr400af-3001', 'emu/CR400AF-3001-02-03F', 'emu/cr400af3001']) {
      const res = await get(`${form}?limit=2`);
      expect(res.statusCode, form).toBe(200);
      expect(emuSchema.parse(res.json()).data.emuId, form).toBe(e1);
    }
  });

  it('reads train and EMU codes in full-width forms (Unicode NFKC) as their ASCII forms', async () => {
    const ascii = trainSchema.parse((await get('train/G9001?limit=3')).json()).data;
    const train = await get(`train/${encodeURIComponent('Ｇ９００１')}?limit=3`);
    expect(train.statusCode).toBe(200);
    expect(trainSchema.parse(train.json()).data).toEqual(ascii);
    for (const form of [
      'ＣＲ４００ＡＦ－３００１',
      'ＣＲ４００ＡＦ３００１',
      'CR400AF\u22123001',
    ]) {
      const res = await get(`emu/${encodeURIComponent(form)}?limit=2`);
      expect(res.statusCode, form).toBe(200);
      expect(emuSchema.parse(res.json()).data.emuId, form).toBe(e1);
    }
  });

  it('takes a train code case-insensitively', async () => {
    const { data } = trainSchema.parse((await get('train/g9001?limit=1')).json());
    expect(data.trainCode).toEqual({ prefix: 'G', number: 9001 });
    expect(data.items).toHaveLength(1);
  });

  it('answers a known train or EMU without records in range with an empty page, free', async () => {
    for (const path of ['train/G9003', 'emu/CR400AF-3003', `train/G9001?end=${midnight(-1)}`]) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(200);
      const body = res.json();
      expect(body.data.items, path).toEqual([]);
      expect(body.data.nextCursor).toBe('');
      expect(body.meta.cost).toBe(0);
    }
    const emu = emuSchema.parse((await get('emu/CR400AF-3003')).json()).data;
    expect(emu.emuCodeMappings).toEqual({ [e3]: 'CR400AF-3003' });
    expect(emu).not.toHaveProperty('timetableMappings');
  });

  it('answers 404 not_found, free, for an unknown train or EMU', async () => {
    for (const path of ['train/G9999', 'emu/CR400AF-9999', `emu/${encodeURIComponent('无此车')}`]) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(404);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('not_found');
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    }
  });

  it('costs 0.05 per returned record, rounded up', async () => {
    const all = records.filter((r) => r.emu_id === e1).length; // 80
    for (const [limit, cost] of [
      [20, 1],
      [21, 2],
      [200, Math.ceil(all * 0.05)],
    ] as const) {
      const res = await get(`emu/CR400AF-3001?limit=${limit}`);
      expect(res.json().meta.cost, `limit ${limit}`).toBe(cost);
      expect(res.headers['x-api-cost']).toBe(String(cost));
    }
  });

  it('needs the cost of a full page available, and charges what the page returned', async () => {
    const small = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '5' } });
    try {
      // A page of 200 reserves 10 (cut to the bucket's 5) and keeps 4 for the 80 records.
      const first = await small.inject('/api/v2/history/emu/CR400AF-3001?limit=200');
      expect(first.json().meta).toEqual({ remain: 1, cost: 4 });
      const second = await small.inject('/api/v2/history/train/G9001?limit=200');
      expect(second.statusCode).toBe(429);
      expect(second.json().error.code).toBe('rate_limited');
      expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
      const third = await small.inject('/api/v2/history/train/G9001?limit=20');
      expect(third.statusCode).toBe(200);
      expect(third.json().meta).toEqual({ remain: 0, cost: 1 });
    } finally {
      await small.close();
    }
  });

  for (const [name, query, param] of [
    ['a non-numeric start', 'start=yesterday', 'start'],
    ['a fractional end', 'end=1786291200.5', 'end'],
    ['a start past year 9999', 'start=999999999999', 'start'],
    ['a repeated start', 'start=1&start=2', 'start'],
    ['start after end', `start=${midnight(5)}&end=${midnight(5) - 1}`, 'start'],
    ['a malformed cursor', 'cursor=20000', 'cursor'],
    ['a cursor with id 0', 'cursor=20000:0', 'cursor'],
    ['limit 0', 'limit=0', 'limit'],
  ] as const) {
    for (const path of ['train/G9001', 'emu/CR400AF-3001']) {
      it(`refuses ${name} on ${path.split('/')[0]} history with 400 invalid_param naming ${param}`, async () => {
        const res = await get(`${path}?${query}`);
        expect(res.statusCode).toBe(400);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.error.code).toBe('invalid_param');
        expect(body.error.message).toMatch(new RegExp(`^${param}`));
        expect(body.meta.cost).toBe(0);
        expectQuotaHeaders(res, body.meta);
      });
    }
  }

  it('refuses a malformed train code with 400 invalid_param naming trainCode', async () => {
    const res = await get('train/G-1');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^trainCode/);
  });
});
