import type { AttemptKey, AttemptRule } from './attempt-limiter.js';
import { addressLimitKey } from '../../shared/net/address-limit-key.js';

/**
 * The limits on guessing passwords, as keys of the attempt limiter (attempt-limiter.ts: counted
 * and checked in one locked step in Postgres, so it holds on PGlite and across processes).
 *
 * Why per account AND address, with backoff (OWASP Authentication cheat sheet, "Account
 * lockout"): a lock per account alone lets any stranger lock anyone out by failing ten times;
 * keyed by the pair, a stranger's failures only slow the stranger's own address down. Past the
 * free attempts each try waits twice as long as the last (1 s, 2 s, 4 s, ... up to the cap)
 * instead of a hard lock, so the owner is at worst slowed, never shut out. A second key per
 * address alone (ten times as many free attempts) stops one address spraying a password over
 * many accounts. A guesser spread over many addresses is slowed per address only: the password
 * policy (password-policy.ts) is what makes such guessing futile.
 */
export interface SignInLimitOptions {
  /** Attempts per account and address before backoff starts. Default 10 (SIGN_IN_MAX_FAILURES). */
  maxFailures?: number;
  /** The longest wait between attempts, seconds. Default 900 (SIGN_IN_WINDOW_SECONDS). */
  maxDelaySeconds?: number;
}

/** A key with no attempt for a day starts afresh (and may be deleted: forgetQuietAttempts). */
export const FORGET_AFTER_SECONDS = 86_400;
/** One address may fail this many times more often across accounts than on one account. */
const ADDRESS_FACTOR = 10;

/** Names in keys are cut to this length: valid usernames are 32 characters at most. */
const NAME_KEY_LENGTH = 100;

function rules(options: SignInLimitOptions): { pair: AttemptRule; address: AttemptRule } {
  const free = options.maxFailures ?? 10;
  const maxDelaySeconds = options.maxDelaySeconds ?? 900;
  const common = { baseDelaySeconds: 1, maxDelaySeconds, forgetAfterSeconds: FORGET_AFTER_SECONDS };
  return {
    pair: { ...common, free, onSuccess: 'reset' },
    address: { ...common, free: free * ADDRESS_FACTOR, onSuccess: 'refund' },
  };
}

const nameKey = (username: string) => username.toLowerCase().slice(0, NAME_KEY_LENGTH);

/**
 * The keys of a password sign-in (the API's /auth/login and /login, the site's /wp-login.php:
 * one scope, so the three share their counts) or of an application password (scope
 * `app_password`, the site's HTTP Basic).
 */
export function signInKeys(
  attempt: { username: string; address: string },
  options: SignInLimitOptions = {},
  scope: 'sign_in' | 'app_password' = 'sign_in',
): AttemptKey[] {
  const { pair, address } = rules(options);
  const from = addressLimitKey(attempt.address);
  return [
    { scope, key: `account:${nameKey(attempt.username)} address:${from}`, rule: pair },
    { scope, key: `address:${from}`, rule: address },
  ];
}

/**
 * Guesses at the current password when changing it: per account (only a holder of the user's
 * session can try, so the pair adds nothing), 5 free, then backoff up to 15 minutes.
 */
export function passwordChangeKeys(userId: string): AttemptKey[] {
  return [
    {
      scope: 'password_change',
      key: `user:${userId}`,
      rule: {
        free: 5,
        baseDelaySeconds: 1,
        maxDelaySeconds: 900,
        forgetAfterSeconds: FORGET_AFTER_SECONDS,
        onSuccess: 'reset',
      },
    },
  ];
}

/**
 * Registrations per address: 5 free (a household, a classroom), then a minute, doubling up to
 * an hour between registrations; every registration counts, a day without one starts afresh.
 */
export const REGISTRATION_RULE: AttemptRule = {
  free: 5,
  baseDelaySeconds: 60,
  maxDelaySeconds: 3600,
  forgetAfterSeconds: FORGET_AFTER_SECONDS,
  onSuccess: 'keep',
};

export function registrationKeys(address: string): AttemptKey[] {
  return [
    { scope: 'register', key: `address:${addressLimitKey(address)}`, rule: REGISTRATION_RULE },
  ];
}
