import type { BucketParams } from './token-bucket.js';

/** One caller's bucket: where it is kept and how big it is. */
export interface BucketRef {
  /** The caller's key, without the store's prefix (e.g. "anon:203.0.113.7"). */
  key: string;
  capacity: number;
}

export interface QuotaDecision {
  allowed: boolean;
  /** Tokens left after this decision. */
  remain: number;
  /** Tokens taken: the cost asked for, or the capacity when the cost is larger; 0 when refused. */
  cost: number;
  /** When refused: ms until the bucket holds the cost; 0 when allowed. */
  retryAfterMs: number;
  /** Which store decided: a refund must go back to the same one. */
  via: 'redis' | 'memory';
}

/**
 * Keeps the callers' token buckets (rules in token-bucket.ts). A take of cost 0 reads the level
 * (and is always allowed).
 */
export interface QuotaStore {
  take(bucket: BucketRef, cost: number): Promise<QuotaDecision>;
  /** Gives back unused tokens of an earlier take; resolves to the tokens left afterwards. */
  refund(bucket: BucketRef, amount: number, via: QuotaDecision['via']): Promise<number>;
}

/** The refill rule shared by every bucket of a store (capacity is per caller). */
export type RefillParams = Omit<BucketParams, 'capacity'>;

/** Milliseconds since the epoch; tests inject their own. */
export type Clock = () => number;
