import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { trainPredictionDataSchema } from '../../src/http/api/routes/prediction.js';
import { midnightOfServiceDay, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { seedLoop, TODAY } from '../circulation/circulation-fixture.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { makeApp } from './helpers/api-harness.js';

const predictionSchema = dataEnvelope(trainPredictionDataSchema);
/** 09:00 on TODAY, Shanghai: the records run to the day before. */
const clock = () => (midnightOfServiceDay(TODAY) + 9 * 3600) * 1000;

describe('GET /api/v2/prediction/train/{trainCode}', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await seedLoop(t.current.db);
    await ingestTimetableLines(t.current.db, [
      timetable('G500', '20260801', [
        ['北京南', undefined, '08:00'],
        ['天津南', '08:40'],
      ]),
    ]);
    app = await makeApp(t.current.db, { clock, env: { QUOTA_ANONYMOUS_CAPACITY: '1000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (url: string) =>
    app.inject({ method: 'GET', url: `/api/v2/prediction/train/${url}` });

  it('today by default: the unit whose loop brings it to the train, with its code and confidence', async () => {
    const res = await get('g13');
    expect(res.statusCode).toBe(200);
    const { meta, data } = predictionSchema.parse(res.json());
    expect(meta.cost).toBe(1);
    expect(data).toMatchObject({
      trainCode: { prefix: 'G', number: 13 },
      serviceDay: TODAY,
      basedOnServiceDay: TODAY - 1,
      cycleDays: 2,
      reason: '',
      reasonMessage: '',
    });
    expect(data.routeId).not.toBe('');
    expect(data.items).toHaveLength(1);
    const [item] = data.items;
    expect(item).toMatchObject({
      confidence: 1,
      lastSeenServiceDay: TODAY - 1,
      lastSeenTrainCode: { prefix: 'G', number: 12 },
      daysSinceSeen: 1,
      linksAhead: 1,
    });
    expect(data.emuCodeMappings).toEqual({ [item!.emuId]: 'CR400AF-2002' });
  });

  it('a day ahead up to 7; the other unit the day after', async () => {
    const tomorrow = predictionSchema.parse(
      (await get(`G13?date=${ymdOfServiceDay(TODAY + 1)}`)).json(),
    );
    expect(Object.values(tomorrow.data.emuCodeMappings)).toEqual(['CR400AF-2001']);
    expect(tomorrow.data.basedOnServiceDay).toBe(TODAY);
    const week = await get(`G13?date=${ymdOfServiceDay(TODAY + 7)}`);
    expect(week.statusCode).toBe(200);
  });

  it('beyond 7 days, before today or a bad date: invalid_param, not charged', async () => {
    for (const date of [
      ymdOfServiceDay(TODAY + 8),
      ymdOfServiceDay(TODAY - 1),
      '2026-09-15',
      '20260231',
    ]) {
      const res = await get(`G13?date=${date}`);
      expect(res.statusCode, date).toBe(400);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.error.code).toBe('invalid_param');
      expect(body.error.message).toMatch(/^date/);
      expect(body.meta.cost).toBe(0);
    }
    expect((await get(`G13?date=${ymdOfServiceDay(TODAY + 8)}`)).json().error.message).toMatch(
      /7 days ahead/,
    );
  });

  it('404 for an unknown train; a known train without a circulation is an empty answer with its reason', async () => {
    const unknown = await get('G9999');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    expect((await get('X')).statusCode).toBe(400);
    const none = predictionSchema.parse((await get('G500')).json());
    expect(none.data).toMatchObject({
      items: [],
      routeId: '',
      cycleDays: 0,
      reason: 'no_circulation',
      emuCodeMappings: {},
    });
    expect(none.data.reasonMessage).toMatch(/G500/);
  });

  it('is in the OpenAPI document with its own operation, tag and scope', async () => {
    const doc = (await app.inject('/api/v2/openapi.json')).json();
    const op = doc.paths['/api/v2/prediction/train/{trainCode}'].get;
    expect(op).toMatchObject({
      operationId: 'GetTrainPrediction',
      tags: ['Prediction'],
      'x-scope': 'api.prediction.train.read',
    });
    expect(op.description).toMatch(/product of the forward weights/);
    expect(doc.tags.map((x: { name: string }) => x.name)).toContain('Prediction');
    expect(doc.components.schemas).toHaveProperty('GetTrainPredictionData');
  });
});
