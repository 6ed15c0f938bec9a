import type {
  BucketRef,
  Clock,
  ImmediateQuotaStore,
  QuotaDecision,
  QuotaStore,
} from './quota-store.js';

/**
 * Lets a busy caller's requests be charged in this process, without a Redis call each, and
 * still never spend a token twice across API processes: when one caller's requests come fast
 * (at least `hotTakes` in a `windowMs`) and its bucket is far from empty, the next take from
 * the shared store asks for a **lease** as well: `leaseTakes` more requests' worth of tokens,
 * taken from the shared bucket at once (atomically, with the daily limit). The requests that
 * follow spend the lease here, synchronously. What a lease has not spent goes back to the shared
 * bucket when the caller pauses (`idleMs`) or the lease is `maxAgeMs` old, and when the app
 * closes.
 *
 * What a caller sees. In this process `remain` is exactly what separate takes would report:
 * the level the shared store reported after the lease was taken, plus the lease's unspent
 * tokens; refills that happen in the shared bucket meanwhile show at the next lease (at most
 * `maxAgeMs` later). Another process serving the same caller at the same moment sees the leased
 * tokens as spent until they come back. Refusals are always decided by the shared store: a take
 * the lease cannot cover goes there. A lease is never taken when it would bring the bucket
 * below a quarter of what it held, so a caller near its limit is decided take by take, as
 * before. Callers making a few requests (everyone at the default quotas) never lease.
 */
export interface LeasingQuotaStoreOptions {
  /** Takes of one bucket within `windowMs` that make it hot. Default 8. */
  hotTakes?: number;
  /** Default 250 ms. */
  windowMs?: number;
  /** A lease holds this many takes' worth (of the take that asked). Default 256. */
  leaseTakes?: number;
  /** Unspent leased tokens go back after the caller paused this long. Default 250 ms. */
  idleMs?: number;
  /** ... or once the lease is this old. Default 1,000 ms. */
  maxAgeMs?: number;
  /** Default Date.now. */
  clock?: Clock;
}

interface Lease {
  bucket: BucketRef;
  /** Tokens held here, not yet spent. */
  tokens: number;
  /** Tokens the lease was taken with; it is topped up by as many when half is spent. */
  size: number;
  /** The shared bucket's level (tokens not held here) when the lease was taken. */
  level: number;
  via: QuotaDecision['via'];
  nextRefillAtMs?: number;
  takenAt: number;
  usedAt: number;
}

