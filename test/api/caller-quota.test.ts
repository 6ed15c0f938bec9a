import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { serviceDayOf, midnightOfServiceDay } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { makeKey, makeUser } from './helpers/accounts.js';
import { deleteKeys, makeApp, testConfig, testRedis } from './helpers/api-harness.js';

interface PlainResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { meta: { remain: number; cost: number; retryAfter?: number }; error?: { code: string } };
}

/** One GET with a bearer key on its own TCP connection: truly concurrent requests. */
function getWithKey(port: number, path: string, key: string): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path, agent: false, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("signed-in callers' quota", () => {
  const t = useTestDatabase();
  let redis: Redis;
  const prefixes: string[] = [];
  const config = (env: Record<string, string>) => {
    const c = testConfig(env);
    prefixes.push(c.QUOTA_KEY_PREFIX);
    return c;
  };

  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    for (const p of prefixes) await deleteKeys(redis, p);
    redis.disconnect();
  });

  for (const where of ['redis', 'in-process'] as const) {
    it(`lets exactly 20 of 60 parallel requests through a daily limit of 20 (${where})`, async () => {
      const cfg = config({ QUOTA_REFILL_AMOUNT: '0' });
      const quotaRedis = where === 'redis' ? createQuotaRedis(TEST_REDIS_URL, cfg) : undefined;
      const app = await makeApp(t.current.db, { config: cfg, redis: quotaRedis });
      try {
        if (quotaRedis) await waitFor('Redis', () => quotaRedis.status === 'ready');
        const user = await makeUser(t.current.db, 'daily');
        const key = await makeKey(t.current.db, user, { dailyTokenLimit: 20 });
        await app.listen({ host: '127.0.0.1', port: 0 });
        const { port } = app.server.address() as AddressInfo;
        const responses = await Promise.all(
          Array.from({ length: 60 }, () => getWithKey(port, '/api/v2/auth/me', key)),
        );
        const ok = responses.filter((r) => r.status === 200);
        const refused = responses.filter((r) => r.status === 429);
        expect(ok).toHaveLength(20);
        expect(refused).toHaveLength(40);
        // remain is the key's day: 19 .. 0, each once.
        expect(ok.map((r) => r.body.meta.remain).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 20 }, (_, i) => i),
        );
        // Refused until the next Shanghai midnight.
        const nowS = Date.now() / 1000;
        const untilMidnight = midnightOfServiceDay(serviceDayOf(nowS) + 1) - nowS;
        for (const r of refused) {
          expect(r.body.error!.code).toBe('rate_limited');
          const wait = Number(r.headers['retry-after']);
          expect(Math.abs(wait - untilMidnight)).toBeLessThan(30);
          expect(r.body.meta.retryAfter).toBe(wait);
        }
        // The user's bucket lost only what was let through.
        const other = await makeKey(t.current.db, user);
        const me = await getWithKey(port, '/api/v2/auth/me', other);
        expect(me.body.meta).toEqual({ remain: 1000 - 21, cost: 1 });
      } finally {
        await app.close();
        quotaRedis?.disconnect();
      }
    });
  }

  it("shares one bucket per user between the user's keys; another user has their own", async () => {
    const app = await makeApp(t.current.db, {
      config: config({ QUOTA_USER_CAPACITY: '10', QUOTA_REFILL_AMOUNT: '0' }),
    });
    try {
      const user = await makeUser(t.current.db, 'shared');
      const [a, b] = [await makeKey(t.current.db, user), await makeKey(t.current.db, user)];
      const me = (key: string) =>
        app.inject({ url: '/api/v2/auth/me', headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 6; i++) expect((await me(a)).statusCode).toBe(200);
      const remains: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await me(b);
        expect(res.statusCode).toBe(200);
        remains.push(res.json().meta.remain);
      }
      expect(remains).toEqual([3, 2, 1, 0]);
      expect((await me(a)).statusCode).toBe(429);
      expect((await me(b)).statusCode).toBe(429);
      const stranger = await makeKey(t.current.db, await makeUser(t.current.db, 'stranger'));
      expect((await me(stranger)).json().meta).toEqual({ remain: 9, cost: 1 });
      // Anonymous callers from the same address keep their own bucket too.
      const anonymous = await app.inject({ url: '/api/v2/exports/daily' });
      expect(anonymous.json().meta.remain).toBe(25 - 2);
    } finally {
      await app.close();
    }
  });
});
