import { Lru } from '../../shared/cache/lru.js';
import { addressLimitKey } from '../../shared/net/address-limit-key.js';

export interface PageLimitOptions {
  /** Pages an address may ask for at once (the bucket's size). */
  burst: number;
  /** Pages added back each minute. */
  perMinute: number;
  /** Milliseconds since the epoch (tests inject time). */
  clock: () => number;
  /** Addresses tracked at once; past it the quietest are forgotten (they come back full). */
  maxAddresses?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** What the limit decided for one page view. */
export type PageLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Page views per address: a token bucket each, an IPv6 address counted by its /64
 * (address-limit-key.ts). A check reads and writes its bucket in one synchronous step, so
 * concurrent requests of one process can never both take the last page. Apart from the API's
 * quota: a person reading pages never meets it, a scraper walking every train does.
 *
 * Buckets are this process's: behind several API processes an address gets each process's
 * allowance, a bounded multiple (the limit is there to slow a scraper to a human pace, not to
 * meter).
 */
export class PageLimit {
  private readonly buckets: Lru<string, Bucket>;
  private readonly refillPerMs: number;

  constructor(private readonly options: PageLimitOptions) {
    this.buckets = new Lru({ maxEntries: options.maxAddresses ?? 100_000 });
    this.refillPerMs = options.perMinute / 60_000;
  }

  take(address: string): PageLimitVerdict {
    const key = addressLimitKey(address);
    const now = this.options.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, at: now };
    const elapsed = Math.max(0, now - bucket.at);
    const tokens = Math.min(this.options.burst, bucket.tokens + elapsed * this.refillPerMs);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, at: now });
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000)),
    };
  }
}
