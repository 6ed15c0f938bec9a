import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/log/logger.js';
import type { MemoryQuotaStore } from './memory-quota-store.js';
import type { BucketRef, QuotaDecision, QuotaStore } from './quota-store.js';
import type { RedisQuotaStore } from './redis-quota-store.js';

/**
 * Redis buckets with an in-process stand-in: while Redis cannot answer (not connected, a command
 * failed or timed out), requests are decided by the in-process buckets instead of failing, and
 * the fault is logged once per outage. Once the connection is ready again, Redis decides again.
 *
 * What that costs: during an outage each API process counts on its own, from full buckets, so a
 * caller may get more than its quota; and spending during the outage is not carried back into
 * Redis. A quota that fails open for a while is the price of an API that stays up.
 */
export interface FallbackQuotaStoreOptions {
  /**
   * After a failed command on a connection that still looks ready (Redis hung, a timeout), how
   * long requests skip Redis before one tries it again. Default 1,000 ms.
   */
  probeIntervalMs?: number;
}

export class FallbackQuotaStore implements QuotaStore {
  private faulty = false;
  private nextProbeAt = 0;
  private readonly probeIntervalMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly primary: RedisQuotaStore,
    private readonly fallback: MemoryQuotaStore,
    private readonly logger: Logger,
    options: FallbackQuotaStoreOptions = {},
  ) {
    this.probeIntervalMs = options.probeIntervalMs ?? 1_000;
    redis.on('ready', () => {
      this.nextProbeAt = 0;
      this.recovered();
    });
    // ioredis reports connection errors here as well as on the command; without a listener Node
    // would print each one as an unhandled 'error' event.
    redis.on('error', (err: Error) => this.fault(err));
  }

  /** Whether requests are currently decided in this process (Redis is away). */
  get degraded(): boolean {
    return this.faulty || this.redis.status !== 'ready';
  }

  async take(bucket: BucketRef, cost: number): Promise<QuotaDecision> {
    if (this.redis.status === 'ready') {
      if (!this.faulty || Date.now() >= this.nextProbeAt) {
        try {
          const decision = await this.primary.take(bucket, cost);
          this.recovered();
          return decision;
        } catch (err) {
          this.nextProbeAt = Date.now() + this.probeIntervalMs;
          this.fault(err);
        }
      }
    } else {
      this.fault(new Error(`Redis connection is ${this.redis.status}`));
    }
    return this.fallback.take(bucket, cost);
  }

  /** Rejects when Redis cannot take the refund back: the reservation then stays spent. */
  async refund(bucket: BucketRef, amount: number, via: QuotaDecision['via']): Promise<number> {
    if (via === 'memory') return this.fallback.refund(bucket, amount);
    try {
      return await this.primary.refund(bucket, amount);
    } catch (err) {
      this.fault(err);
      throw err;
    }
  }

  private fault(err: unknown): void {
    if (this.faulty) return;
    this.faulty = true;
    this.logger.error(
      { err },
      'quota: Redis is unavailable; deciding quota in this process until it is back',
    );
  }

  private recovered(): void {
    if (!this.faulty) return;
    this.faulty = false;
    this.logger.warn('quota: Redis is back; quota is decided in Redis again');
  }
}
