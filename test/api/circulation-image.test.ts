import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { dataEnvelope, errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { trainCirculationImageDataSchema } from '../../src/http/api/routes/circulation-image.js';
import { currentTrainTimetableDataSchema } from '../../src/http/api/routes/timetable-train.js';
import { currentCirculation } from '../../src/domain/circulation/current-circulation.js';
import { midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { seedLoop, TODAY } from '../circulation/circulation-fixture.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { makeApp } from './helpers/api-harness.js';

const imageSchema = dataEnvelope(trainCirculationImageDataSchema);
const currentSchema = dataEnvelope(currentTrainTimetableDataSchema);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** 10:00 on TODAY, Shanghai. */
const clock = () => (midnightOfServiceDay(TODAY) + 10 * 3600) * 1000;

describe('GET /api/v2/timetable/train/{trainCode}/circulation/image', () => {
  const t = useTestDatabase();
  let app: ApiApp;
  let dir: string;

  beforeAll(async () => {
    await seedLoop(t.current.db);
    // G500: a timetable, so a known train, but in no circulation.
    await ingestTimetableLines(t.current.db, [
      timetable('G500', '20260801', [
        ['北京南', undefined, '08:00'],
        ['天津南', '08:40'],
      ]),
    ]);
    app = await makeApp(t.current.db, { clock, env: { QUOTA_ANONYMOUS_CAPACITY: '1000' } });
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-image-api-'));
  });
  afterAll(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });
  const image = (train: string, query = '') =>
    get(`/api/v2/timetable/train/${train}/circulation/image${query}`);

  it('PNG: drawn at 20, then the same document at 2; imageUrl serves it for free', async () => {
    const first = await image('g13');
    expect(first.statusCode).toBe(200);
    const body = imageSchema.parse(first.json());
    expect(body.meta.cost).toBe(20);
    expect(first.headers['x-api-cost']).toBe('20');
    const png = Buffer.from(body.data.content!, 'base64');
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(body.data).toMatchObject({
      documentId: createHash('sha256').update(png).digest('hex'),
      imageUrl: `/api/v2/circulation-images/${body.data.documentId}.png`,
      binaryContentType: 'image/png',
      requestTrainCode: { prefix: 'G', number: 13 },
      trainCode: { prefix: 'G', number: 13 },
    });
    await writeFile(path.join(dir, 'G13.png'), png);

    const again = imageSchema.parse((await image('G13')).json());
    expect(again.meta.cost).toBe(2);
    expect(again.data.documentId).toBe(body.data.documentId);
    expect(again.meta.remain).toBe(body.meta.remain - 2);

    const served = await get(body.data.imageUrl);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000');
    expect(served.headers['x-api-cost']).toBe('0');
    expect(served.rawPayload.equals(png)).toBe(true);
    const notModified = await get(body.data.imageUrl, { 'if-none-match': served.headers.etag! });
    expect(notModified.statusCode).toBe(304);
  });

  it('binary=true sends the picture itself; the asked train of the same circulation is another picture', async () => {
    const raw = await image('G13', '?binary=true');
    expect(raw.statusCode).toBe(200);
    expect(raw.headers['content-type']).toBe('image/png');
    expect(raw.headers['x-api-cost']).toBe('2');
    expect(raw.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // G11's picture highlights G11: drawn anew.
    const g11 = imageSchema.parse((await image('G11')).json());
    expect(g11.meta.cost).toBe(20);
    expect(g11.data.documentId).not.toBe(raw.headers.etag!.replace(/"/g, ''));
  });

  it('PDF: a PDF with the font embedded', async () => {
    const res = await image('G13', '?format=pdf');
    const body = imageSchema.parse(res.json());
    expect(body.meta.cost).toBe(20);
    expect(body.data.binaryContentType).toBe('application/pdf');
    expect(body.data.imageUrl).toMatch(/\.pdf$/);
    const pdf = Buffer.from(body.data.content!, 'base64').toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansSC-Regular/);
    expect(pdf).toContain('/FontFile2');
    const raw = await image('G13', '?format=pdf&binary=true');
    expect(raw.headers['content-type']).toBe('application/pdf');
    expect(raw.headers['x-api-cost']).toBe('2');
  });

  it('404 for an unknown train, 422 for a known one in no circulation, 400 for a bad format; none charged', async () => {
    const unknown = await image('G9999');
    expect(unknown.statusCode).toBe(404);
    expect(errorEnvelopeSchema.parse(unknown.json())).toMatchObject({
      meta: { cost: 0 },
      error: { code: 'not_found' },
    });
    const none = await image('G500');
    expect(none.statusCode).toBe(422);
    expect(errorEnvelopeSchema.parse(none.json())).toMatchObject({
      meta: { cost: 0 },
      error: { code: 'no_circulation' },
    });
    const bad = await image('G13', '?format=gif');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_param' });
    expect(bad.json().error.message).toMatch(/^format/);
    expect((await image('G13', '?binary=yes')).statusCode).toBe(400);
    expect((await get('/api/v2/circulation-images/abc.png')).statusCode).toBe(400);
    const missing = await get(`/api/v2/circulation-images/${'0'.repeat(64)}.png`);
    expect(missing.statusCode).toBe(404);
  });

  it('502 when drawing fails, charged 2, and nothing is kept', async () => {
    const failing = await makeApp(t.current.db, {
      clock,
      env: { QUOTA_ANONYMOUS_CAPACITY: '1000' },
      pictureRenderer: async () => {
        throw new Error('renderer crashed');
      },
    });
    try {
      const res = await failing.inject('/api/v2/timetable/train/G14/circulation/image');
      expect(res.statusCode).toBe(502);
      expect(res.headers['x-api-cost']).toBe('2');
      expect(errorEnvelopeSchema.parse(res.json())).toMatchObject({
        meta: { cost: 2, remain: 998 },
        error: { code: 'render_failed' },
      });
    } finally {
      await failing.close();
    }
    const afterwards = imageSchema.parse((await image('G14')).json());
    expect(afterwards.meta.cost).toBe(20);
  });

  it('is in the OpenAPI document as GetTrainCirculationImage (Timetable), with 422, 502 and the image types', async () => {
    const doc = (await get('/api/v2/openapi.json')).json();
    const op = doc.paths['/api/v2/timetable/train/{trainCode}/circulation/image'].get;
    expect(op).toMatchObject({
      operationId: 'GetTrainCirculationImage',
      tags: ['Timetable'],
      'x-scope': 'api.timetable.train.circulation.image.read',
    });
    expect(op).not.toHaveProperty('x-binary-content');
    expect(Object.keys(op.responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '422', '429', '500', '502', '503'].sort(),
    );
    expect(Object.keys(op.responses['200'].content).sort()).toEqual([
      'application/json',
      'application/pdf',
      'image/png',
    ]);
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
      'format',
      'binary',
      'trainCode',
    ]);
    const file = doc.paths['/api/v2/circulation-images/{file}'].get;
    expect(file.operationId).toBe('GetCirculationImageDocument');
    expect(Object.keys(file.responses['200'].content).sort()).toEqual([
      'application/pdf',
      'image/png',
    ]);
  });

  it("GetCurrentTrainTimetable carries the train's current circulation, refreshed at the next inference run", async () => {
    const res = await get('/api/v2/timetable/train/G13/current');
    expect(res.statusCode).toBe(200);
    const { data } = currentSchema.parse(res.json());
    const expected = await currentCirculation(t.current.db, {
      trainCode: 'G13',
      allCodes: ['G13'],
      serviceDay: TODAY,
      // CIRCULATION_CRON 02:00 Shanghai: the next one after 10:00 is tomorrow's.
      refreshAt: midnightOfServiceDay(TODAY + 1) + 2 * 3600,
    });
    expect(data.circulation).toEqual(expected);
    expect(data.circulation?.source).toBe('inferred');
    expect(data.circulation?.nodes).toHaveLength(4);
  });
});
