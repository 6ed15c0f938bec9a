import { Redis } from 'ioredis';
import type { Config } from '../../shared/config/config.js';
import type { Logger } from '../../shared/log/logger.js';
import { FallbackQuotaStore } from './fallback-quota-store.js';
import { MemoryQuotaStore } from './memory-quota-store.js';
import { LeasingQuotaStore } from './leasing-quota-store.js';
import type { Clock, ImmediateQuotaStore, RefillParams } from './quota-store.js';
import { RedisQuotaStore } from './redis-quota-store.js';

export function refillFromConfig(config: Config): RefillParams {
  return {
    refillAmount: config.QUOTA_REFILL_AMOUNT,
    refillIntervalMs: config.QUOTA_REFILL_INTERVAL_SECONDS * 1000,
  };
}

/**
 * A Redis connection for the quota: commands fail fast while disconnected (no offline queue, one
 * retry) and time out after QUOTA_REDIS_TIMEOUT_MS, so that the in-process fallback answers
 * instead; reconnection is retried forever, every 2 s at most.
 */
export function createQuotaRedis(url: string, config: Config): Redis {
  return new Redis(url, {
    connectionName: 'emutrack-api-quota',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: config.QUOTA_REDIS_TIMEOUT_MS,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    // Several requests' scripts in one round trip under load.
    enableAutoPipelining: true,
  });
}

export interface QuotaStoreDeps {
  config: Config;
  logger: Logger;
  /** A connection from createQuotaRedis (or alike); absent = in-process buckets only. */
  redis?: Redis;
  /** Time for the in-process buckets and, when given, for the Redis script too (tests). */
  clock?: Clock;
}

/**
 * Redis buckets with the in-process fallback and leases for busy callers
 * (leasing-quota-store.ts), or in-process buckets alone when there is no Redis.
 *
 * The leases stay because the bench says so (`--only api`, docs/performance.md): with
 * a Redis script for every take, the records route fell to 0.06-0.22x of the bare route from
 * 0.28-0.65x in the runs with them, since a request that cannot be decided at once waits for its
 * script (and the prepared answers, which need a store that decides at once, stop); without
 * the prepared answers the leases still double the rate (0.17x against 0.09x). The bearer key's
 * ratio to anonymous swung as much without leases (0.65-1.70x) as with them (0.29-1.48x) on the
 * shared 2-core machine: the leases are not what it depends on.
 */
export function createQuotaStore(deps: QuotaStoreDeps): ImmediateQuotaStore {
  const refill = refillFromConfig(deps.config);
  const memory = new MemoryQuotaStore({ refill, clock: deps.clock });
  if (!deps.redis) return memory;
  const redisStore = new RedisQuotaStore({
    redis: deps.redis,
    refill,
    keyPrefix: deps.config.QUOTA_KEY_PREFIX,
    clock: deps.clock,
  });
  return new LeasingQuotaStore(
    new FallbackQuotaStore(deps.redis, redisStore, memory, deps.logger),
    {
      ...(deps.clock ? { clock: deps.clock } : {}),
    },
  );
}
