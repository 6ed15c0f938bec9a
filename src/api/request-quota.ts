import type { BucketRef, QuotaDecision, QuotaStore } from '../quota/quota-store.js';
import { ApiError } from './api-error.js';
import type { ApiMeta } from './envelope.js';

/**
 * What one /api/v2 request has been charged, kept by the API edge (v2-edge.ts) from its first
 * hook to its last. `charge(cost)` takes the tokens or throws rate_limited; operations whose cost
 * depends on what they return reserve the most they can cost and `settle` keeps what they did
 * cost and gives back the rest; a request that fails without settling gets everything back
 * (`release`). So `remain` never goes below zero and never counts tokens that another concurrent
 * request already spent. Requests refused or failing cost 0 and report the caller's level.
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
  ) {}

  /** Takes `cost` tokens or throws ApiError rate_limited (with the wait in whole seconds, rounded up). */
  async charge(cost: number): Promise<void> {
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
    const keep = Math.min(actualCost, this.held);
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

  /** The request failed: gives back everything it holds unless its cost was settled. */
  async release(): Promise<void> {
    if (this.settled || this.held === 0) return;
    await this.settle(0);
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
