import type { Db } from '../db/db.js';
import { issueCredential, type Credential } from './credentials.js';
import type { ScryptParams } from './passwords.js';
import { scopesOfRole } from './scopes.js';
import { checkSignInAllowed, recordSignInFailure } from './sign-in-throttle.js';
import { createUser, verifyLogin, type User } from './users.js';

/** What signing in and registering need to know (from configuration). */
export interface AccountSettings {
  scrypt: ScryptParams;
  /** Daily token limit of new web sessions and API keys. */
  dailyTokenLimit: number;
  /** Lifetime of web sessions and the default of API keys, seconds. */
  defaultLifetimeSeconds: number;
  /** Longest lifetime of an API key, seconds. */
  maxLifetimeSeconds: number;
  /** Failed sign-ins allowed per account and per address in the window. */
  signInMaxFailures: number;
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
  | ({ ok: true } & SignedIn)
  | { ok: false; reason: 'invalid_credentials' | 'banned' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

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

/**
 * Signs in with a username and password from a client address: refused while the account or the
 * address has too many recent failures (throttled, before the password is even tried), refused
 * alike for an unknown name and a wrong password (each counted as a failure), refused for a
 * banned user once the password is right; else a new web session.
 */
export async function signIn(
  db: Db,
  attempt: { username: string; password: string; address: string },
  settings: AccountSettings,
): Promise<SignInResult> {
  const throttle = {
    maxFailures: settings.signInMaxFailures,
    windowSeconds: settings.signInWindowSeconds,
  };
  const state = await checkSignInAllowed(db, attempt, throttle);
  if (!state.allowed) {
    return { ok: false, reason: 'throttled', retryAfterSeconds: state.retryAfterSeconds };
  }
  const user = await verifyLogin(db, attempt.username, attempt.password, {
    scrypt: settings.scrypt,
  });
  if (!user) {
    await recordSignInFailure(db, attempt, throttle);
    return { ok: false, reason: 'invalid_credentials' };
  }
  if (user.bannedAt !== null) return { ok: false, reason: 'banned' };
  return { ok: true, ...(await startWebSession(db, user, settings)) };
}

/** Registers a user (role user) and signs them in (AccountError username_taken / invalid_param). */
export async function register(
  db: Db,
  input: { username: string; password: string },
  settings: AccountSettings,
): Promise<SignedIn> {
  const user = await createUser(db, input, { scrypt: settings.scrypt });
  return startWebSession(db, user, settings);
}
