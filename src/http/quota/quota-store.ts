import type { BucketParams } from './token-bucket.js';

/** One caller's bucket: where it is kept and how big it is. */
export interface BucketRef {
  /** The caller's key, without the store's prefix (e.g. "anon:203.0.113.7"). */
  key: string;
  capacity: number;
  /**
   * A second limit drawn on by the same takes, atomically with the bucket: a credential's tokens
   * per Shanghai service day. A take is allowed only when both hold the cost.
   */
  daily?: DailyLimitRef;
}

/** A counter of tokens spent in one period (a credential's service day), reset when it ends. */
export interface DailyLimitRef {
  /** The counter's key, without the store's prefix; names the period (e.g. "daily:42:20500"). */
  key: string;
  limit: number;
  /** When the period ends (ms since the epoch): the counter is forgotten then. */
  resetAtMs: number;
}

export interface QuotaDecision {
  allowed: boolean;
  /** Tokens left after this decision. */
  remain: number;
  /** Tokens taken: the cost asked for, or the capacity when the cost is larger; 0 when refused. */
  cost: number;
  /** When refused: ms until the bucket holds the cost; 0 when allowed. */
  retryAfterMs: number;
  /** Which store decided (`lease`: a lease held in this process): a refund goes back to it. */
  via: 'redis' | 'memory' | 'lease';
  /** When the bucket next gains tokens (ms); absent when it is full or refill is off. */
  nextRefillAtMs?: number;
  /** When refused: which limit refused it (the bucket, or the daily limit of BucketRef.daily). */
  limitedBy?: 'bucket' | 'daily';
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

/** A store that can sometimes decide a take at once, with no I/O. */
export interface ImmediateQuotaStore extends QuotaStore {
  /**
   * When it can be decided now, synchronously: a take that needs `reserve` tokens available and
   * keeps `charge` of them (a reservation settled at once: take(reserve) then refund(reserve -
   * charge)); else undefined. Default charge: reserve.
   */
  takeNow(bucket: BucketRef, reserve: number, charge?: number): QuotaDecision | undefined;
  /** Gives back what the store holds for this process alone (leases); the app is closing. */
  close?(): Promise<void>;
}

/** The refill rule shared by every bucket of a store (capacity is per caller). */
export type RefillParams = Omit<BucketParams, 'capacity'>;

/** Milliseconds since the epoch; tests inject their own. */
export type Clock = () => number;
