import { describe, expect, it } from 'vitest';
import { OperationCost } from '../../src/http/quota/quota-costs.js';
import { applyBucket, type BucketState } from '../../src/http/quota/token-bucket.js';

const params = { capacity: 10, refillAmount: 3, refillIntervalMs: 60_000 };
const T0 = 1_800_000_000_000;

function run(ops: [number, 'take' | 'refund', number][], p = params) {
  let state: BucketState | undefined;
  return ops.map(([at, kind, n]) => {
    const out = applyBucket(
      state,
      p,
      at,
      kind === 'take' ? { kind, cost: n } : { kind, amount: n },
    );
    state = out.state;
    return out;
  });
}

describe('applyBucket', () => {
  it('starts full and keeps nothing for a full bucket', () => {
    const [peek] = run([[T0, 'take', 0]]);
    expect(peek).toMatchObject({ allowed: true, remain: 10, charged: 0, state: undefined });
  });

  it('takes while tokens >= cost, refuses below, and never goes under zero', () => {
    const out = run([
      [T0, 'take', 4],
      [T0, 'take', 4],
      [T0, 'take', 3],
      [T0, 'take', 2],
      [T0, 'take', 2],
    ]);
    expect(out.map((o) => [o.allowed, o.remain, o.charged])).toEqual([
      [true, 6, 4],
      [true, 2, 4],
      [false, 2, 0],
      [true, 0, 2],
      [false, 0, 0],
    ]);
  });

  it('refills whole intervals only, up to capacity, counted from the first spend', () => {
    const out = run([
      [T0, 'take', 10],
      [T0 + 59_999, 'take', 0],
      [T0 + 60_000, 'take', 0],
      [T0 + 150_000, 'take', 0],
      [T0 + 180_000, 'take', 0],
      [T0 + 240_000, 'take', 0],
      [T0 + 10_000_000, 'take', 0],
    ]);
    expect(out.map((o) => o.remain)).toEqual([0, 0, 3, 6, 9, 10, 10]);
  });

  it('restarts the refill clock when the bucket is full', () => {
    const out = run([
      [T0, 'take', 1],
      [T0 + 60_000, 'take', 0], // full again
      [T0 + 100_000, 'take', 5], // spent 40 s into what would have been the old interval
      [T0 + 159_999, 'take', 0],
      [T0 + 160_000, 'take', 0],
    ]);
    expect(out.map((o) => o.remain)).toEqual([9, 10, 5, 5, 8]);
  });

  it('tells how long until the cost fits, and keeps the state until the bucket is full', () => {
    const out = run([
      [T0, 'take', 10],
      [T0 + 20_000, 'take', 5], // needs 2 refills: at T0+60 s and T0+120 s
    ]);
    expect(out[0]!.ttlMs).toBe(4 * 60_000); // 10 tokens = 4 refills of 3
    expect(out[1]).toMatchObject({ allowed: false, remain: 0, retryAfterMs: 100_000 });
  });

  it('charges a cost above the capacity as the whole bucket', () => {
    const out = run([
      [T0, 'take', 50],
      [T0 + 1, 'take', 50],
    ]);
    expect(out[0]).toMatchObject({ allowed: true, remain: 0, charged: 10 });
    expect(out[1]).toMatchObject({ allowed: false, retryAfterMs: 4 * 60_000 - 1 });
  });

  it('gives refunds back up to the capacity', () => {
    const out = run([
      [T0, 'take', 8],
      [T0, 'refund', 5],
      [T0, 'refund', 5],
    ]);
    expect(out.map((o) => o.remain)).toEqual([2, 7, 10]);
    expect(out[2]!.state).toBeUndefined();
  });

  it('with refill off never refills, keeps the state forever and hints one interval', () => {
    const p = { ...params, refillAmount: 0 };
    const out = run(
      [
        [T0, 'take', 10],
        [T0 + 1e9, 'take', 1],
      ],
      p,
    );
    expect(out[0]!.ttlMs).toBeUndefined();
    expect(out[1]).toMatchObject({ allowed: false, remain: 0, retryAfterMs: 60_000 });
  });
});

describe('OperationCost', () => {
  it('rounds the per-record cost up, exactly (60 x 0.05 = 3, not 4)', () => {
    const records = new OperationCost(0, 0.05);
    expect([0, 1, 19, 20, 21, 60, 200].map((n) => records.of(n))).toEqual([0, 1, 1, 1, 2, 3, 10]);
    expect(new OperationCost(1, 0.05).of(20)).toBe(2);
    expect(new OperationCost(50).of()).toBe(50);
    expect(new OperationCost(0.1, 0.1).of(2)).toBe(1);
  });
});
