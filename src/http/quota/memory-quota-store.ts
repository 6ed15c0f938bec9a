import type {
  BucketRef,
  Clock,
  ImmediateQuotaStore,
  QuotaDecision,
  RefillParams,
} from './quota-store.js';
import { applyBucket, applyBucketAndDaily, type BucketState } from './token-bucket.js';

export interface MemoryQuotaStoreOptions {
  refill: RefillParams;
  /** Default Date.now. */
  clock?: Clock;
  /** Buckets kept before expired ones are swept. Default 100,000. */
  sweepAbove?: number;
}

interface Entry extends BucketState {
  /** When the bucket is full again and can be forgotten (ms); Infinity = never. */
  expiresAtMs: number;
}

/**
 * Token buckets in this process: the embedded default (no Redis) and the fallback while Redis is
 * away. Same rules as the Redis store; the state is lost on restart, and each process has its own.
 */
export class MemoryQuotaStore implements ImmediateQuotaStore {
  private readonly buckets = new Map<string, Entry>();
  /** Daily counters: key -> tokens spent in the period and when it ends. */
  private readonly daily = new Map<string, { spent: number; resetAtMs: number }>();
  private readonly clock: Clock;
  private sweepAbove: number;

  constructor(private readonly options: MemoryQuotaStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.sweepAbove = options.sweepAbove ?? 100_000;
  }

  async take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    return this.decide(bucket, cost);
  }

  /** Always decided at once: the buckets are in this process. */
  takeNow(bucket: BucketRef, reserve: number, charge = reserve): QuotaDecision {
    const decision = this.decide(bucket, reserve);
    const refund = decision.allowed ? decision.cost - Math.min(charge, decision.cost) : 0;
    if (refund <= 0) return decision;
    const remain = this.apply(bucket, { kind: 'refund', amount: refund }).remain;
    return { ...decision, remain, cost: decision.cost - refund };
  }

  private decide(bucket: BucketRef, cost: number): QuotaDecision {
    const outcome = this.apply(bucket, { kind: 'take', cost });
    return {
      allowed: outcome.allowed,
      remain: outcome.remain,
      cost: outcome.charged,
      retryAfterMs: outcome.retryAfterMs,
      via: 'memory',
      ...(outcome.state && this.options.refill.refillAmount > 0
        ? { nextRefillAtMs: outcome.state.anchorMs + this.options.refill.refillIntervalMs }
        : {}),
      ...(outcome.allowed
        ? {}
        : { limitedBy: 'limitedBy' in outcome ? (outcome.limitedBy ?? 'bucket') : 'bucket' }),
    };
  }

  async refund(bucket: BucketRef, amount: number): Promise<number> {
    return this.apply(bucket, { kind: 'refund', amount }).remain;
  }

  /** Buckets currently held (full buckets are not held). */
  get size(): number {
    return this.buckets.size;
  }

  private apply(bucket: BucketRef, op: Parameters<typeof applyBucket>[3]) {
    const now = this.clock();
    const entry = this.buckets.get(bucket.key);
    const stored = entry && entry.expiresAtMs > now ? entry : undefined;
    const params = { capacity: bucket.capacity, ...this.options.refill };
    let outcome: ReturnType<typeof applyBucketAndDaily> | ReturnType<typeof applyBucket>;
    if (bucket.daily) {
      const { key, limit, resetAtMs } = bucket.daily;
      const counter = this.daily.get(key);
      const spent = counter && counter.resetAtMs > now ? counter.spent : 0;
      const limited = applyBucketAndDaily(stored, params, { limit, spent, resetAtMs }, now, op);
      if (limited.spent > 0) this.daily.set(key, { spent: limited.spent, resetAtMs });
      else this.daily.delete(key);
      if (this.daily.size > (this.options.sweepAbove ?? 100_000)) {
        for (const [k, c] of this.daily) if (c.resetAtMs <= now) this.daily.delete(k);
      }
      outcome = limited;
    } else {
      outcome = applyBucket(stored, params, now, op);
    }
    if (outcome.state === undefined) {
      this.buckets.delete(bucket.key);
    } else {
      this.buckets.set(bucket.key, {
        ...outcome.state,
        expiresAtMs: outcome.ttlMs === undefined ? Infinity : now + outcome.ttlMs,
      });
      if (this.buckets.size > this.sweepAbove) {
        this.sweep(now);
        // Many live buckets: sweep again only after the map has doubled, not on every take.
        this.sweepAbove = Math.max(this.options.sweepAbove ?? 100_000, this.buckets.size * 2);
      }
    }
    return outcome;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.buckets) if (entry.expiresAtMs <= now) this.buckets.delete(key);
  }
}
