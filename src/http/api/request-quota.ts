import type { BucketRef, QuotaDecision, QuotaStore } from '../quota/quota-store.js';
import { ApiError } from './api-error.js';
import type { ApiMeta } from './envelope.js';

/** How a request's charges are ruled (config: QUOTA_MIN_COST, QUOTA_OVER_CAPACITY). */
export interface RequestQuotaRules {
  /**
   * The least a request costs, failed or not (400, 401, 403, 404, 429 included; 5xx, the
   * server's own failures, excepted): so a caller cannot probe without limit. 0 = failures are
   * free (the behaviour before). Free operations (sign-in, registration) are free regardless.
   */
  minCost: number;
  /**
   * A fixed cost above what the caller's bucket (or its key's daily limit) can ever hold:
   * `refuse` answers 403 cost_exceeds_quota_limit (waiting cannot help); `whole_bucket` charges
   * the whole bucket instead, and a caller short of it waits for a full bucket (429).
   */
  overCapacity: 'refuse' | 'whole_bucket';
  /** What would let the caller make a request of this cost (said in the 403). */
  largerBucketHint: (cost: number) => string;
}

export const FAILURES_FREE: RequestQuotaRules = {
  minCost: 0,
  overCapacity: 'whole_bucket',
  largerBucketHint: () => '',
};

/**
 * What one /api/v2 request has been charged, kept by the API edge (v2-edge.ts) from its first
 * hook to its last. `charge(cost)` takes the tokens or throws rate_limited (or, for a cost no
 * bucket of this caller can hold, cost_exceeds_quota_limit); operations whose cost depends on
 * what they return reserve the most they can cost and `settle` keeps what they did cost and
 * gives back the rest; a request that fails without settling gets everything back but the
 * minimum cost (`release`), or is charged the minimum then when it held nothing. So `remain`
 * never goes below zero and never counts tokens that another concurrent request already spent.
 */
export class RequestQuota {
  /** Tokens taken and not given back. */
  private held = 0;
  private decision?: QuotaDecision;
  /** The bucket's next refill as last seen (a charge or a level read). */
  private nextRefill?: number;
  private reported?: ApiMeta;
  /** Whether the cost is final (settled): a later failure keeps it. */
  private settled = false;
  /** Whether charge() ran (allowed or not). */
  charged = false;

  constructor(
    private readonly store: QuotaStore,
    readonly bucket: BucketRef,
    readonly rules: RequestQuotaRules = FAILURES_FREE,
  ) {}

  /** The least this request costs (RequestQuotaRules.minCost). */
  get minCost(): number {
    return this.rules.minCost;
  }

  /** The most this caller can ever spend on one request: its bucket, and its key's daily limit. */
  get ceiling(): number {
    const daily = this.bucket.daily?.limit;
    return daily === undefined ? this.bucket.capacity : Math.min(this.bucket.capacity, daily);
  }

