import { beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '../../src/http/api/envelope.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { bearer, FAST_SCRYPT_ENV, makeKey, makeUser } from './helpers/accounts.js';
import { busyDay, seedDay } from './helpers/api-fixtures.js';
import { makeApp } from './helpers/api-harness.js';

/** The product's rules (the harness makes failures free unless told): every request costs 1 or more. */
const PRODUCT_RULES = { QUOTA_MIN_COST: '1', QUOTA_OVER_CAPACITY: 'refuse', ...FAST_SCRYPT_ENV };
const EXPORT = '/api/v2/exports/daily/20260810';

describe('quota refusals that tell the truth', () => {
  const t = useTestDatabase();
  beforeAll(async () => {
    await seedDay(t.current.db, '20260810', busyDay(2000));
  });

  it("answers an anonymous caller's export (50 > a bucket of 25) with 403 cost_exceeds_quota_limit, saying what would allow it", async () => {
    const app = await makeApp(t.current.db, { env: PRODUCT_RULES });
    try {
      for (const url of [EXPORT, `${EXPORT}?binary=true`]) {
        const res = await app.inject(url);
        expect(res.statusCode, url).toBe(403);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.ok).toBe(false);
        expect(body.error.code).toBe('cost_exceeds_quota_limit');
        expect(body.error.message).toMatch(/costs 50 tokens/);
        expect(body.error.message).toMatch(/bucket, 25/);
        expect(body.error.message).toMatch(/sign in or send an API key/);
        // No wait is promised: waiting cannot help.
        expect(res.headers['retry-after']).toBeUndefined();
        expect(body.meta.retryAfter).toBeUndefined();
        // The refusal itself costs the minimum.
        expect(body.meta.cost).toBe(1);
      }
      // A signed-in caller (a bucket of 1000) gets the export.
      const user = await makeUser(t.current.db);
      const key = await makeKey(t.current.db, user);
      const res = await app.inject({ url: EXPORT, headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      expect(res.json().meta.cost).toBe(50);
    } finally {
      await app.close();
    }
  });

  it("names a key's daily limit when that is what the cost exceeds", async () => {
    const app = await makeApp(t.current.db, { env: PRODUCT_RULES });
    try {
      const user = await makeUser(t.current.db);
      const key = await makeKey(t.current.db, user, { dailyTokenLimit: 40 });
      const res = await app.inject({ url: EXPORT, headers: bearer(key) });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('cost_exceeds_quota_limit');
      expect(res.json().error.message).toMatch(/daily limit of 40/);
      expect(res.json().error.message).toMatch(/dailyTokenLimit is at least 50/);
    } finally {
      await app.close();
    }
  });

  it('charges every request at least 1: 400, 404 (unknown operation and unknown thing), 401, 429', async () => {
    const app = await makeApp(t.current.db, {
      env: { ...PRODUCT_RULES, QUOTA_ANONYMOUS_CAPACITY: '6', QUOTA_REFILL_AMOUNT: '0' },
    });
    try {
      const expectCharged = async (url: string, status: number, remain: number, headers = {}) => {
        const res = await app.inject({ url, headers });
        expect(res.statusCode, url).toBe(status);
        const body = errorEnvelopeSchema.parse(res.json());
        expect(body.ok).toBe(false);
        expect(body.meta).toMatchObject({ remain, cost: 1 });
        expect(res.headers['x-api-cost']).toBe('1');
        expect(res.headers['x-api-remain']).toBe(String(remain));
      };
      await expectCharged('/api/v2/records/daily?date=2026-08-10', 400, 5);
      await expectCharged('/api/v2/no/such/operation', 404, 4);
      await expectCharged('/api/v2/allocation/emu/CR999-0000', 404, 3);
      await expectCharged('/api/v2/records/daily?date=20260810', 401, 2, bearer('not-a-key'));
      // A full page of 200 records reserves 10 > 2 left: 429, and the refusal costs 1.
      const refused = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(refused.statusCode).toBe(429);
      expect(refused.json().meta).toMatchObject({ remain: 1, cost: 1 });
      expect(refused.headers['retry-after']).toBeDefined();
      // An empty bucket cannot go below zero: the last refusals cost what is left.
      const last = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(last.json().meta).toMatchObject({ remain: 0, cost: 1 });
      const empty = await app.inject('/api/v2/records/daily?date=20260810&limit=200');
      expect(empty.statusCode).toBe(429);
      expect(empty.json().meta).toMatchObject({ remain: 0, cost: 0 });
    } finally {
      await app.close();
    }
  });

  it('charges a success that returns nothing the minimum too (an empty day)', async () => {
    const app = await makeApp(t.current.db, { env: PRODUCT_RULES });
    try {
      const res = await app.inject('/api/v2/records/daily?date=20200101');
      expect(res.statusCode).toBe(200);
      expect(res.json().meta).toEqual({ remain: 24, cost: 1 });
    } finally {
      await app.close();
    }
  });

  it('keeps the seed rule available: QUOTA_MIN_COST=0 and QUOTA_OVER_CAPACITY=whole_bucket', async () => {
    const app = await makeApp(t.current.db, {
      env: { QUOTA_MIN_COST: '0', QUOTA_OVER_CAPACITY: 'whole_bucket' },
    });
    try {
      const bad = await app.inject('/api/v2/records/daily?date=2026-08-10');
      expect(bad.json().meta).toEqual({ remain: 25, cost: 0 });
      const whole = await app.inject(`${EXPORT}?binary=true`);
      expect(whole.statusCode).toBe(200);
      expect(whole.headers['x-api-cost']).toBe('25');
      const again = await app.inject(EXPORT);
      expect(again.statusCode).toBe(429);
      expect(again.json().meta).toEqual({ remain: 0, cost: 0, retryAfter: 1500 });
    } finally {
      await app.close();
    }
  });

  it('charges nothing for the server failing (5xx)', async () => {
    const app = await makeApp(t.current.db, { env: PRODUCT_RULES });
    const failing = await makeApp(
      {
        ...t.current.db,
        query: () => Promise.reject(new Error('boom')),
      } as unknown as typeof t.current.db,
      { env: PRODUCT_RULES },
    );
    try {
      const res = await failing.inject('/api/v2/records/daily?date=20260811');
      expect(res.statusCode).toBe(500);
      expect(res.json().meta).toEqual({ remain: 25, cost: 0 });
    } finally {
      await app.close();
      await failing.close();
    }
  });
});
