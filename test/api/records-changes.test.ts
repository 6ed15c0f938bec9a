import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from './helpers/api-harness.js';
import { expectQuotaHeaders } from './helpers/json-checks.js';

interface ChangesBody {
  meta: { remain: number; cost: number };
  data: {
    cursor: string;
    nextCursor: string;
    more: boolean;
    limit: number;
    items: {
      cursor: string;
      kind: string;
      cause: string;
      id: number;
      date: string;
      key: { trainCode: string; emuCode: string };
      record: { status: number; emuCode: string } | null;
    }[];
  };
  error?: { code: string; message: string };
}

describe('GET /api/v2/records/changes', () => {
  const t = useTestDatabase();
  let app: ApiApp;

  beforeAll(async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20261010', 'G800', 'CR400AF-8001', 2),
      ...sightings('20261010', 'G801', 'CR400AF-8002', 1),
      ...sightings('20261010', 'G802', 'CR400AF-8003', 1),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20261010'));
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '1000' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('pages through every change with nextCursor, anonymously, each change once', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const res = await app.inject(`/api/v2/records/changes?limit=2&cursor=${cursor}`);
      expect(res.statusCode).toBe(200);
      const body = res.json<ChangesBody>();
      expectQuotaHeaders(res, body.meta);
      for (const item of body.data.items) seen.push(`${item.kind} ${item.key.trainCode}`);
      expect(body.data.cursor).toBe(cursor);
      cursor = body.data.nextCursor;
      if (!body.data.more) break;
    }
    expect(seen.sort()).toEqual(['added G800', 'added G801', 'added G802']);
    const last = await app.inject(`/api/v2/records/changes?cursor=${cursor}`);
    expect(last.json<ChangesBody>().data).toMatchObject({
      items: [],
      nextCursor: cursor,
      more: false,
    });
  });

  it('gives each change its record, its key, its day and its cause', async () => {
    const res = await app.inject('/api/v2/records/changes?limit=1');
    const [item] = res.json<ChangesBody>().data.items;
    expect(item).toMatchObject({
      kind: 'added',
      cause: 'build',
      date: '20261010',
      key: { trainCode: 'G800', emuCode: 'CR400AF-8001' },
      record: { emuCode: 'CR400AF-8001', status: 1 },
    });
  });

  it('charges 1 per request and 0.01 per change returned, rounded up', async () => {
    const one = await app.inject('/api/v2/records/changes?limit=1');
    expect(one.headers['x-api-cost']).toBe('2');
    const all = await app.inject('/api/v2/records/changes?limit=100');
    expect(all.json<ChangesBody>().data.items).toHaveLength(3);
    expect(all.headers['x-api-cost']).toBe('2');
    const none = await app.inject(`/api/v2/records/changes?cursor=999999.1`);
    expect(none.headers['x-api-cost']).toBe('1');
  });

  it.each([
    ['x', /cursor/],
    ['1.2.3', /cursor/],
    ['-1.5', /cursor/],
  ])('answers 400 naming the cursor for %s', async (cursor, message) => {
    const res = await app.inject(`/api/v2/records/changes?cursor=${encodeURIComponent(cursor)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json<ChangesBody>().error).toMatchObject({
      code: 'invalid_param',
      message: expect.stringMatching(message),
    });
  });

  it('answers 410 cursor_expired past the retention, telling where to resynchronise', async () => {
    await t.current.db.query(
      `UPDATE record_change_positions SET changed_at = now() - interval '31 days'`,
    );
    const { pruneRecordChanges } = await import('../../src/domain/records/record-changes.js');
    await pruneRecordChanges(t.current.db, 30);
    const res = await app.inject('/api/v2/records/changes');
    expect(res.statusCode).toBe(410);
    expectQuotaHeaders(res, res.json<ChangesBody>().meta);
    expect(res.json<ChangesBody>().error).toMatchObject({
      code: 'cursor_expired',
      message: expect.stringMatching(/GET \/api\/v2\/records\/daily.*from cursor \d+\.\d+/),
    });
  });
});
