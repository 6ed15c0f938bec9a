import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import {
  currentTrainTimetableDataSchema,
  trainTimetableHistoryDataSchema,
} from '../../src/http/api/routes/timetable-train.js';
import type {
  TrainCirculation,
  TrainCirculationProvider,
} from '../../src/http/api/train-circulation-schema.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { loadFixtureWeek, shanghaiClock } from './helpers/fixture-week.js';
import { expectNoNulls, expectQuotaHeaders } from './helpers/json-checks.js';
import { makeApp } from './helpers/api-harness.js';

const currentSchema = dataEnvelope(currentTrainTimetableDataSchema);
const historySchema = dataEnvelope(trainTimetableHistoryDataSchema);

const DAY = serviceDayFromYmd('20260814');
const MIDNIGHT = midnightOfServiceDay(DAY);
const hm = (h: number, m: number) => MIDNIGHT + h * 3600 + m * 60;

describe('GET /api/v2/timetable/train/{trainCode}/current and /history', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await loadFixtureWeek(t.current.db);
    // G5: three versions, the third a return to the first content (its timetableId again).
    const g5 = (validFrom: string, arrive: string) =>
      timetable('G5', validFrom, [
        ['北京南', undefined, '07:00'],
        ['上海虹桥', arrive, undefined],
      ]);
    await ingestTimetableLines(t.current.db, [
      g5('20260701', '11:30'),
      g5('20260801', '11:40'),
      g5('20260901', '11:30'),
      // G6 starts running in October: known, but not in force on 08-14.
      timetable('G6', '20261001', [
        ['上海虹桥', undefined, '07:00'],
        ['北京南', '11:30', undefined],
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

  const get = (url: string) => app.inject({ method: 'GET', url: `/api/v2/timetable/train/${url}` });

  it("answers today's timetable of a paired number with the run's timetable, as asked and as resolved", async () => {
    const res = await get('G4337/current');
    expect(res.statusCode).toBe(200);
    const body = currentSchema.parse(res.json());
    expect(body.meta).toEqual({ remain: 100000 - 1, cost: 1 });
    expectQuotaHeaders(res, body.meta);
    expectNoNulls(res.json());
    const { data } = body;
    expect(data.requestTrainCode).toEqual({ prefix: 'G', number: 4337 });
    expect(data.trainCode).toEqual({ prefix: 'G', number: 4340 });
    expect(data.allCodes).toEqual([
      { prefix: 'G', number: 4340 },
      { prefix: 'G', number: 4337 },
    ]);
    expect(data).toMatchObject({
      internalCode: '4e000G434002',
      bureauCode: 'N',
      bureauName: '武汉局',
      trainDepartment: '武汉动车段',
      passengerDepartment: '武汉客运段',
      startStation: '汉口',
      endStation: '宜昌东',
      serviceDay: DAY,
      startAt: hm(9, 15),
      endAt: hm(12, 40),
    });
    expect(data.circulation).toBeUndefined();
    expect(data.updatedAt).toBeTypeOf('number');
    // The fixture week's records of G4340/G4337 were all run by CRH380A units.
    expect(data.referenceModels).toEqual([{ model: 'CRH380A', weightedShare: 1 }]);
    expect(data.stops).toHaveLength(6);
    expect(data.stops[0]).toEqual({
      stationNo: 1,
      stationName: '汉口',
      wicket: '检票口5',
      isStart: true,
      isEnd: false,
      departAt: hm(9, 15),
      stationTrainCode: { prefix: 'G', number: 4340 },
      distance: 0,
    });
    expect(data.stops[3]).toEqual({
      stationNo: 4,
      stationName: '襄阳东',
      wicket: '',
      isStart: false,
      isEnd: false,
      arriveAt: hm(11, 2),
      departAt: hm(11, 5),
      stationTrainCode: { prefix: 'G', number: 4337 },
      distance: 288,
    });
    expect(data.stops[5]).toMatchObject({ isStart: false, isEnd: true, arriveAt: hm(12, 40) });
    expect(data.stops[5]).not.toHaveProperty('departAt');
  });

  it('takes train codes case-insensitively and normalises them', async () => {
    const lower = currentSchema.parse((await get('g4340/current')).json()).data;
    expect(lower.requestTrainCode).toEqual({ prefix: 'G', number: 4340 });
    expect(lower.trainCode).toEqual({ prefix: 'G', number: 4340 });
    const history = historySchema.parse((await get('g1/history')).json()).data;
    expect(history.trainCode).toEqual({ prefix: 'G', number: 1 });
  });

  it('gives times past midnight as the next calendar day, platform and wicket as the timetable has them', async () => {
    const { data } = currentSchema.parse((await get('D3125/current')).json());
    expect(data.startAt).toBe(hm(21, 40));
    expect(data.endAt).toBe(hm(25, 10));
    expect(data.stops[0]).toMatchObject({
      wicket: '检票口B3',
      platformNo: 12,
      departAt: hm(21, 40),
    });
    expect(data.stops.find((s) => s.stationName === '滁州')).toMatchObject({
      arriveAt: hm(24, 5),
      departAt: hm(24, 7),
    });
  });

  it('follows the clock: the timetable in force on the service day of "now" in Shanghai', async () => {
    // G1's second version (arrival 11:24 instead of 11:29) is in force from 08-15.
    const at = async (ymd: string, h: number, m: number) => {
      const other = await makeApp(t.current.db, { clock: shanghaiClock(ymd, h, m) });
      try {
        return currentSchema.parse(
          (await other.inject('/api/v2/timetable/train/G1/current')).json(),
        ).data;
      } finally {
        await other.close();
      }
    };
    const before = await at('20260814', 23, 59);
    expect(before.serviceDay).toBe(DAY);
    expect(before.endAt).toBe(hm(11, 29));
    const after = await at('20260815', 0, 0);
    expect(after.serviceDay).toBe(DAY + 1);
    expect(after.endAt).toBe(midnightOfServiceDay(DAY + 1) + 11 * 3600 + 24 * 60);
  });

  it('passes the resolved train to the circulation provider and carries what it answers', async () => {
    const circulation: TrainCirculation = {
      source: 'inferred',
      nodes: [
        {
          internalCode: '4e000G434002',
          allCodes: [{ prefix: 'G', number: 4340 }],
          startStation: '汉口',
          endStation: '宜昌东',
          startAt: hm(9, 15),
          endAt: hm(12, 40),
        },
      ],
      metadata: { routeId: 'r1', containsLoopBreak: false, validationState: 'unspecified' },
    };
    const asked: unknown[] = [];
    const circulations: TrainCirculationProvider = {
      circulationOf: async (train) => {
        asked.push(train);
        return train.trainCode === 'G4340' ? circulation : undefined;
      },
    };
    const withCirculations = await makeApp(t.current.db, {
      clock: shanghaiClock('20260814'),
      circulations,
    });
    try {
      const res = await withCirculations.inject('/api/v2/timetable/train/G4337/current');
      expect(currentSchema.parse(res.json()).data.circulation).toEqual(circulation);
      expect(asked).toEqual([
        { trainCode: 'G4340', allCodes: ['G4340', 'G4337'], serviceDay: DAY },
      ]);
      const none = await withCirculations.inject('/api/v2/timetable/train/G1/current');
      expect(none.json().data).not.toHaveProperty('circulation');
    } finally {
      await withCirculations.close();
    }
  });

  it('answers 404 not_found, free, for a number without a timetable in force today', async () => {
    for (const code of ['G9999', 'G6']) {
      const res = await get(`${code}/current`);
      expect(res.statusCode, code).toBe(404);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain(code);
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    }
  });

  it('lists every coverage newest first, the open one ending at 0, with each timetable in full', async () => {
    const res = await get('G1/history');
    expect(res.statusCode).toBe(200);
    const body = historySchema.parse(res.json());
    expectNoNulls(res.json());
    // 1 + 2 x 0.05, rounded up.
    expect(body.meta.cost).toBe(2);
    expectQuotaHeaders(res, body.meta);
    const { items, timetableMappings } = body.data;
    expect(items.map((i) => [i.serviceDayStart, i.serviceDayEndExclusive])).toEqual([
      [serviceDayFromYmd('20260815'), 0],
      [serviceDayFromYmd('20260701'), serviceDayFromYmd('20260815')],
    ]);
    expect(new Set(items.map((i) => i.coverageId)).size).toBe(2);
    expect(Object.keys(timetableMappings!).sort()).toEqual(
      items.map((i) => String(i.timetableId)).sort(),
    );
    const newest = timetableMappings![String(items[0]!.timetableId)]!;
    expect(newest).toMatchObject({
      timetableId: items[0]!.timetableId,
      startStation: '北京南',
      endStation: '上海虹桥',
      startOffset: 7 * 3600,
      endOffset: 11 * 3600 + 24 * 60,
    });
    expect(newest.stops[0]).toEqual({
      stationNo: 1,
      stationName: '北京南',
      isStart: true,
      isEnd: false,
      departOffset: 7 * 3600,
    });
    expect(newest.stops[4]).toEqual({
      stationNo: 5,
      stationName: '上海虹桥',
      isStart: false,
      isEnd: true,
      arriveOffset: 11 * 3600 + 24 * 60,
    });
  });

  it('shows a return to an earlier content as a new coverage with the earlier timetableId', async () => {
    const { data, meta } = historySchema.parse((await get('G5/history')).json());
    expect(meta.cost).toBe(2); // 1 + 3 x 0.05 = 1.15
    expect(data.items.map((i) => i.serviceDayStart)).toEqual([
      serviceDayFromYmd('20260901'),
      serviceDayFromYmd('20260801'),
      serviceDayFromYmd('20260701'),
    ]);
    expect(data.items[0]!.timetableId).toBe(data.items[2]!.timetableId);
    expect(data.items[1]!.timetableId).not.toBe(data.items[0]!.timetableId);
    expect(data.items[1]!.serviceDayEndExclusive).toBe(serviceDayFromYmd('20260901'));
    expect(Object.keys(data.timetableMappings!)).toHaveLength(2);
  });

  it("gives a paired number's own coverage, pointing at its run's timetable", async () => {
    const { data } = historySchema.parse((await get('G4337/history')).json());
    expect(data.trainCode).toEqual({ prefix: 'G', number: 4337 });
    expect(data.items).toHaveLength(1);
    const content = data.timetableMappings![String(data.items[0]!.timetableId)]!;
    expect(content.stops.map((s) => s.stationTrainCode?.number)).toEqual([
      4340, 4340, 4340, 4337, 4337, 4337,
    ]);
  });

  it('costs 1 + 0.05 per coverage rounded up: 21 coverages cost 3', async () => {
    const versions = Array.from({ length: 21 }, (_, i) =>
      timetable('G77', `202601${String(i + 1).padStart(2, '0')}`, [
        ['甲', undefined, '08:00'],
        ['乙', `${String(9 + (i % 2)).padStart(2, '0')}:00`, undefined],
      ]),
    );
    await ingestTimetableLines(t.current.db, versions, 'g77.ndjson');
    const { data, meta } = historySchema.parse((await get('G77/history')).json());
    expect(data.items).toHaveLength(21);
    expect(meta.cost).toBe(3); // 1 + 1.05
  });

  it('answers 404 not_found for a number that never had a timetable', async () => {
    const res = await get('G9999/history');
    expect(res.statusCode).toBe(404);
    const body = errorEnvelopeSchema.parse(res.json());
    expect(body.error.code).toBe('not_found');
    expect(body.meta.cost).toBe(0);
  });

  for (const [name, path] of [
    ['a malformed number', 'G12A/current'],
    ['two numbers', 'G1G2/history'],
    ['a leading zero', 'G0123/current'],
    ['a paired form', 'G4340%2F37/current'],
    ['too many digits', 'G123456/history'],
  ] as const) {
    it(`refuses ${name} with 400 invalid_param naming trainCode`, async () => {
      const res = await get(path);
      expect(res.statusCode).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(/^trainCode/);
      expect(body.meta.cost).toBe(0);
      expectQuotaHeaders(res, body.meta);
    });
  }
});
