import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from './helpers/api-harness.js';

interface Operation {
  operationId: string;
  tags: string[];
  security: Record<string, string[]>[];
  'x-scope': string;
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: unknown }>; headers?: object }
  >;
}

describe('OpenAPI document and docs', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let doc: {
    openapi: string;
    paths: Record<string, { get: Operation }>;
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };

  beforeAll(async () => {
    app = await makeApp(t.current.db);
    const res = await app.inject('/api/v2/openapi.json');
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is OpenAPI 3.1 with the operations, tags and scopes of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.entries(doc.paths)
      .filter(([, item]) => item.get)
      .map(([path, item]) => [path, item.get.operationId, item.get.tags, item.get['x-scope']]);
    expect(ops).toEqual(
      expect.arrayContaining([
        ['/api/v2/auth/me', 'GetAuthMe', ['Auth'], 'api.auth.me.read'],
        ['/api/v2/records/daily', 'GetDailyRecords', ['Records'], 'api.records.daily.read'],
        [
          '/api/v2/records/changes',
          'GetDailyRecordChanges',
          ['Records'],
          'api.records.changes.read',
        ],
        ['/api/v2/exports/daily', 'GetDailyExportIndex', ['Exports'], 'api.exports.daily.read'],
        ['/api/v2/exports/daily/{date}', 'GetDailyExport', ['Exports'], 'api.exports.daily.read'],
        [
          '/api/v2/timetable/train/{trainCode}/current',
          'GetCurrentTrainTimetable',
          ['Timetable'],
          'api.timetable.train.current.read',
        ],
        [
          '/api/v2/timetable/train/{trainCode}/history',
          'GetTrainTimetableHistory',
          ['Timetable'],
          'api.timetable.train.history.read',
        ],
        [
          '/api/v2/timetable/station/{stationName}',
          'GetStationTimetable',
          ['Timetable'],
          'api.timetable.station.read',
        ],
        [
          '/api/v2/history/train/{trainCode}',
          'GetTrainHistory',
          ['History'],
          'api.history.train.read',
        ],
        ['/api/v2/history/emu/{emuCode}', 'GetEmuHistory', ['History'], 'api.history.emu.read'],
        [
          '/api/v2/allocation/emu/{emuCode}',
          'GetEmuAllocation',
          ['Allocation'],
          'api.allocation.emu.read',
        ],
      ]),
    );
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v2/admin/corrections',
      '/api/v2/admin/corrections/{correctionId}/undo',
      '/api/v2/admin/oauth/clients',
      '/api/v2/admin/oauth/clients/{clientId}',
      '/api/v2/admin/oauth/clients/{clientId}/revoke-tokens',
      '/api/v2/admin/reports',
      '/api/v2/admin/reports/{reportId}/accept',
      '/api/v2/admin/reports/{reportId}/refuse',
      '/api/v2/allocation/emu/{emuCode}',
      '/api/v2/auth/api-keys',
      '/api/v2/auth/api-keys/{revokeId}',
      '/api/v2/auth/authorizations',
      '/api/v2/auth/authorizations/{clientId}',
      '/api/v2/auth/favorites',
      '/api/v2/auth/login',
      '/api/v2/auth/logout',
      '/api/v2/auth/me',
      '/api/v2/auth/password',
      '/api/v2/auth/register',
      '/api/v2/auth/subscriptions',
      '/api/v2/auth/subscriptions/vapid-key',
      '/api/v2/auth/subscriptions/{id}',
      '/api/v2/circulation-images/{file}',
      '/api/v2/exports/daily',
      '/api/v2/exports/daily/{date}',
      '/api/v2/history/emu/{emuCode}',
      '/api/v2/history/train/{trainCode}',
      '/api/v2/oauth/clients',
      '/api/v2/oauth/clients/{clientId}',
      '/api/v2/prediction/train/{trainCode}',
      '/api/v2/records/changes',
      '/api/v2/records/daily',
      '/api/v2/reports',
      '/api/v2/reports/{reportId}/photo',
      '/api/v2/search',
      '/api/v2/timetable/station/{stationName}',
      '/api/v2/timetable/train/{trainCode}/circulation/image',
      '/api/v2/timetable/train/{trainCode}/current',
      '/api/v2/timetable/train/{trainCode}/history',
      '/api/v2/webhooks',
      '/api/v2/webhooks/{id}',
      '/api/v2/webhooks/{id}/deliveries',
      '/api/v2/webhooks/{id}/rotate-secret',
    ]);
    const records = doc.paths['/api/v2/records/daily']!.get;
    expect(records.security).toEqual([
      {},
      { bearerAuth: ['api.records.daily.read'] },
      { cookieAuth: ['api.records.daily.read'] },
    ]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'bearerAuth',
      'cookieAuth',
    ]);
  });

  it('documents ok on every envelope: true with data and an empty error, false with error', () => {
    const resolve = (schema: { $ref?: string } & Record<string, unknown>) =>
      schema.$ref
        ? (doc.components as unknown as { schemas: Record<string, Record<string, unknown>> })
            .schemas[schema.$ref.split('/').pop()!]!
        : schema;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item as Record<string, { responses?: unknown }>)) {
        const responses = (op.responses ?? {}) as Record<
          string,
          { content?: Record<string, { schema: Record<string, unknown> }> }
        >;
        for (const [status, response] of Object.entries(responses)) {
          const json = response.content?.['application/json']?.schema;
          if (!json) continue;
          const body = resolve(json) as {
            properties?: Record<string, { const?: unknown }>;
            required?: string[];
          };
          expect(body.properties?.ok, `${path} ${status}`).toBeDefined();
          expect(body.required, `${path} ${status}`).toContain('ok');
          expect(body.required, `${path} ${status}`).toContain('meta');
          const ok = resolve(body.properties!.ok! as Record<string, unknown>) as {
            enum?: unknown[];
            const?: unknown;
          };
          expect(ok.enum ?? [ok.const], `${path} ${status}`).toEqual([status.startsWith('2')]);
          if (status.startsWith('2')) {
            expect(resolve(body.properties!.error! as Record<string, unknown>)).toMatchObject({
              enum: [''],
            });
          }
        }
      }
    }
  });

  it('documents the parameters from the same zod schemas that validate them', () => {
    const params = doc.paths['/api/v2/records/daily']!.get.parameters!;
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual([
      ['date', 'query', true],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(params[0]!.schema).toMatchObject({ type: 'string', pattern: '^[0-9]{8}$' });
    expect(params[1]!.schema).toMatchObject({ type: 'integer', minimum: 1 });
    const history = doc.paths['/api/v2/history/emu/{emuCode}']!.get.parameters!;
    expect(history.map((p) => [p.name, p.in, p.required])).toEqual([
      ['start', 'query', false],
      ['end', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
      ['emuCode', 'path', true],
    ]);
    expect(history[0]!.schema).toMatchObject({ type: 'integer' });
    const exportParams = doc.paths['/api/v2/exports/daily/{date}']!.get.parameters!;
    expect(exportParams.map((p) => [p.name, p.in])).toEqual([
      ['binary', 'query'],
      ['date', 'path'],
    ]);
  });

  it('documents the envelope, the errors, the quota headers, 304 and the CSV', () => {
    const records = doc.paths['/api/v2/records/daily']!.get;
    expect(Object.keys(records.responses).sort()).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(records.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(records.responses['401']!.description).toMatch(/invalid_api_key/);
    expect(records.responses['403']!.description).toMatch(/insufficient_scope/);
    expect(records.responses['200']!.headers).toHaveProperty('x-api-remain');
    const ok = records.responses['200']!.content!['application/json']!.schema;
    expect(ok).toMatchObject({
      properties: {
        meta: { $ref: '#/components/schemas/ApiMeta' },
        data: { $ref: '#/components/schemas/GetDailyRecordsData' },
      },
    });
    expect(doc.components.schemas['DailyRecordItem']).toMatchObject({
      required: ['id', 'serviceDay', 'emuId', 'status'],
    });
    for (const [name, required] of [
      ['TrainHistoryRecord', ['id', 'serviceDay', 'emuId', 'status']],
      ['EmuHistoryRecord', ['id', 'serviceDay', 'status']],
      [
        'TrainTimetableHistoryCoverage',
        ['coverageId', 'timetableId', 'serviceDayStart', 'serviceDayEndExclusive'],
      ],
      ['StationTimetableRecord', ['allCodes', 'startStation', 'endStation', 'referenceModels']],
    ] as const) {
      expect(doc.components.schemas[name], name).toMatchObject({ required });
    }
    expect(doc.components.schemas).toHaveProperty('TrainCirculation');
    const download = doc.paths['/api/v2/exports/daily/{date}']!.get.responses;
    expect(download['200']!.content).toHaveProperty('text/csv');
    expect(download).toHaveProperty('304');
    // Every cached read documents its 304 (http-caching.ts), and the marker does not leak.
    for (const p of ['/api/v2/history/train/{trainCode}', '/api/v2/allocation/emu/{emuCode}'])
      expect(doc.paths[p]!.get.responses, p).toHaveProperty('304');
    expect(JSON.stringify(doc)).not.toContain('x-cache');
    // Every $ref resolves, and nothing unused is left in the components.
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(doc.components.schemas).toHaveProperty(name!);
    }
    expect(Object.keys(doc.components.schemas).some((n) => n.endsWith('Input'))).toBe(false);
  });

  it('serves the interactive docs at /docs', async () => {
    let res = await app.inject('/docs');
    if (res.statusCode === 302) res = await app.inject(res.headers.location as string);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('swagger');
  });

  it('answers /healthz and /readyz', async () => {
    expect((await app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', postgres: 'ok', redis: 'not configured' });
  });
});
