import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/log/logger.js';
import { FallbackQuotaStore } from '../quota/fallback-quota-store.js';
import { MemoryQuotaStore } from '../quota/memory-quota-store.js';
import type { Clock, QuotaStore } from '../quota/quota-store.js';
import { RedisQuotaStore } from '../quota/redis-quota-store.js';
import { addressLimitKey } from '../../shared/net/address-limit-key.js';

export interface OAuthRateLimiterOptions {
  /** Requests allowed per minute per address (the bucket's size and its refill per minute). */
  perMinute: number;
  /** What is limited: part of the bucket key ("authorize", "token"). */
  name: string;
  /** Shared buckets across API processes; absent = in this process. */
  redis?: Redis;
  /** Prefix of the Redis keys (the quota's prefix). */
  keyPrefix: string;
  logger: Logger;
  clock?: Clock;
}

/**
 * Per-address request limits of the OAuth endpoints: a token bucket of
 * `perMinute` requests refilled by 1/60 of that every second, so a burst of a minute's worth is
 * allowed and then a steady rate. The quota's bucket code does the work (Redis when configured,
 * in process otherwise), in buckets of their own: these limits never touch a user's API quota.
 */
export class OAuthRateLimiter {
  private readonly store: QuotaStore;
  private readonly capacity: number;

  constructor(private readonly options: OAuthRateLimiterOptions) {
    // Refill in whole tokens: one every 60/perMinute seconds.
    const refill = {
      refillAmount: 1,
      refillIntervalMs: Math.max(1, Math.floor(60_000 / options.perMinute)),
    };
    this.capacity = options.perMinute;
    const memory = new MemoryQuotaStore({ refill, clock: options.clock });
    this.store = options.redis
      ? new FallbackQuotaStore(
          options.redis,
          new RedisQuotaStore({
            redis: options.redis,
            refill,
            keyPrefix: options.keyPrefix,
            clock: options.clock,
          }),
          memory,
          options.logger,
        )
      : memory;
  }

  /** Takes one request from the address's bucket: undefined when allowed, else seconds to wait. */
  async take(address: string): Promise<number | undefined> {
    const decision = await this.store.take(
      { key: `oauth-${this.options.name}:${addressLimitKey(address)}`, capacity: this.capacity },
      1,
    );
    return decision.allowed ? undefined : Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  }
}
