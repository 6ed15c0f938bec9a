import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { ApiApp } from '../../src/http/api/app.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { TcpProxy } from '../quota/helpers/tcp-proxy.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import {
  capturingLogger,
  deleteKeys,
  makeApp,
  testConfig,
  testRedis,
} from './helpers/api-harness.js';

const RECORDS = '/api/v2/records/daily?date=20260810&limit=20'; // 47 records: costs 1

interface PlainResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { meta: { remain: number; cost: number; retryAfter?: number }; error?: { code: string } };
}

/** One GET on its own TCP connection (no keep-alive pool): many requests, many connections. */
function getOnNewConnection(port: number, path: string): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
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
    });
    req.on('error', reject);
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('quota over HTTP', () => {
  const t = useTestDatabase();
  let redis: Redis;
  const prefixes: string[] = [];

  /** A config with its own key prefix, remembered for clean-up. */
  const config = (env: Record<string, string>) => {
    const c = testConfig(env);
    prefixes.push(c.QUOTA_KEY_PREFIX);
    return c;
  };

  beforeAll(async () => {
    await seedDay(t.current.db, '20260810', busyDay(2000));
    redis = testRedis();
  });
  afterAll(async () => {
    for (const p of prefixes) await deleteKeys(redis, p);
    redis.disconnect();
  });

  for (const where of ['redis', 'in-process'] as const) {
    it(`lets exactly capacity of capacity + 10 simultaneous requests through (${where}, refill off)`, async () => {
      const quotaRedis =
        where === 'redis' ? createQuotaRedis(TEST_REDIS_URL, config({})) : undefined;
      const cfg = config({ QUOTA_ANONYMOUS_CAPACITY: '25', QUOTA_REFILL_AMOUNT: '0' });
      const app = await makeApp(t.current.db, { config: cfg, redis: quotaRedis });
      try {
        // Until the connection is ready, requests are decided in process (the fallback).
        if (quotaRedis)
          await waitFor('Redis connection', async () => quotaRedis.status === 'ready');
        await app.listen({ host: '127.0.0.1', port: 0 });
        const { port } = app.server.address() as AddressInfo;
        const responses = await Promise.all(
          Array.from({ length: 35 }, () => getOnNewConnection(port, RECORDS)),
        );
        const ok = responses.filter((r) => r.status === 200);
        const throttled = responses.filter((r) => r.status === 429);
        expect(ok).toHaveLength(25);
        expect(throttled).toHaveLength(10);
        expect(ok.map((r) => r.body.meta.remain).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 25 }, (_, i) => i),
        );
        for (const r of throttled) {
          expect(r.body.error!.code).toBe('rate_limited');
          expect(r.body.meta).toEqual({ remain: 0, cost: 0, retryAfter: 300 });
          expect(r.headers['retry-after']).toBe('300');
          expect(r.headers['x-api-remain']).toBe('0');
          expect(r.headers['x-api-cost']).toBe('0');
        }
        if (quotaRedis)
          expect(await redis.hget(`${cfg.QUOTA_KEY_PREFIX}anon:127.0.0.1`, 't')).toBe('0');
      } finally {
        await app.close();
        quotaRedis?.disconnect();
      }
    });
  }

  for (const where of ['redis', 'in-process'] as const) {
    it(`refills over (injected) time, and says how long to wait (${where})`, async () => {
      let now = Date.UTC(2026, 10, 1, 12);
      const quotaRedis =
        where === 'redis' ? createQuotaRedis(TEST_REDIS_URL, config({})) : undefined;
      const app = await makeApp(t.current.db, {
        config: config({
          QUOTA_ANONYMOUS_CAPACITY: '3',
          QUOTA_REFILL_AMOUNT: '2',
          QUOTA_REFILL_INTERVAL_SECONDS: '60',
        }),
        redis: quotaRedis,
        clock: () => now,
      });
      const get = async () => {
        const res = await app.inject(RECORDS);
        return [res.statusCode, res.json().meta, res.headers['retry-after']];
      };
      try {
        if (quotaRedis)
          await waitFor('Redis connection', async () => quotaRedis.status === 'ready');
        expect(await get()).toEqual([200, { remain: 2, cost: 1 }, undefined]);
        expect(await get()).toEqual([200, { remain: 1, cost: 1 }, undefined]);
        expect(await get()).toEqual([200, { remain: 0, cost: 1 }, undefined]);
        now += 500;
        expect(await get()).toEqual([429, { remain: 0, cost: 0, retryAfter: 60 }, '60']);
        now += 59_000; // 0.5 s left: still refused, wait rounded up to 1 s
        expect(await get()).toEqual([429, { remain: 0, cost: 0, retryAfter: 1 }, '1']);
        now += 500; // one interval after the first spend: +2
        expect(await get()).toEqual([200, { remain: 1, cost: 1 }, undefined]);
        expect(await get()).toEqual([200, { remain: 0, cost: 1 }, undefined]);
        now += 10 * 60_000; // long idle: full, never more
        expect(await get()).toEqual([200, { remain: 2, cost: 1 }, undefined]);
      } finally {
        await app.close();
        quotaRedis?.disconnect();
      }
    });
  }

  it('reserves a full page at the limit, then charges only the records returned', async () => {
    const app = await makeApp(t.current.db, { config: config({ QUOTA_ANONYMOUS_CAPACITY: '25' }) });
    try {
      // limit 200 reserves 10; the day has 47 records, which cost 3.
      const first = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(first.json().meta).toEqual({ remain: 22, cost: 3 });
      for (let i = 0; i < 13; i++) await app.inject(RECORDS); // 22 - 13 = 9 left
      const tooFew = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(tooFew.statusCode).toBe(429); // would cost 3, but a full page (10) is not there
      expect(tooFew.json().meta.remain).toBe(9);
      const smaller = await app.inject('/api/v2/records/daily?date=20260810&limit=100');
      expect(smaller.json().meta).toEqual({ remain: 6, cost: 3 });
    } finally {
      await app.close();
    }
  });

  it('keys anonymous callers by address; X-Forwarded-For counts only from trusted proxies', async () => {
    const untrusting = await makeApp(t.current.db, { config: config({}) });
    const trusting = await makeApp(t.current.db, {
      config: config({ TRUSTED_PROXIES: '127.0.0.1' }),
    });
    const as = (app: ApiApp, forwardedFor: string, remoteAddress = '127.0.0.1') =>
      app
        .inject({ url: RECORDS, headers: { 'x-forwarded-for': forwardedFor }, remoteAddress })
        .then((r) => r.json().meta.remain as number);
    try {
      // Not trusted: the header is ignored; one bucket for 127.0.0.1.
      expect(await as(untrusting, '203.0.113.1')).toBe(24);
      expect(await as(untrusting, '203.0.113.2')).toBe(23);
      // Trusted: each forwarded client has its own bucket.
      expect(await as(trusting, '203.0.113.1')).toBe(24);
      expect(await as(trusting, '203.0.113.2')).toBe(24);
      expect(await as(trusting, '203.0.113.1')).toBe(23);
      // A spoofed header from an untrusted peer is not believed even by the trusting app.
      expect(await as(trusting, '203.0.113.1', '198.51.100.9')).toBe(24);
      expect(await as(trusting, '203.0.113.9', '198.51.100.9')).toBe(23);
    } finally {
      await untrusting.close();
      await trusting.close();
    }
  });

  it('keys anonymous IPv6 callers by their /64: a new interface identifier is no new bucket', async () => {
    const app = await makeApp(t.current.db, { config: config({}) });
    const from = (remoteAddress: string) =>
      app.inject({ url: RECORDS, remoteAddress }).then((r) => r.json().meta.remain as number);
    try {
      expect(await from('2001:db8:1:2::1')).toBe(24);
      expect(await from('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(23);
      expect(await from('2001:0db8:0001:0002:ffff::9')).toBe(22);
      // Another /64 of the same /48 is another subscriber.
      expect(await from('2001:db8:1:3::1')).toBe(24);
      // An IPv4-mapped address counts as its IPv4 address.
      expect(await from('::ffff:192.0.2.7')).toBe(24);
      expect(await from('192.0.2.7')).toBe(23);
    } finally {
      await app.close();
    }
  });

  it('keeps answering while Redis is away (in-process quota, fault logged) and uses Redis again once back', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(TEST_REDIS_URL).port || 6379));
    await proxy.start();
    const cfg = config({ QUOTA_ANONYMOUS_CAPACITY: '100', QUOTA_REFILL_AMOUNT: '0' });
    const quotaRedis = createQuotaRedis(proxy.url, cfg);
    const { logger, lines } = capturingLogger();
    const app = await makeApp(t.current.db, { config: cfg, logger, redis: quotaRedis });
    const key = `${cfg.QUOTA_KEY_PREFIX}anon:127.0.0.1`;
    const get = () => app.inject(RECORDS);
    try {
      await waitFor('Redis connection', async () => quotaRedis.status === 'ready');
      expect((await get()).json().meta.remain).toBe(99);
      expect((await get()).json().meta.remain).toBe(98);
      expect(await redis.hget(key, 't')).toBe('98');

      await proxy.stop();
      for (let i = 0; i < 5; i++) {
        const res = await get();
        expect(res.statusCode).toBe(200);
        // Counted in process, from a full bucket of its own.
        expect(res.json().meta).toEqual({ remain: 99 - i, cost: 1 });
      }
      expect(await redis.hget(key, 't')).toBe('98'); // Redis saw none of it
      expect((await app.inject('/readyz')).json()).toMatchObject({ redis: 'unreachable' });
      expect(
        lines().some((l) => l.level === 50 && /Redis is unavailable/.test(String(l.msg))),
      ).toBe(true);

      await proxy.start();
      await waitFor('Redis to be used again', async () => {
        const res = await get();
        expect(res.statusCode).toBe(200);
        return (await redis.hget(key, 't')) !== '98';
      });
      // A burst of requests (the waiting above) may have leased tokens from Redis, which then
      // reports them spent until they go back (leasing-quota-store.ts): wait for that, so that
      // the level Redis holds is the whole bucket's.
      const leasing = app.emutrackEdge.store as { leaseCount?: number };
      let level = '';
      await waitFor('leased tokens back in Redis', async () => {
        const before = await redis.hget(key, 't');
        await new Promise((resolve) => setTimeout(resolve, 100));
        const after = await redis.hget(key, 't');
        const settled = (leasing.leaseCount ?? 0) === 0 && before === after;
        level = after ?? '';
        return settled;
      });
      const res = await get();
      expect(res.json().meta.remain).toBe(Number(level) - 1);
      expect(Number(await redis.hget(key, 't'))).toBe(Number(level) - 1);
      expect(lines().some((l) => /Redis is back/.test(String(l.msg)))).toBe(true);
      expect((await app.inject('/readyz')).statusCode).toBe(200);
    } finally {
      await app.close();
      quotaRedis.disconnect();
      await proxy.stop();
    }
  });
});
