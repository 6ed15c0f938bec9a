import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/api/app.js';
import { revokeCredential } from '../../src/accounts/credentials.js';
import { buildDailyRecords } from '../../src/records/build-daily-records.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Kept records pages answered in the edge's first hook (prepared-answers.ts): the same answer
 * as the route's, with no round trip, and everything else left to the route.
 */
const t = useTestDatabase();
const YMD = '20261110';
const URL = `/api/v2/records/daily?date=${YMD}&limit=20`;
let serviceDay: number;

beforeAll(async () => {
  serviceDay = await seedDay(t.current.db, YMD, busyDay(3000));
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: { meta: { remain: number; cost: number; retryAfter?: number }; data?: unknown };
}

async function get(app: ApiApp, url = URL, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url, headers });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: JSON.parse(res.body) as Answer['body'],
  };
}

/** Requests `url` until the edge answers it from the kept page (the version feed trusts the day). */
async function untilPrepared(app: ApiApp, url = URL, headers: Record<string, string> = {}) {
  const prepared = app.emutrackEdge.prepared!;
  for (let i = 0; i < 500; i++) {
    const before = prepared.answered;
    const answer = await get(app, url, headers);
    if (prepared.answered > before) return answer;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never answered from a prepared page');
}

describe('prepared answers', () => {
  let app: ApiApp;
  beforeAll(async () => {
    app = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '100000' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answer as the route does: same data, headers and charge, the level going down by the cost', async () => {
    const routed = await get(app);
    expect(routed.status).toBe(200);
    const prepared = await untilPrepared(app);
    expect(prepared.status).toBe(200);
    expect(prepared.body.data).toEqual(routed.body.data);
    expect(prepared.body.meta.cost).toBe(routed.body.meta.cost);
    expect(prepared.body.meta.cost).toBe(1); // 20 records at 0.05
    for (const name of ['content-type', 'x-api-remain', 'x-api-cost', 'x-request-id']) {
      expect(prepared.headers[name], name).toBeDefined();
    }
    expect(prepared.headers['content-type']).toBe(routed.headers['content-type']);
    expect(Number(prepared.headers['x-api-remain'])).toBe(prepared.body.meta.remain);
    const next = await get(app);
    expect(next.body.meta.remain).toBe(prepared.body.meta.remain - 1);
    // A request id sent by the client is kept, as on every answer.
    const withId = await app.inject({
      method: 'GET',
      url: URL,
      headers: { 'x-request-id': 'abc-1' },
    });
    expect(withId.headers['x-request-id']).toBe('abc-1');
  });

  it('serve a changed day at once after the build that changed it commits', async () => {
    await untilPrepared(app);
    for (let round = 0; round < 3; round++) {
      await ingestSightings(
        t.current.db,
        sightings(YMD, `G${9000 + round}`, `CR400AF-${7000 + round}`, 2),
      );
      const built = await buildDailyRecords(t.current.db, serviceDay);
      expect(built.inserted).toBe(1);
      const after = await get(app);
      const codes = JSON.stringify(after.body.data);
      expect(codes).toContain(`"number":${9000 + round}`);
    }
  });

  it('answer a bearer key whose credential is cached, and leave a revoked one to the route (401)', async () => {
    const user = await makeUser(t.current.db);
    const secret = await makeKey(t.current.db, user);
    const answer = await untilPrepared(app, URL, bearer(secret));
    expect(answer.status).toBe(200);
    const list = await t.current.db.query<{ revoke_id: string }>(
      `SELECT revoke_id FROM credentials WHERE user_id = $1`,
      [user.userId],
    );
    await revokeCredential(t.current.db, list.rows[0]!.revoke_id, { userId: user.userId });
    // Another process revoked it: seen within the credential cache's second.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const refused = await get(app, URL, bearer(secret));
    expect(refused.status).toBe(401);
  });

  it('leave a credential without the scope to the route (403 insufficient_scope)', async () => {
    const user = await makeUser(t.current.db);
    const secret = await makeKey(t.current.db, user, { scopes: ['api.auth.me.read'] });
    await untilPrepared(app);
    for (let i = 0; i < 3; i++) {
      const refused = await get(app, URL, bearer(secret));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: 'insufficient_scope' } });
    }
  });

  it('leave HEAD to the route', async () => {
    await untilPrepared(app);
    const before = app.emutrackEdge.prepared!.answered;
    const res = await app.inject({ method: 'HEAD', url: URL });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(app.emutrackEdge.prepared!.answered).toBe(before);
  });
});

describe('prepared answers and the request metrics', () => {
  it('are counted like every answer (the onResponse hooks still run)', async () => {
    const token = 'metrics-token-for-prepared-answers';
    const app = await makeApp(t.current.db, {
      env: { QUOTA_ANONYMOUS_CAPACITY: '100000', METRICS_TOKEN: token },
    });
    try {
      await untilPrepared(app);
      const before = app.emutrackEdge.prepared!.answered;
      for (let i = 0; i < 20; i++) await get(app);
      expect(app.emutrackEdge.prepared!.answered - before).toBeGreaterThan(10);
      const metrics = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
      const count =
        /emutrack_http_request_duration_seconds_count\{operation="GetDailyRecords",method="GET",status="200"\} (\d+)/.exec(
          metrics.body,
        );
      const answered = app.emutrackEdge.prepared!.answered;
      expect(Number(count?.[1])).toBeGreaterThanOrEqual(answered + 1);
    } finally {
      await app.close();
    }
  });
});

describe('prepared answers and a small quota', () => {
  it('refuse as the route does once the bucket is empty (429 with Retry-After)', async () => {
    const small = await makeApp(t.current.db, { env: { QUOTA_ANONYMOUS_CAPACITY: '40' } });
    try {
      const statuses: number[] = [];
      let last: Answer | undefined;
      for (let i = 0; i < 45; i++) {
        last = await get(small);
        statuses.push(last.status);
        if (last.status === 429) break;
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(last!.status).toBe(429);
      expect(last!.body).toMatchObject({ meta: { remain: 0, cost: 0 } });
      expect(last!.body.meta.retryAfter).toBeGreaterThan(0);
      expect(small.emutrackEdge.prepared!.answered).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });
});
