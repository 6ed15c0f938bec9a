import type { Db } from '../../shared/db/db.js';
import { issueCredential, type Credential } from './credentials.js';
import { beginAttempt, settleAttempt } from './attempt-limiter.js';
import { assertPasswordStrong } from './password-policy.js';
import type { ScryptParams } from './passwords.js';
import { scopesOfRole } from './scopes.js';
import { passwordChangeKeys, registrationKeys, signInKeys } from './sign-in-throttle.js';
import {
  assertPassword,
  assertUsername,
  changePassword,
  createUser,
  verifyLogin,
  type User,
} from './users.js';

/** What signing in and registering need to know (from configuration). */
export interface AccountSettings {
  scrypt: ScryptParams;
  /** Daily token limit of new web sessions and API keys. */
  dailyTokenLimit: number;
  /** Lifetime of web sessions and the default of API keys, seconds. */
  defaultLifetimeSeconds: number;
  /** Longest lifetime of an API key, seconds. */
  maxLifetimeSeconds: number;
  /** Sign-in attempts per account and address before backoff starts (sign-in-throttle.ts). */
  signInMaxFailures: number;
  /** The longest wait between attempts once backing off, seconds. */
  signInWindowSeconds: number;
}

export interface SignedIn {
  user: User;
  /** The new web session (issuer webapp). */
  session: Credential;
  /** The session's secret: the `token` cookie's value. Shown once. */
  secret: string;
}

export type SignInResult =
  ({ ok: true } & SignedIn) | { ok: false; reason: 'invalid_credentials' | 'banned' } | Throttled;

/** Refused before trying: too many recent attempts for this key; retry after the wait. */
export interface Throttled {
  ok: false;
  reason: 'throttled';
  retryAfterSeconds: number;
}

/** A new web session for a user: every scope the user holds, the usual lifetime and daily limit. */
export async function startWebSession(
  db: Db,
  user: User,
  settings: AccountSettings,
): Promise<SignedIn> {
  const { secret, credential } = await issueCredential(
    db,
    {
      userId: user.userId,
      issuer: 'webapp',
      name: 'web sign-in',
      scopes: scopesOfRole(user.role),
      dailyTokenLimit: settings.dailyTokenLimit,
    },
    { defaultLifetimeSeconds: settings.defaultLifetimeSeconds },
  );
  return { user, session: credential, secret };
}

/** The sign-in limits of these settings (sign-in-throttle.ts). */
export function signInLimits(
  settings: Pick<AccountSettings, 'signInMaxFailures' | 'signInWindowSeconds'>,
) {
  return { maxFailures: settings.signInMaxFailures, maxDelaySeconds: settings.signInWindowSeconds };
}

/**
 * Checks a username and password from a client address under the sign-in limits: the attempt is
 * counted before the password is tried, in one atomic step (concurrent attempts cannot all pass
 * one check), per account and address and per address (sign-in-throttle.ts); while a key is in
 * its backoff the attempt is refused untried. A right password resets the account-and-address
 * key. Used by every password sign-in of the API and the site.
 */
export async function checkSignIn(
  db: Db,
  attempt: { username: string; password: string; address: string },
  settings: Pick<AccountSettings, 'scrypt' | 'signInMaxFailures' | 'signInWindowSeconds'>,
): Promise<{ ok: true; user: User } | { ok: false; reason: 'invalid_credentials' } | Throttled> {
  const keys = signInKeys(attempt, signInLimits(settings));
  const verdict = await beginAttempt(db, keys);
  if (!verdict.allowed)
    return { ok: false, reason: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds };
  const user = await verifyLogin(db, attempt.username, attempt.password, {
    scrypt: settings.scrypt,
  });
  if (!user) return { ok: false, reason: 'invalid_credentials' };
  await settleAttempt(db, keys);
  return { ok: true, user };
}

/**
 * Signs in with a username and password from a client address (checkSignIn's limits): refused
 * alike for an unknown name and a wrong password, refused for a banned user once the password
 * is right; else a new web session.
 */
export async function signIn(
  db: Db,
  attempt: { username: string; password: string; address: string },
  settings: AccountSettings,
): Promise<SignInResult> {
  const checked = await checkSignIn(db, attempt, settings);
  if (!checked.ok) return checked;
  const user = checked.user;
  if (user.bannedAt !== null) return { ok: false, reason: 'banned' };
  return { ok: true, ...(await startWebSession(db, user, settings)) };
}

/**
 * Registers a user (role user) and signs them in. The fields are checked first (AccountError
 * invalid_param: the username's form, the password's length and strength, password-policy.ts);
 * then the registration counts against its address (registrationKeys: 5, then backoff), taken
 * names included, so one address can neither mass-register nor probe names fast.
 */
export async function register(
  db: Db,
  input: { username: string; password: string; address: string },
  settings: AccountSettings,
): Promise<({ ok: true } & SignedIn) | Throttled> {
  assertUsername(input.username);
  assertPassword(input.password);
  assertPasswordStrong(input.password, [input.username]);
  const verdict = await beginAttempt(db, registrationKeys(input.address));
  if (!verdict.allowed)
    return { ok: false, reason: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds };
  const user = await createUser(db, input, { scrypt: settings.scrypt });
  return { ok: true, ...(await startWebSession(db, user, settings)) };
}

/**
 * Changes the password of a signed-in user (users.ts changePassword) with the current password's
 * guesses limited (passwordChangeKeys: 5, then backoff, counted before trying) and the new
 * password held to the policy (AccountError invalid_param, field newPassword).
 */
export async function changePasswordLimited(
  db: Db,
  input: { user: User; currentPassword: string; newPassword: string; keepCredentialId?: string },
  settings: Pick<AccountSettings, 'scrypt'>,
): Promise<{ ok: true } | { ok: false; reason: 'invalid_credentials' } | Throttled> {
  assertPassword(input.newPassword, 'newPassword');
  assertPasswordStrong(input.newPassword, [input.user.username], 'newPassword');
  const keys = passwordChangeKeys(input.user.userId);
  const verdict = await beginAttempt(db, keys);
  if (!verdict.allowed)
    return { ok: false, reason: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds };
  const changed = await changePassword(
    db,
    {
      userId: input.user.userId,
      currentPassword: input.currentPassword,
      newPassword: input.newPassword,
      keepCredentialId: input.keepCredentialId,
    },
    { scrypt: settings.scrypt },
  );
  if (!changed) return { ok: false, reason: 'invalid_credentials' };
  await settleAttempt(db, keys);
  return { ok: true };
}
