import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { revokeCredential } from '../../src/domain/accounts/credentials.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { bearer, makeKey, makeUser } from './helpers/accounts.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * A kept records page is answered by the route itself (there is no second path since the
 * prepared answers went): the edge's authentication, scope and quota decide every request, the
 * page's bytes come from the cache. Kept is shown from outside: a write that moves no version
 * (records deleted in SQL) does not reach the answer until a build moves the day's version.
 * A records page is kept from its second request at a version (PageCache keep:
 * 'when-asked-again': pages of any cursor and limit asked for once are not kept).
 */
const t = useTestDatabase();
const YMD = '20261110';
const URL = `/api/v2/records/daily?date=${YMD}&limit=20`;
let serviceDay: number;

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: { meta: { remain: number; cost: number; retryAfter?: number }; data?: unknown };
}

async function get(app: ApiApp, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url: URL, headers });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: JSON.parse(res.body) as Answer['body'],
  };
}

/** Deletes the day's records without a build: only a kept page still shows them. */
async function deleteBehindTheCache(): Promise<void> {
  await t.current.db.query('DELETE FROM daily_records WHERE service_day = $1', [serviceDay]);
}

describe('kept records pages', () => {
  let app: ApiApp;
  beforeAll(async () => {
    serviceDay = await seedDay(t.current.db, YMD, busyDay(3000));
    app = await makeApp(t.current.db, {
      env: { QUOTA_ANONYMOUS_CAPACITY: '100000', CREDENTIAL_CACHE_MS: '0' },
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answer as rendered: same data, headers and charge, the level going down by the cost', async () => {
    const rendered = await get(app);
    expect(rendered.status).toBe(200);
    // Asked for again: now kept.
    expect((await get(app)).body.data).toEqual(rendered.body.data);
    await deleteBehindTheCache();
    const kept = await get(app);
    expect(kept.body.data).toEqual(rendered.body.data);
    expect(kept.body.meta.cost).toBe(1); // 20 records at 0.05
    expect(kept.body.meta.remain).toBe(rendered.body.meta.remain - 2);
    expect(kept.headers.etag).toBe(rendered.headers.etag);
    expect(kept.headers['content-type']).toBe(rendered.headers['content-type']);
    expect(Number(kept.headers['x-api-remain'])).toBe(kept.body.meta.remain);

    // A build moves the version: the next request renders the day as it now is.
    await ingestSightings(t.current.db, sightings(YMD, 'G9000', 'CR400AF-7000', 2));
    const built = await buildDailyRecords(t.current.db, serviceDay);
    expect(built.inserted).toBeGreaterThan(0);
    const after = await get(app);
    expect(JSON.stringify(after.body.data)).toContain('"number":9000');
    expect(after.headers.etag).not.toBe(rendered.headers.etag);
  });

  it('go through authentication and scope: a revoked key 401, a key without the scope 403', async () => {
    const user = await makeUser(t.current.db);
    const secret = await makeKey(t.current.db, user);
    const warm = await get(app, bearer(secret));
    expect(warm.status).toBe(200);
    const narrow = await makeKey(t.current.db, user, { scopes: ['api.auth.me.read'] });
    const refused = await get(app, bearer(narrow));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'insufficient_scope' } });
    const list = await t.current.db.query<{ revoke_id: string }>(
      `SELECT revoke_id FROM credentials WHERE user_id = $1`,
      [user.userId],
    );
    for (const row of list.rows)
      await revokeCredential(t.current.db, row.revoke_id, { userId: user.userId });
    expect((await get(app, bearer(secret))).status).toBe(401);
  });

  it('answer HEAD with no body', async () => {
    await get(app);
    const res = await app.inject({ method: 'HEAD', url: URL });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
  });
});

describe('kept records pages and a small quota', () => {
  it('refuse once the bucket is empty (429 with Retry-After)', async () => {
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
    } finally {
      await small.close();
    }
  });
});
