import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { stationTimetableDataSchema } from '../../src/http/api/routes/timetable-station.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { makeApp } from './helpers/api-harness.js';
import { refreshReferenceModels } from '../../src/domain/records/reference-models.js';
import { LAST_DAY, loadFixtureWeek, shanghaiClock } from './helpers/fixture-week.js';
import { expectNoNulls, expectQuotaHeaders } from './helpers/json-checks.js';

const successSchema = dataEnvelope(stationTimetableDataSchema);

const DAY = serviceDayFromYmd('20260814');
const at = (day: number, h: number, m: number) => midnightOfServiceDay(day) + h * 3600 + m * 60;

const HONGQIAO = encodeURIComponent('上海虹桥');
const LOOP = encodeURIComponent('环线站');

/** "G102" for an item's trainCode. */
const code = (item: { trainCode?: { prefix: string; number: number } }) =>
  item.trainCode ? `${item.trainCode.prefix}${item.trainCode.number}` : '?';

describe('GET /api/v2/timetable/station/{stationName}', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await loadFixtureWeek(t.current.db);
    // 环线站: a tie at 08:00 between an arrival and a departure from the origin, an earlier
    // arrival, and a loop train calling twice.
    await ingestTimetableLines(t.current.db, [
      timetable('C101', '20260701', [
        ['甲', undefined, '07:30'],
        ['环线站', '08:00', '08:02'],
        ['乙', '08:30', undefined],
      ]),
      timetable('C102', '20260701', [
        ['环线站', undefined, '08:00'],
        ['乙', '08:40', undefined],
      ]),
      timetable('C103', '20260701', [
        ['甲', undefined, '07:00'],
        ['环线站', '07:59', undefined],
      ]),
      timetable('C104', '20260701', [
        ['环线站', undefined, '06:00'],
        ['甲', '06:30', '06:32'],
        ['环线站', '07:00', undefined],
      ]),
    ]);
    app = await makeApp(t.current.db, {
      clock: shanghaiClock('20260814'),
      env: { QUOTA_ANONYMOUS_CAPACITY: '100000' },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (station: string, query = '') =>
    app.inject({
      method: 'GET',
      url: `/api/v2/timetable/station/${station}${query ? `?${query}` : ''}`,
    });

  it("lists today's trains by arrival, an origin by its departure, in the envelope", async () => {
    const res = await get(HONGQIAO);
    expect(res.statusCode).toBe(200);
    const body = successSchema.parse(res.json());
    expectNoNulls(res.json());
    // 7 trains x 0.05 = 0.35, rounded up (G9's timetable is the fixtures' bad line: refused).
    expect(body.meta.cost).toBe(1);
    expectQuotaHeaders(res, body.meta);
    const { data } = body;
    expect(data).toMatchObject({ stationName: '上海虹桥', cursor: '', limit: 20, nextCursor: '' });
    expect(data.items.map(code)).toEqual(['G102', 'G1', 'G2', 'G7', 'G8', 'G1357', 'D3125']);
    const [g102, g1, g2] = data.items;
    expect(g102).toEqual({
      allCodes: [{ prefix: 'G', number: 102 }],
      startStation: '上海虹桥',
      endStation: '北京南',
      referenceModels: [{ model: 'CR400BF-A', weightedShare: 1 }],
      trainCode: { prefix: 'G', number: 102 },
      departAt: at(DAY, 6, 26),
      updatedAt: g102!.updatedAt,
    });
    expect(g1).toMatchObject({ arriveAt: at(DAY, 11, 29), platformNo: 19 });
    expect(g1).not.toHaveProperty('departAt');
    expect(g2).toMatchObject({ departAt: at(DAY, 13, 0), platformNo: 16 });
    expect(g2).not.toHaveProperty('arriveAt');
    expect(data.items[6]).toMatchObject({ departAt: at(DAY, 21, 40), platformNo: 12 });
  });

  it('pages with <serviceDay>:<timetableId> cursors: every train once, "" after the last', async () => {
    const all = successSchema.parse((await get(HONGQIAO)).json()).data.items.map(code);
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 1; ; pages++) {
      const res = await get(HONGQIAO, `limit=3&cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode).toBe(200);
      const { data, meta } = successSchema.parse(res.json());
      expect(data.cursor).toBe(cursor);
      expect(data.limit).toBe(3);
      expect(meta.cost).toBe(1);
      seen.push(...data.items.map(code));
      if (data.nextCursor === '') {
        expect(pages).toBe(3);
        break;
      }
      expect(data.nextCursor).toMatch(new RegExp(`^${DAY}:[0-9]+$`));
      cursor = data.nextCursor;
    }
    expect(seen).toEqual(all);
  });

  it('breaks ties by timetableId and lists a train calling twice at its first call', async () => {
    const { data } = successSchema.parse((await get(LOOP)).json());
    expect(data.items.map(code)).toEqual(['C104', 'C103', 'C101', 'C102']);
    expect(data.items[0]).toMatchObject({ departAt: at(DAY, 6, 0) });
    expect(data.items[0]).not.toHaveProperty('arriveAt');
    // Paging through the tie: each of C101 and C102 once.
    const first = successSchema.parse((await get(LOOP, 'limit=3')).json()).data;
    const second = successSchema.parse(
      (await get(LOOP, `limit=3&cursor=${first.nextCursor}`)).json(),
    ).data;
    expect([...first.items, ...second.items].map(code)).toEqual(['C104', 'C103', 'C101', 'C102']);
  });

  it('lists a paired run once, under the number it carries at the station', async () => {
    const { data } = successSchema.parse((await get(encodeURIComponent('襄阳东'))).json());
    expect(data.items).toHaveLength(1);
    expect(data.items[0]).toMatchObject({
      trainCode: { prefix: 'G', number: 4337 },
      allCodes: [
        { prefix: 'G', number: 4340 },
        { prefix: 'G', number: 4337 },
      ],
      arriveAt: at(DAY, 11, 2),
      departAt: at(DAY, 11, 5),
      referenceModels: [{ model: 'CRH380A', weightedShare: 1 }],
    });
  });

  it("gives a cross-midnight train's call after midnight as the next calendar day, after the day's others", async () => {
    const { data } = successSchema.parse((await get(encodeURIComponent('蚌埠南'))).json());
    expect(data.items.map(code)).toEqual(['G102', 'D3125']);
    expect(data.items[1]).toMatchObject({ arriveAt: at(DAY + 1, 1, 10) });
  });

  it('follows the timetable in force today (G1 arrives 11:24 from 08-15)', async () => {
    const later = await makeApp(t.current.db, { clock: shanghaiClock('20260815', 6, 0) });
    try {
      const { data } = successSchema.parse(
        (await later.inject(`/api/v2/timetable/station/${HONGQIAO}`)).json(),
      );
      expect(data.items.find((i) => code(i) === 'G1')).toMatchObject({
        arriveAt: at(DAY + 1, 11, 24),
      });
    } finally {
      await later.close();
    }
  });

  it("continues yesterday's board from yesterday's cursor (a board paged across midnight)", async () => {
    const yesterday = await makeApp(t.current.db, { clock: shanghaiClock('20260813', 23, 59) });
    let cursor: string;
    try {
      const { data } = successSchema.parse(
        (await yesterday.inject(`/api/v2/timetable/station/${HONGQIAO}?limit=2`)).json(),
      );
      cursor = data.nextCursor;
      expect(cursor.startsWith(`${DAY - 1}:`)).toBe(true);
    } finally {
      await yesterday.close();
    }
    const { data } = successSchema.parse((await get(HONGQIAO, `limit=2&cursor=${cursor}`)).json());
    expect(data.items.map(code)).toEqual(['G2', 'G7']);
    expect(data.items[0]!.departAt).toBe(at(DAY - 1, 13, 0));
    expect(data.nextCursor.startsWith(`${DAY - 1}:`)).toBe(true);
  });

  it('shows a new timetable version at once, though the board was read before (kept boards follow coverage)', async () => {
    const board = async () =>
      successSchema.parse((await get(encodeURIComponent('新站'))).json()).data.items;
    const c201 = (validFrom: string, depart: string) =>
      timetable('C201', validFrom, [
        ['新站', undefined, depart],
        ['终点', '23:00', undefined],
      ]);
    await ingestTimetableLines(t.current.db, [c201('20260701', '09:00')], 'c201-a.ndjson');
    expect((await board()).map((i) => i.departAt)).toEqual([at(DAY, 9, 0)]);
    expect((await board()).map((i) => i.departAt)).toEqual([at(DAY, 9, 0)]);
    // A correction in force from today: the same app answers with it on the next request.
    await ingestTimetableLines(t.current.db, [c201('20260814', '09:30')], 'c201-b.ndjson');
    expect((await board()).map((i) => i.departAt)).toEqual([at(DAY, 9, 30)]);
    // A second train arrives at the station: listed too, in time order.
    await ingestTimetableLines(
      t.current.db,
      [
        timetable('C202', '20260701', [
          ['起点', undefined, '08:00'],
          ['新站', '08:40', undefined],
        ]),
      ],
      'c202.ndjson',
    );
    expect((await board()).map(code)).toEqual(['C202', 'C201']);
  });

  it('shows new reference models at once after a refresh, though they were kept (kept models follow the refresh)', async () => {
    const g102 = async () =>
      successSchema.parse((await get(HONGQIAO)).json()).data.items.find((i) => code(i) === 'G102')!
        .referenceModels;
    expect(await g102()).toEqual([{ model: 'CR400BF-A', weightedShare: 1 }]);
    expect(await g102()).toEqual([{ model: 'CR400BF-A', weightedShare: 1 }]);
    await t.current.db.query(
      `UPDATE train_reference_models SET weighted_share = 0.5 WHERE train_code = 'G102'`,
    );
    expect(await g102()).toEqual([{ model: 'CR400BF-A', weightedShare: 0.5 }]);
    await refreshReferenceModels(t.current.db, { windowEnd: LAST_DAY });
    expect(await g102()).toEqual([{ model: 'CR400BF-A', weightedShare: 1 }]);
  });

  it('answers a known station without trains today with an empty page, free', async () => {
    const early = await makeApp(t.current.db, { clock: shanghaiClock('20260601') });
    try {
      const res = await early.inject(`/api/v2/timetable/station/${HONGQIAO}`);
      expect(res.statusCode).toBe(200);
      const body = successSchema.parse(res.json());
      expect(body.data.items).toEqual([]);
      expect(body.data.nextCursor).toBe('');
      expect(body.meta.cost).toBe(0);
    } finally {
      await early.close();
    }
  });

  it('answers 404 not_found, free, for a station no timetable stops at', async () => {
    for (const name of ['不存在', '上海虹桥站', encodeURIComponent(' 上海虹桥')]) {
      const res = await get(encodeURIComponent(decodeURIComponent(name)));
      expect(res.statusCode, name).toBe(404);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('not_found');
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    }
  });

  it('cuts a limit above 200 to 200', async () => {
    const { data } = successSchema.parse((await get(HONGQIAO, 'limit=5000')).json());
    expect(data.limit).toBe(200);
  });

  for (const [name, query, param] of [
    ['limit 0', 'limit=0', 'limit'],
    ['a negative limit', 'limit=-3', 'limit'],
    ['a fractional limit', 'limit=2.5', 'limit'],
    ['a malformed cursor', 'cursor=abc', 'cursor'],
    ['a cursor of another day', `cursor=${DAY - 5}:1`, 'cursor'],
    ['a cursor of tomorrow', `cursor=${DAY + 1}:1`, 'cursor'],
    ['a cursor naming a train not at the station', `cursor=${DAY}:999999`, 'cursor'],
    ['a cursor id past the integer range', `cursor=${DAY}:99999999999`, 'cursor'],
    ['a repeated limit', 'limit=2&limit=3', 'limit'],
  ] as const) {
    it(`refuses ${name} with 400 invalid_param naming ${param}`, async () => {
      const res = await get(HONGQIAO, query);
      expect(res.statusCode).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(new RegExp(`^${param}`));
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    });
  }

  for (const segment of ['%20', '%00', `${HONGQIAO}%1F`]) {
    it(`refuses the station name ${segment} with 400 invalid_param naming stationName`, async () => {
      const res = await get(segment);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toMatch(/^stationName/);
    });
  }
});
