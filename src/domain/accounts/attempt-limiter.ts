import { toDate, type Db, type Queryable } from '../../shared/db/db.js';

/**
 * How one limited key slows attempts down: the first `free` attempts go at once; after that each
 * attempt must wait `baseDelaySeconds * 2^(n - free)` seconds after the n-th (exponential
 * backoff), never more than `maxDelaySeconds`; a key with no attempt for `forgetAfterSeconds`
 * starts afresh. OWASP's Authentication cheat sheet recommends backoff over a hard lock: a
 * hard lock is a denial of service anyone can cause, a backoff only slows the guesser down.
 */
export interface AttemptRule {
  free: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  forgetAfterSeconds: number;
  /**
   * What a success does to the key: `reset` (a sign-in that proved the password: the pair of
   * account and address starts afresh), `refund` (the attempt is not counted: an address's
   * total across accounts), `keep` (every attempt counts: registrations per address).
   */
  onSuccess: 'reset' | 'refund' | 'keep';
}

/** One key an attempt is counted under: `scope` names the operation, `key` who tries it. */
export interface AttemptKey {
  scope: string;
  key: string;
  rule: AttemptRule;
}

export type AttemptVerdict =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; scope: string };

interface LimitRow {
  scope: string;
  key: string;
  attempts: number;
  last_attempt_at: Date | string | null;
  blocked_until: Date | string | null;
}

const toTime = (v: Date | string | null): number | undefined =>
  v === null ? undefined : toDate(v).getTime();

/** The wait after the n-th counted attempt, in milliseconds (0 while attempts are free). */
export function backoffMs(rule: AttemptRule, attempts: number): number {
  if (attempts < rule.free) return 0;
  const exponent = Math.min(attempts - rule.free, 40);
  return Math.min(rule.maxDelaySeconds, rule.baseDelaySeconds * 2 ** exponent) * 1000;
}

/**
 * Counts an attempt under every key, or none: refused (with the longest wait) while any key is
 * in its backoff, else each key's count is raised and its next allowed time set, in one
 * transaction with the keys' rows locked (in a fixed order, so two attempts never deadlock).
 * The attempt is counted before it is tried, as if it failed: concurrent attempts each see the
 * ones before them, so no more than the free number get through a burst. Call `settleAttempt`
 * after a success.
 */
export async function beginAttempt(
  db: Db,
  keys: readonly AttemptKey[],
  now: Date = new Date(),
): Promise<AttemptVerdict> {
  const sorted = [...keys].sort((a, b) =>
    a.scope === b.scope ? (a.key < b.key ? -1 : 1) : a.scope < b.scope ? -1 : 1,
  );
  const t = now.getTime();
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO attempt_limits (scope, key)
       SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (scope, key) DO NOTHING`,
      [sorted.map((k) => k.scope), sorted.map((k) => k.key)],
    );
    const rows = new Map<string, LimitRow>();
    for (const k of sorted) {
      // One statement per key, in order: the row locks are taken in the same order by everyone.
      const r = await tx.query<LimitRow>(
        `SELECT scope, key, attempts, last_attempt_at, blocked_until FROM attempt_limits
          WHERE scope = $1 AND key = $2 FOR UPDATE`,
        [k.scope, k.key],
      );
      rows.set(`${k.scope}\u0000${k.key}`, r.rows[0]!);
    }
    let wait = 0;
    let waitScope = '';
    const counted: Array<{ k: AttemptKey; attempts: number }> = [];
    for (const k of sorted) {
      const row = rows.get(`${k.scope}\u0000${k.key}`)!;
      const last = toTime(row.last_attempt_at);
      const forgotten = last === undefined || t - last >= k.rule.forgetAfterSeconds * 1000;
      const blockedUntil = forgotten ? undefined : toTime(row.blocked_until);
      if (blockedUntil !== undefined && blockedUntil > t && blockedUntil - t > wait) {
        wait = blockedUntil - t;
        waitScope = k.scope;
      }
      counted.push({ k, attempts: (forgotten ? 0 : row.attempts) + 1 });
    }
    if (wait > 0)
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
        scope: waitScope,
      };
    for (const { k, attempts } of counted) {
      const delay = backoffMs(k.rule, attempts);
      await tx.query(
        `UPDATE attempt_limits SET attempts = $3, last_attempt_at = $4, blocked_until = $5
          WHERE scope = $1 AND key = $2`,
        [k.scope, k.key, attempts, now, delay > 0 ? new Date(t + delay) : null],
      );
    }
    return { allowed: true } as const;
  });
}

/**
 * After a successful attempt: each key as its rule says (reset, refund one attempt, or keep).
 * A refund lowers the count and, if that brings it back under the free number, lifts the wait.
 */
export async function settleAttempt(db: Queryable, keys: readonly AttemptKey[]): Promise<void> {
  const reset = keys.filter((k) => k.rule.onSuccess === 'reset');
  const refund = keys.filter((k) => k.rule.onSuccess === 'refund');
  if (reset.length > 0) {
    await db.query(
      `UPDATE attempt_limits SET attempts = 0, blocked_until = NULL
        WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [reset.map((k) => k.scope), reset.map((k) => k.key)],
    );
  }
  for (const k of refund) {
    await db.query(
      `UPDATE attempt_limits SET attempts = greatest(attempts - 1, 0),
              blocked_until = CASE WHEN attempts - 1 < $3 THEN NULL ELSE blocked_until END
        WHERE scope = $1 AND key = $2`,
      [k.scope, k.key, k.rule.free],
    );
  }
}

/** Deletes keys quiet for longer than `olderThanSeconds` (their counts would start afresh anyway). */
export async function forgetQuietAttempts(
  db: Queryable,
  olderThanSeconds: number,
  now: Date = new Date(),
): Promise<number> {
  const r = await db.query(
    `DELETE FROM attempt_limits WHERE last_attempt_at < $1::timestamptz - make_interval(secs => $2)`,
    [now, olderThanSeconds],
  );
  return r.rowCount ?? 0;
}
