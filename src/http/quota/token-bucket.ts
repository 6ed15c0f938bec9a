/**
 * The quota's token bucket, as one pure function. The in-process store runs it directly; the
 * Redis store runs the same steps in Lua (redis-quota-store.ts), and a test drives both with the
 * same operations to show they agree.
 *
 * Rules:
 * - A bucket nobody has touched is full. A full bucket is not stored at all (absent = full).
 * - Refill is discrete, as the live service reports it (`refillAmount` every
 *   `refillIntervalSeconds`, next at `nextRefillAt`): whole intervals since the bucket's anchor
 *   add `refillAmount` each, up to capacity. The anchor moves by whole intervals, and restarts
 *   at "now" whenever the bucket is full, so the first refill comes one interval after the first
 *   spend from a full bucket.
 * - `take` of cost c: allowed when tokens >= c, and then tokens -= c. Refused takes change
 *   nothing. Tokens never go below zero. A cost above the capacity is charged as the capacity
 *   (the whole bucket), so that no request is refused forever (see `QuotaDecision.cost`).
 * - `refund` of n: tokens += n, up to capacity (returns a reservation's unused part).
 * - A refused take reports how long until the bucket holds the cost. With refill off
 *   (refillAmount 0) nothing ever comes back; the wait reported is then one refill interval, as a
 *   back-off hint.
 */
export interface BucketParams {
  capacity: number;
  /** Tokens added per interval; 0 = refill off. */
  refillAmount: number;
  refillIntervalMs: number;
}

export interface BucketState {
  tokens: number;
  /** The time (ms) the current refill interval started. */
  anchorMs: number;
}

export type BucketOperation = { kind: 'take'; cost: number } | { kind: 'refund'; amount: number };

export interface BucketOutcome {
  /** The state to store; undefined = delete (full). */
  state: BucketState | undefined;
  allowed: boolean;
  /** Tokens left after the operation. */
  remain: number;
  /** Tokens taken (0 when refused, and for refunds). */
  charged: number;
  /** When refused: ms until the bucket holds the cost. 0 when allowed. */
  retryAfterMs: number;
  /** How long to keep the stored state (ms until it is full again); undefined = forever. */
  ttlMs: number | undefined;
}

export function applyBucket(
  stored: BucketState | undefined,
  p: BucketParams,
  nowMs: number,
  op: BucketOperation,
): BucketOutcome {
  let tokens = stored ? Math.min(stored.tokens, p.capacity) : p.capacity;
  let anchor = stored ? stored.anchorMs : nowMs;
  const refills = p.refillAmount > 0;
  if (refills && tokens < p.capacity) {
    const steps = Math.floor((nowMs - anchor) / p.refillIntervalMs);
    if (steps > 0) {
      tokens = Math.min(p.capacity, tokens + steps * p.refillAmount);
      anchor += steps * p.refillIntervalMs;
    }
  }
  if (tokens >= p.capacity) anchor = nowMs;

  let allowed = true;
  let charged = 0;
  let retryAfterMs = 0;
  if (op.kind === 'refund') {
    tokens = Math.min(p.capacity, tokens + op.amount);
  } else {
    const cost = Math.min(op.cost, p.capacity);
    if (tokens >= cost) {
      tokens -= cost;
      charged = cost;
    } else {
      allowed = false;
      retryAfterMs = refills
        ? anchor + Math.ceil((cost - tokens) / p.refillAmount) * p.refillIntervalMs - nowMs
        : p.refillIntervalMs;
    }
  }

  if (tokens >= p.capacity) {
    return { state: undefined, allowed, remain: tokens, charged, retryAfterMs, ttlMs: 0 };
  }
  const ttlMs = refills
    ? anchor + Math.ceil((p.capacity - tokens) / p.refillAmount) * p.refillIntervalMs - nowMs
    : undefined;
  return {
    state: { tokens, anchorMs: anchor },
    allowed,
    remain: tokens,
    charged,
    retryAfterMs,
    ttlMs,
  };
}

/** A daily limit drawn on together with a bucket (see BucketRef.daily). */
export interface DailyParams {
  limit: number;
  /** Tokens already spent in the period. */
  spent: number;
  /** When the period ends (ms). */
  resetAtMs: number;
}

export interface LimitedOutcome extends BucketOutcome {
  /** Tokens spent in the period afterwards (unchanged when refused). */
  spent: number;
  /** When refused: which limit refused (the bucket wins when both do, for the wait is the longer). */
  limitedBy?: 'bucket' | 'daily';
}

/**
 * applyBucket with a daily limit beside it, decided together: a take is allowed only when the
 * bucket holds the cost and the period has room for it (`spent + cost <= limit`), and then both
 * are charged; a refused take changes neither. Refunds give back to both. `remain` is the smaller
 * of the two: what the caller can still spend now. A refusal by the daily limit waits until the
 * period ends.
 */
export function applyBucketAndDaily(
  stored: BucketState | undefined,
  p: BucketParams,
  daily: DailyParams,
  nowMs: number,
  op: BucketOperation,
): LimitedOutcome {
  if (op.kind === 'refund') {
    const outcome = applyBucket(stored, p, nowMs, op);
    const spent = Math.max(0, daily.spent - op.amount);
    return {
      ...outcome,
      remain: Math.min(outcome.remain, Math.max(0, daily.limit - spent)),
      spent,
    };
  }
  const cost = Math.min(op.cost, p.capacity);
  const dailyOk = daily.spent + cost <= daily.limit;
  const outcome = applyBucket(stored, p, nowMs, dailyOk ? op : { kind: 'take', cost: 0 });
  const dailyLeft = (spent: number) => Math.max(0, daily.limit - spent);
  if (dailyOk) {
    const spent = daily.spent + outcome.charged;
    return {
      ...outcome,
      remain: Math.min(outcome.remain, dailyLeft(spent)),
      spent,
      ...(outcome.allowed ? {} : { limitedBy: 'bucket' as const }),
    };
  }
  // Refused by the day (the bucket was only read, as a take of 0).
  const bucketWouldRefuse = outcome.remain < cost;
  const bucketWait = bucketWouldRefuse ? applyBucket(stored, p, nowMs, op).retryAfterMs : 0;
  return {
    ...outcome,
    allowed: false,
    charged: 0,
    remain: Math.min(outcome.remain, dailyLeft(daily.spent)),
    retryAfterMs: Math.max(daily.resetAtMs - nowMs, bucketWait, 1),
    spent: daily.spent,
    limitedBy: 'daily',
  };
}
