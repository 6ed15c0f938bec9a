import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeasingQuotaStore } from '../../src/http/quota/leasing-quota-store.js';
import { MemoryQuotaStore } from '../../src/http/quota/memory-quota-store.js';
import type { BucketRef, QuotaDecision, QuotaStore } from '../../src/http/quota/quota-store.js';
import { RedisQuotaStore } from '../../src/http/quota/redis-quota-store.js';
import { deleteKeys, testRedis } from '../api/helpers/api-harness.js';

const refill = { refillAmount: 0, refillIntervalMs: 60_000 };

/** A shared store that counts what reaches it. */
class Counting implements QuotaStore {
  takes = 0;
  refunds = 0;
  constructor(readonly inner: QuotaStore) {}
  take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    this.takes++;
    return this.inner.take(bucket, cost);
  }
  refund(bucket: BucketRef, amount: number, via: QuotaDecision['via']): Promise<number> {
    this.refunds++;
    return this.inner.refund(bucket, amount, via);
  }
}

describe('LeasingQuotaStore', () => {
  let redis: Redis;
  const prefix = `emutrack-test:${randomBytes(6).toString('hex')}:lease:`;
  const shared = (clock?: () => number) =>
    new RedisQuotaStore({ redis, refill, keyPrefix: prefix, ...(clock ? { clock } : {}) });
  let n = 0;
  const bucket = (capacity: number, daily?: number): BucketRef => ({
    key: `b${++n}`,
    capacity,
    ...(daily !== undefined
      ? { daily: { key: `d${n}`, limit: daily, resetAtMs: Date.now() + 3_600_000 } }
      : {}),
  });

  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('sends every take of a caller making few requests to the shared store', async () => {
    const counting = new Counting(shared());
    const store = new LeasingQuotaStore(counting);
    const b = bucket(1_000);
    for (let i = 0; i < 7; i++) expect((await store.take(b, 10)).remain).toBe(1_000 - 10 * (i + 1));
    expect(counting.takes).toBe(7);
    expect(store.leaseCount).toBe(0);
    await store.close();
  });

  it('leases for a busy caller and reports exactly what take-by-take would, in this process', async () => {
    const counting = new Counting(shared());
    const store = new LeasingQuotaStore(counting, { leaseTakes: 16 });
    const plain = new MemoryQuotaStore({ refill });
    const b = bucket(100_000);
    for (let i = 0; i < 200; i++) {
      const leased = await store.take(b, 7);
      const exact = await plain.take(b, 7);
      expect([leased.allowed, leased.remain, leased.cost], `take ${i}`).toEqual([
        exact.allowed,
        exact.remain,
        exact.cost,
      ]);
    }
    // 8 takes to become hot, then a lease of 16 takes topped up by 16 at a time.
    expect(counting.takes).toBeLessThan(30);
    expect(store.leaseCount).toBe(1);
    // What the lease did not spend goes back when the app closes.
    await store.close();
    expect((await shared().take(b, 0)).remain).toBe(100_000 - 200 * 7);
  });

  it('decides at once, with no I/O, while the lease covers the take (takeNow)', async () => {
    const store = new LeasingQuotaStore(shared(), { leaseTakes: 64 });
    const b = bucket(100_000);
    expect(store.takeNow(b, 5)).toBeUndefined();
    for (let i = 0; i < 9; i++) await store.take(b, 5);
    const now = store.takeNow(b, 10, 5);
    expect(now).toMatchObject({ allowed: true, cost: 5, via: 'lease', remain: 100_000 - 50 });
    await store.close();
  });

  it('gives a refund of a leased take back to the lease', async () => {
    const store = new LeasingQuotaStore(shared());
    const b = bucket(100_000);
    for (let i = 0; i < 9; i++) await store.take(b, 10);
    const d = await store.take(b, 10);
    expect(d.via).toBe('lease');
    expect(await store.refund(b, 4, d.via)).toBe(100_000 - 100 + 4);
    await store.close();
    expect((await shared().take(b, 0)).remain).toBe(100_000 - 96);
  });

  it('gives the unspent lease back once the caller pauses', async () => {
    const store = new LeasingQuotaStore(shared(), { idleMs: 50 });
    const b = bucket(100_000);
    for (let i = 0; i < 12; i++) await store.take(b, 3);
    expect(store.leaseCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(store.leaseCount).toBe(0);
    expect((await shared().take(b, 0)).remain).toBe(100_000 - 36);
    await store.close();
  });

  it('never leases near the bottom: refusals are decided take by take by the shared store', async () => {
    const counting = new Counting(shared());
    const store = new LeasingQuotaStore(counting);
    const b = bucket(100);
    const decisions: QuotaDecision[] = [];
    for (let i = 0; i < 15; i++) decisions.push(await store.take(b, 10));
    expect(decisions.map((d) => d.allowed)).toEqual([
      ...Array(10).fill(true),
      ...Array(5).fill(false),
    ]);
    expect(decisions.at(-1)!.remain).toBe(0);
    expect(store.leaseCount).toBe(0);
    expect(counting.takes).toBe(15);
    await store.close();
  });

  it('two processes leasing one bucket at once never spend more than it holds', async () => {
    const capacity = 5_000;
    const b = bucket(capacity);
    const stores = [new LeasingQuotaStore(shared()), new LeasingQuotaStore(shared())];
    let allowed = 0;
    await Promise.all(
      stores.map(async (store) => {
        for (let round = 0; round < 60; round++) {
          const decisions = await Promise.all(Array.from({ length: 10 }, () => store.take(b, 10)));
          allowed += decisions.filter((d) => d.allowed).length;
        }
      }),
    );
    // 1,200 takes of 10 asked for 5,000 tokens: at most 500 can be allowed, and once both have
    // given their leases back, the shared bucket holds exactly what was not spent.
    expect(allowed).toBeLessThanOrEqual(capacity / 10);
    expect(allowed).toBeGreaterThan(capacity / 10 / 2);
    await Promise.all(stores.map((store) => store.close()));
    expect((await shared().take(b, 0)).remain).toBe(capacity - allowed * 10);
  });

  it('leases against the daily limit as well: a key never spends past it', async () => {
    const store = new LeasingQuotaStore(shared());
    const b = bucket(1_000_000, 2_000);
    let spent = 0;
    for (let i = 0; i < 300; i++) {
      const d = await store.take(b, 10);
      if (d.allowed) spent += d.cost;
      expect(d.remain, `take ${i}`).toBeGreaterThanOrEqual(0);
    }
    expect(spent).toBeLessThanOrEqual(2_000);
    await store.close();
    expect((await shared().take(b, 0)).remain).toBe(2_000 - spent);
  });
});
