import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MemoryQuotaStore } from '../../src/http/quota/memory-quota-store.js';
import type { BucketRef, QuotaDecision } from '../../src/http/quota/quota-store.js';
import { RedisQuotaStore } from '../../src/http/quota/redis-quota-store.js';
import { deleteKeys, testRedis } from '../api/helpers/api-harness.js';

// A tiny deterministic generator: the same sequence on every run.
function lcg(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

describe('RedisQuotaStore (the Lua script)', () => {
  let redis: Redis;
  const prefix = `emutrack-test:${randomBytes(6).toString('hex')}:quota:`;

  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  for (const refillAmount of [3, 0]) {
    it(`decides exactly as the in-process bucket (refill ${refillAmount})`, async () => {
      let now = 1_800_000_000_000;
      const clock = () => now;
      const refill = { refillAmount, refillIntervalMs: 10_000 };
      const memory = new MemoryQuotaStore({ refill, clock });
      const inRedis = new RedisQuotaStore({ redis, refill, keyPrefix: prefix, clock });
      const next = lcg(refillAmount + 7);
      const buckets: BucketRef[] = [
        { key: `same-${refillAmount}-a`, capacity: 10 },
        { key: `same-${refillAmount}-b`, capacity: 25 },
      ];
      const pick = (d: QuotaDecision) => [d.allowed, d.remain, d.cost, d.retryAfterMs];
      for (let i = 0; i < 400; i++) {
        now += next(4) === 0 ? next(30_000) : next(500);
        const bucket = buckets[next(2)]!;
        if (next(5) === 0) {
          const amount = next(6);
          expect(await inRedis.refund(bucket, amount), `op ${i}`).toBe(
            await memory.refund(bucket, amount),
          );
        } else {
          const cost = next(bucket.capacity + 4);
          expect(pick(await inRedis.take(bucket, cost)), `op ${i}`).toEqual(
            pick(await memory.take(bucket, cost)),
          );
        }
      }
    });
  }

  it('decides a bucket with a daily limit exactly as the in-process store (one script, both or neither)', async () => {
    let now = 1_800_000_000_000;
    const clock = () => now;
    const refill = { refillAmount: 4, refillIntervalMs: 10_000 };
    const memory = new MemoryQuotaStore({ refill, clock });
    const inRedis = new RedisQuotaStore({ redis, refill, keyPrefix: prefix, clock });
    const next = lcg(99);
    let resetAtMs = now + 60_000;
    const bucketOf = (key: string): BucketRef => ({
      key: `daily-parity-${key}`,
      capacity: 30,
      daily: { key: `daily-parity-${key}:${resetAtMs}`, limit: 40, resetAtMs },
    });
    const pick = (d: QuotaDecision) => [
      d.allowed,
      d.remain,
      d.cost,
      d.retryAfterMs,
      d.limitedBy,
      d.nextRefillAtMs,
    ];
    for (let i = 0; i < 400; i++) {
      now += next(4) === 0 ? next(20_000) : next(500);
      if (now >= resetAtMs) resetAtMs += 60_000; // a new period: a new counter key
      const bucket = bucketOf(String(next(2)));
      if (next(5) === 0) {
        const amount = next(6);
        expect(await inRedis.refund(bucket, amount), `op ${i}`).toBe(
          await memory.refund(bucket, amount),
        );
      } else {
        const cost = next(12);
        expect(pick(await inRedis.take(bucket, cost)), `op ${i}`).toEqual(
          pick(await memory.take(bucket, cost)),
        );
      }
    }
  });

  it('refuses by the daily limit until the period ends, charging neither; the counter expires then', async () => {
    const now = 1_800_000_000_000;
    const store = new RedisQuotaStore({
      redis,
      refill: { refillAmount: 0, refillIntervalMs: 1_000 },
      keyPrefix: prefix,
      clock: () => now,
    });
    const daily = { key: 'daily-stop:1', limit: 5, resetAtMs: now + 90_000 };
    const bucket = { key: 'daily-stop', capacity: 100, daily };
    expect(await store.take(bucket, 4)).toMatchObject({ allowed: true, remain: 1, cost: 4 });
    const refused = await store.take(bucket, 2);
    expect(refused).toMatchObject({
      allowed: false,
      remain: 1,
      cost: 0,
      retryAfterMs: 90_000,
      limitedBy: 'daily',
    });
    // The bucket was not charged by the refusal: 96 left in it, 1 left today.
    expect(await store.take({ key: 'daily-stop', capacity: 100 }, 0)).toMatchObject({ remain: 96 });
    const ttl = await redis.pttl(`${prefix}daily-stop:1`);
    expect(ttl).toBeGreaterThan(89_000);
    expect(ttl).toBeLessThanOrEqual(90_000);
    expect(await store.refund(bucket, 4)).toBe(5);
    expect(await redis.exists(`${prefix}daily-stop:1`)).toBe(0);
  });

  it('keeps nothing for a full bucket and expires a spent one when it would be full', async () => {
    let now = 1_800_000_000_000;
    const store = new RedisQuotaStore({
      redis,
      refill: { refillAmount: 2, refillIntervalMs: 5_000 },
      keyPrefix: prefix,
      clock: () => now,
    });
    const bucket = { key: 'ttl', capacity: 4 };
    await store.take(bucket, 0);
    expect(await redis.exists(`${prefix}ttl`)).toBe(0);
    await store.take(bucket, 3);
    const ttl = await redis.pttl(`${prefix}ttl`);
    expect(ttl).toBeGreaterThan(9_000); // 3 tokens missing = 2 refills of 2 = 10 s
    expect(ttl).toBeLessThanOrEqual(10_000);
    now += 10_000;
    expect((await store.take(bucket, 0)).remain).toBe(4);
    expect(await redis.exists(`${prefix}ttl`)).toBe(0);
  });

  it("uses Redis's own clock (TIME) when none is given", async () => {
    const store = new RedisQuotaStore({
      redis,
      refill: { refillAmount: 1, refillIntervalMs: 1_000 },
      keyPrefix: prefix,
    });
    const bucket = { key: 'redis-time', capacity: 2 };
    // Sent back to back on one connection: Redis runs both within the same millisecond or two.
    const [first, refused] = await Promise.all([store.take(bucket, 2), store.take(bucket, 1)]);
    expect(first.allowed).toBe(true);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(1_000);
    await new Promise((r) => setTimeout(r, refused.retryAfterMs + 50));
    const later = await store.take(bucket, 1);
    expect(later).toMatchObject({ allowed: true, remain: 0 });
  });

  it('decides concurrent operations exactly as one after the other, many in one script call', async () => {
    let now = 1_800_000_000_000;
    const clock = () => now;
    const refill = { refillAmount: 2, refillIntervalMs: 10_000 };
    const memory = new MemoryQuotaStore({ refill, clock });
    // The command exists on the connection once a store was made; count the calls of the next one.
    new RedisQuotaStore({ redis, refill, keyPrefix: prefix, clock });
    const script = vi.spyOn(
      redis as unknown as Record<string, () => unknown>,
      'emutrackTokenBuckets',
    );
    const inRedis = new RedisQuotaStore({ redis, refill, keyPrefix: prefix, clock });
    const next = lcg(2024);
    const resetAtMs = now + 600_000;
    const buckets: BucketRef[] = [
      { key: 'batch-a', capacity: 20 },
      { key: 'batch-b', capacity: 7 },
      { key: 'batch-c', capacity: 30, daily: { key: 'batch-c:1', limit: 25, resetAtMs } },
    ];
    type Op = { bucket: BucketRef; refund: boolean; n: number; at: number };
    const ops: Op[] = [];
    for (let i = 0; i < 300; i++) {
      now += next(3) === 0 ? next(9_000) : 0;
      ops.push({ bucket: buckets[next(3)]!, refund: next(6) === 0, n: next(9), at: now });
    }
    // All asked for at once (each with its own time), then the same in order in process.
    const inRedisAnswers = ops.map((op) => {
      now = op.at;
      return op.refund ? inRedis.refund(op.bucket, op.n) : inRedis.take(op.bucket, op.n);
    });
    const answers = await Promise.all(inRedisAnswers);
    const pick = (d: QuotaDecision | number) =>
      typeof d === 'number'
        ? d
        : [d.allowed, d.remain, d.cost, d.retryAfterMs, d.limitedBy, d.nextRefillAtMs];
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      now = op.at;
      const expected = op.refund
        ? await memory.refund(op.bucket, op.n)
        : await memory.take(op.bucket, op.n);
      expect(pick(answers[i]!), `op ${i}`).toEqual(pick(expected));
    }
    // Asked for in one turn: sent in calls of at most 64, one after the other.
    expect(script.mock.calls.length).toBe(Math.ceil(300 / 64));
    script.mockRestore();
  });
});
