import type { Queryable } from '../db/db.js';

/**
 * Limits guessing at passwords: failed sign-ins are counted per account (its name in lower
 * case, known or not) and per client address over a sliding window; once either count reaches
 * the limit, further attempts are refused until the oldest failure in the window ages out. Kept
 * in the database, so every API process of a deployment shares the counts, with or without Redis.
 */
export interface SignInThrottleOptions {
  /** Failed attempts allowed per account and per address in the window. Default 10. */
  maxFailures?: number;
  /** The window in seconds. Default 900 (15 minutes). */
  windowSeconds?: number;
}

export interface SignInThrottleState {
  allowed: boolean;
  /** When refused: seconds until an attempt is allowed again (at least 1). */
  retryAfterSeconds: number;
}

const DEFAULT_MAX_FAILURES = 10;
const DEFAULT_WINDOW_SECONDS = 900;

function settings(options: SignInThrottleOptions) {
  return {
    max: options.maxFailures ?? DEFAULT_MAX_FAILURES,
    window: options.windowSeconds ?? DEFAULT_WINDOW_SECONDS,
  };
}

/** Whether a sign-in for this account from this address may be tried now. */
export async function checkSignInAllowed(
  db: Queryable,
  attempt: { username: string; address: string; now?: Date },
  options: SignInThrottleOptions = {},
): Promise<SignInThrottleState> {
  const { max, window } = settings(options);
  const now = attempt.now ?? new Date();
  // For each key: the failure whose ageing out brings the count below the limit.
  const r = await db.query<{ unblock_at: Date | string | null }>(
    `SELECT max(unblock_at) AS unblock_at FROM (
       SELECT (SELECT failed_at FROM sign_in_failures
                WHERE username_key = $1 AND failed_at > $3::timestamptz - make_interval(secs => $4)
                ORDER BY failed_at DESC OFFSET $5 - 1 LIMIT 1) + make_interval(secs => $4) AS unblock_at
       UNION ALL
       SELECT (SELECT failed_at FROM sign_in_failures
                WHERE address = $2 AND failed_at > $3::timestamptz - make_interval(secs => $4)
                ORDER BY failed_at DESC OFFSET $5 - 1 LIMIT 1) + make_interval(secs => $4)
     ) AS keys`,
    [attempt.username.toLowerCase(), attempt.address, now, window, max],
  );
  const unblockAt = r.rows[0]?.unblock_at;
  if (unblockAt === null || unblockAt === undefined) return { allowed: true, retryAfterSeconds: 0 };
  const waitMs = new Date(unblockAt).getTime() - now.getTime();
  if (waitMs <= 0) return { allowed: true, retryAfterSeconds: 0 };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Counts one failed sign-in (and forgets failures older than the window). */
export async function recordSignInFailure(
  db: Queryable,
  attempt: { username: string; address: string; now?: Date },
  options: SignInThrottleOptions = {},
): Promise<void> {
  const { window } = settings(options);
  const now = attempt.now ?? new Date();
  await db.query(
    `WITH gone AS (DELETE FROM sign_in_failures WHERE failed_at <= $3::timestamptz - make_interval(secs => $4))
     INSERT INTO sign_in_failures (username_key, address, failed_at) VALUES ($1, $2, $3)`,
    [attempt.username.toLowerCase(), attempt.address, now, window],
  );
}