export class LeasingQuotaStore implements ImmediateQuotaStore {
  private readonly leases = new Map<string, Lease>();
  /** Takes per bucket key in the current window. */
  private heat = new Map<string, number>();
  private windowStart = Number.NEGATIVE_INFINITY;
  /** Lease requests under way, by bucket key: other takes wait for them rather than ask too. */
  private readonly leasing = new Map<string, Promise<unknown>>();
  /** The last level the shared store reported per bucket key (decides whether to lease). */
  private readonly lastLevel = new Map<string, number>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly hotTakes: number;
  private readonly windowMs: number;
  private readonly leaseTakes: number;
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly shared: QuotaStore,
    options: LeasingQuotaStoreOptions = {},
  ) {
    this.hotTakes = options.hotTakes ?? 8;
    this.windowMs = options.windowMs ?? 250;
    this.leaseTakes = options.leaseTakes ?? 256;
    this.idleMs = options.idleMs ?? 250;
    this.maxAgeMs = options.maxAgeMs ?? 1_000;
    this.clock = options.clock ?? Date.now;
  }

  takeNow(bucket: BucketRef, reserve: number, charge = reserve): QuotaDecision | undefined {
    const lease = this.leases.get(bucket.key);
    if (!lease || lease.tokens < reserve) return undefined;
    const now = this.clock();
    if (now - lease.takenAt >= this.maxAgeMs || !sameBucket(lease.bucket, bucket)) return undefined;
    const cost = Math.min(charge, reserve);
    lease.tokens -= cost;
    lease.usedAt = now;
    this.countTake(bucket.key, now);
    // Topped up before it runs out, so that a steady stream of takes never waits for Redis.
    if (lease.tokens < lease.size / 2 && !this.leasing.has(bucket.key)) this.topUp(lease);
    return {
      allowed: true,
      remain: lease.level + lease.tokens,
      cost,
      retryAfterMs: 0,
      via: 'lease',
      ...(lease.nextRefillAtMs !== undefined ? { nextRefillAtMs: lease.nextRefillAtMs } : {}),
    };
  }

  async take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    const now = this.takeNow(bucket, cost);
    if (now) return now;
    const pending = this.leasing.get(bucket.key);
    if (pending) {
      await pending;
      const leased = this.takeNow(bucket, cost);
      if (leased) return leased;
    }
    const extra = this.leaseSize(bucket, cost);
    if (extra === 0) return this.sharedTake(bucket, cost);
    const asking = this.takeLease(bucket, cost, extra);
    this.leasing.set(bucket.key, asking);
    try {
      return await asking;
    } finally {
      if (this.leasing.get(bucket.key) === asking) this.leasing.delete(bucket.key);
    }
  }

  async refund(bucket: BucketRef, amount: number, via: QuotaDecision['via']): Promise<number> {
    if (via !== 'lease') return this.shared.refund(bucket, amount, via);
    const lease = this.leases.get(bucket.key);
    if (lease && sameBucket(lease.bucket, bucket)) {
      lease.tokens += amount;
      return lease.level + lease.tokens;
    }
    // The lease went back meanwhile: so does this.
    return this.shared.refund(bucket, amount, 'redis');
  }

  /** Gives every lease's unspent tokens back (the app is closing). */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    // Leases being taken or topped up land first, so that they go back too.
    await Promise.all([...this.leasing.values()].map((asking) => asking.catch(() => undefined)));
    await Promise.all([...this.leases.keys()].map((key) => this.giveBack(key)));
  }

  /** Leases held now (tests and metrics). */
  get leaseCount(): number {
    return this.leases.size;
  }

  private async sharedTake(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    const decision = await this.shared.take(bucket, cost);
    this.lastLevel.set(bucket.key, decision.remain);
    if (this.lastLevel.size > 10_000) this.lastLevel.delete(this.lastLevel.keys().next().value!);
    return decision;
  }

  /** Tokens to lease beside a take of `cost`, or 0 (not hot, not worth it, or too near empty). */
  private leaseSize(bucket: BucketRef, cost: number): number {
    const now = this.clock();
    const takes = this.countTake(bucket.key, now);
    if (takes < this.hotTakes || cost <= 0) return 0;
    const level = this.lastLevel.get(bucket.key);
    if (level === undefined) return 0;
    const extra = Math.min(cost * this.leaseTakes, Math.floor(bucket.capacity / 16));
    // Worth it only for a few takes at least, and only while it leaves the bucket 3/4 of its level.
    if (extra < cost * 4 || (cost + extra) * 4 > level) return 0;
    return extra;
  }

  private async takeLease(bucket: BucketRef, cost: number, extra: number): Promise<QuotaDecision> {
    const decision = await this.shared.take(bucket, cost + extra);
    if (!decision.allowed || decision.cost !== cost + extra) {
      if (decision.allowed) await this.shared.refund(bucket, decision.cost, decision.via);
      return this.sharedTake(bucket, cost);
    }
    const now = this.clock();
    const old = this.leases.get(bucket.key);
    // What an older lease still held goes on in its successor (one lease per bucket).
    const carried =
      old && sameBucket(old.bucket, bucket) && old.via === decision.via ? old.tokens : 0;
    if (old && carried === 0) void this.refundQuietly(old);
    this.lastLevel.set(bucket.key, decision.remain + extra + carried);
    this.leases.set(bucket.key, {
      bucket,
      tokens: extra + carried,
      size: extra,
      level: decision.remain,
      via: decision.via,
      ...(decision.nextRefillAtMs !== undefined ? { nextRefillAtMs: decision.nextRefillAtMs } : {}),
      takenAt: now,
      usedAt: now,
    });
    this.startSweeping();
    return {
      allowed: true,
      remain: decision.remain + extra + carried,
      cost,
      retryAfterMs: 0,
      via: 'lease',
      ...(decision.nextRefillAtMs !== undefined ? { nextRefillAtMs: decision.nextRefillAtMs } : {}),
    };
  }

  /** Takes another `size` tokens into `lease` in the background, while the bucket has plenty. */
  private topUp(lease: Lease): void {
    const { bucket, size } = lease;
    if (size * 4 > lease.level) return;
    const asking = this.shared
      .take(bucket, size)
      .then(async (decision) => {
        const current = this.leases.get(bucket.key) === lease;
        const granted = decision.allowed && decision.cost === size && decision.via === lease.via;
        if (!current || !granted) {
          if (decision.allowed) await this.shared.refund(bucket, decision.cost, decision.via);
          return;
        }
        lease.tokens += size;
        lease.level = decision.remain;
        lease.takenAt = this.clock();
        if (decision.nextRefillAtMs !== undefined) lease.nextRefillAtMs = decision.nextRefillAtMs;
        this.lastLevel.set(bucket.key, decision.remain + lease.tokens);
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.leasing.get(bucket.key) === asking) this.leasing.delete(bucket.key);
      });
    this.leasing.set(bucket.key, asking);
  }

  private countTake(key: string, now: number): number {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.heat = new Map();
    }
    const n = (this.heat.get(key) ?? 0) + 1;
    this.heat.set(key, n);
    return n;
  }

  private startSweeping(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => this.sweep(), Math.min(this.idleMs, 100));
    this.sweepTimer.unref();
  }

  private sweep(): void {
    const now = this.clock();
    for (const [key, lease] of this.leases) {
      if (now - lease.usedAt >= this.idleMs || now - lease.takenAt >= this.maxAgeMs) {
        void this.giveBack(key);
      }
    }
    if (this.leases.size === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
  }

  private async giveBack(key: string): Promise<void> {
    const lease = this.leases.get(key);
    if (!lease) return;
    this.leases.delete(key);
    await this.refundQuietly(lease);
  }

  private async refundQuietly(lease: Lease): Promise<void> {
    if (lease.tokens <= 0) return;
    // A refund the shared store cannot take stays spent (it logs the fault itself).
    await this.shared.refund(lease.bucket, lease.tokens, lease.via).catch(() => undefined);
  }
}

function sameBucket(a: BucketRef, b: BucketRef): boolean {
  return (
    a.key === b.key &&
    a.capacity === b.capacity &&
    a.daily?.key === b.daily?.key &&
    a.daily?.limit === b.daily?.limit
  );
}