  /**
   * Takes `cost` tokens (at least the minimum) or throws ApiError rate_limited (with the wait in
   * whole seconds, rounded up), or cost_exceeds_quota_limit when the cost is above what this
   * caller can ever hold and the rules refuse it. A `reservation` (the most a per-record
   * operation may cost, settled later) is never refused for its size: the store takes at most
   * the whole bucket for it.
   */
  async charge(asked: number, options: { reservation?: boolean } = {}): Promise<void> {
    const cost = Math.max(asked, this.rules.minCost);
    if (!options.reservation && this.rules.overCapacity === 'refuse' && cost > this.ceiling) {
      throw this.costExceeds(cost);
    }
    this.charged = true;
    const decision = await this.store.take(this.bucket, cost);
    this.decision = decision;
    this.nextRefill = decision.nextRefillAtMs;
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      this.reported = { remain: decision.remain, cost: 0, retryAfter };
      const which =
        decision.limitedBy === 'daily'
          ? `this key's daily limit (${this.bucket.daily?.limit ?? 0} per service day) is reached`
          : `quota exhausted: this request costs ${Math.min(cost, this.bucket.capacity)}, ${decision.remain} left`;
      throw new ApiError('rate_limited', `${which}; retry in ${retryAfter} s`, retryAfter);
    }
    this.held = decision.cost;
    this.reported = { remain: decision.remain, cost: decision.cost };
  }

  /**
   * Keeps `actualCost` of what `charge` took (never more), gives the rest back, and makes the
   * cost final: a failure after this keeps it (a picture that failed to draw still costs).
   */
  async settle(actualCost: number): Promise<void> {
    if (!this.decision?.allowed || this.settled) return;
    this.settled = true;
    const keep = Math.min(Math.max(actualCost, this.rules.minCost), this.held);
    const refund = this.held - keep;
    if (refund <= 0) return;
    try {
      const remain = await this.store.refund(this.bucket, refund, this.decision.via);
      this.reported = { remain, cost: keep };
      this.held = keep;
    } catch {
      // Redis went away between charge and settle: the reservation stays spent (logged by the store).
    }
  }

  /**
   * Keeps at most `cost` of what the request holds, even after settle (a 304 answered for a
   * read already charged in full), gives the rest back and makes the cost final.
   */
  async reduceTo(cost: number): Promise<void> {
    if (!this.decision?.allowed) return;
    this.settled = true;
    const refund = this.held - Math.min(cost, this.held);
    if (refund <= 0) return;
    try {
      const remain = await this.store.refund(this.bucket, refund, this.decision.via);
      this.held -= refund;
      this.reported = { remain, cost: this.held };
    } catch {
      // As in settle: the tokens stay spent when the store cannot take them back.
    }
  }

  /**
   * The request failed: gives back everything it holds but the minimum cost, unless its cost was
   * settled; a request that held nothing (refused before or by its charge) is charged the
   * minimum now, when the bucket has it (a refused take never goes below zero). `serverFault`
   * (5xx): everything is given back and nothing charged.
   */
  async release(options: { serverFault?: boolean } = {}): Promise<void> {
    if (this.settled) return;
    if (this.held > 0) {
      if (options.serverFault) {
        this.settled = true;
        await this.giveBack(this.held);
      } else await this.settle(0);
      return;
    }
    if (options.serverFault || this.rules.minCost === 0) return;
    this.settled = true;
    try {
      const decision = await this.store.take(this.bucket, this.rules.minCost);
      this.nextRefill = decision.nextRefillAtMs;
      if (!decision.allowed) {
        this.reported ??= { remain: decision.remain, cost: 0 };
        return;
      }
      this.reported = {
        remain: decision.remain,
        cost: decision.cost,
        ...(this.reported?.retryAfter !== undefined
          ? { retryAfter: this.reported.retryAfter }
          : {}),
      };
    } catch {
      // The store cannot be reached: the failure is answered without its charge.
    }
  }

  private async giveBack(amount: number): Promise<void> {
    if (!this.decision?.allowed) return;
    try {
      const remain = await this.store.refund(this.bucket, amount, this.decision.via);
      this.reported = { remain, cost: 0 };
      this.held = 0;
    } catch {
      // Redis went away between charge and release: the reservation stays spent.
    }
  }

  private costExceeds(cost: number): ApiError {
    const daily = this.bucket.daily;
    const limit =
      daily !== undefined && daily.limit < this.bucket.capacity
        ? `this key's daily limit of ${daily.limit}`
        : `the capacity of this caller's bucket, ${this.bucket.capacity}`;
    return new ApiError(
      'cost_exceeds_quota_limit',
      `this request costs ${cost} tokens, more than ${limit}, so waiting cannot make it possible; ${this.rules.largerBucketHint(cost)}`,
    );
  }

  /** The meta of this request: what it was charged, or the caller's level at cost 0. */
  async meta(): Promise<ApiMeta> {
    if (!this.reported) {
      try {
        const decision = await this.store.take(this.bucket, 0);
        this.nextRefill = decision.nextRefillAtMs;
        this.reported = { remain: decision.remain, cost: 0 };
      } catch {
        this.reported = { remain: 0, cost: 0 };
      }
    }
    return this.reported;
  }

  /** When the caller's bucket next gains tokens (ms), as of this request's charge. */
  get nextRefillAtMs(): number | undefined {
    return this.nextRefill;
  }

  /** The meta already known, without asking the store (undefined before charge or meta()). */
  get knownMeta(): ApiMeta | undefined {
    return this.reported;
  }
}
