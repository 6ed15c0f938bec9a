import { toDate, type Db, type Queryable } from '../../shared/db/db.js';
import { AccountError } from './account-error.js';
import {
  DEFAULT_SCRYPT_PARAMS,
  dummyPasswordHash,
  hashPassword,
  verifyPassword,
  type ScryptParams,
} from './passwords.js';
import type { Role } from './scopes.js';

/** A user as the rest of the product sees it (never the password hash). */
export interface User {
  /** Decimal string of the database id (the Session's `user.userId`). */
  userId: string;
  username: string;
  /** The e-mail address, when one is known (accounts made before addresses were kept have none). */
  email: string | null;
  role: Role;
  /** When the user was banned; null when not banned. */
  bannedAt: Date | null;
  createdAt: Date;
  passwordChangedAt: Date;
}

export interface PasswordOptions {
  /** scrypt cost of new hashes. Default DEFAULT_SCRYPT_PARAMS (N 16384, r 8, p 1). */
  scrypt?: ScryptParams;
}

/** 3-32 characters of letters, digits, `_`, `.` and `-`; unique regardless of case. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;
export const PASSWORD_MIN_LENGTH = 8;
/** Longer passwords are refused: scrypt of a megabyte is a cheap way to burn a server's CPU. */
export const PASSWORD_MAX_LENGTH = 1024;

const USER_COLUMNS = `id::text AS user_id, username, email, role, banned_at, created_at, password_changed_at`;

export interface UserRow {
  user_id: string;
  username: string;
  email: string | null;
  role: Role;
  banned_at: Date | string | null;
  created_at: Date | string;
  password_changed_at: Date | string;
}

export function userOf(row: UserRow): User {
  return {
    userId: row.user_id,
    username: row.username,
    email: row.email,
    role: row.role,
    bannedAt: row.banned_at === null ? null : toDate(row.banned_at),
    createdAt: toDate(row.created_at),
    passwordChangedAt: toDate(row.password_changed_at),
  };
}

/** Throws invalid_param (field `username`) unless the name has 3-32 characters of [A-Za-z0-9_.-]. */
export function assertUsername(username: unknown, field = 'username'): asserts username is string {
  if (typeof username !== 'string' || !USERNAME_PATTERN.test(username)) {
    throw new AccountError(
      'invalid_param',
      `${field}: must be 3-32 characters of letters, digits, "_", "." and "-"`,
      field,
    );
  }
}

/** Throws invalid_param (naming `field`) unless the password has 8 to 1024 characters. */
export function assertPassword(password: unknown, field = 'password'): asserts password is string {
  if (
    typeof password !== 'string' ||
    password.length < PASSWORD_MIN_LENGTH ||
    password.length > PASSWORD_MAX_LENGTH
  ) {
    throw new AccountError(
      'invalid_param',
      `${field}: must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
      field,
    );
  }
}

/** At most 100 characters (WordPress's user_email column), one `@`, a dot in the domain, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@.]+(?:\.[^\s@.]+)+$/;
const EMAIL_MAX_LENGTH = 100;

/** Throws invalid_param (naming `field`) unless the address looks like one (EMAIL_PATTERN). */
export function assertEmail(email: unknown, field = 'email'): asserts email is string {
  if (typeof email !== 'string' || email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) {
    throw new AccountError('invalid_param', `${field}: not an e-mail address`, field);
  }
}

/** The unique index a violation hit, or undefined when it is no unique violation. */
function violatedUniqueIndex(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== '23505') return undefined;
  if (typeof e.constraint === 'string') return e.constraint;
  // PGlite names the index in the message only.
  return typeof e.message === 'string' && e.message.includes('users_email_key')
    ? 'users_email_key'
    : 'users_username_key';
}

function takenError(err: unknown, input: { username?: string; email?: string | null }): never {
  const index = violatedUniqueIndex(err);
  if (index === 'users_email_key') {
    throw new AccountError('email_taken', 'the e-mail address is used by another account', 'email');
  }
  if (index !== undefined) {
    throw new AccountError('username_taken', `the username ${input.username} is taken`, 'username');
  }
  throw err;
}

/**
 * Creates a user (role `user` unless told); throws username_taken when the name is taken in any
 * case, email_taken when the address is (in any case).
 */
export async function createUser(
  db: Queryable,
  input: { username: string; password: string; role?: Role; email?: string },
  options: PasswordOptions = {},
): Promise<User> {
  assertUsername(input.username);
  assertPassword(input.password);
  if (input.email !== undefined) assertEmail(input.email);
  const hash = await hashPassword(input.password, options.scrypt ?? DEFAULT_SCRYPT_PARAMS);
  try {
    const r = await db.query<UserRow>(
      `INSERT INTO users (username, password_hash, role, email) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
      [input.username, hash, input.role ?? 'user', input.email ?? null],
    );
    return userOf(r.rows[0]!);
  } catch (err) {
    takenError(err, input);
  }
}

/** The user with this e-mail address, in any case. */
export async function findUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  const r = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`,
    [email],
  );
  return r.rows[0] && userOf(r.rows[0]);
}

/** Sets (or, with null, clears) a user's e-mail address; throws email_taken, user_not_found. */
export async function setUserEmail(
  db: Queryable,
  userId: string,
  email: string | null,
): Promise<User> {
  if (email !== null) assertEmail(email);
  try {
    const r = await db.query<UserRow>(
      `UPDATE users SET email = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [userId, email],
    );
    if (!r.rows[0]) throw new AccountError('user_not_found', `no user ${userId}`, 'id');
    return userOf(r.rows[0]);
  } catch (err) {
    if (err instanceof AccountError) throw err;
    takenError(err, { email });
  }
}

/**
 * Sets a user's password without asking for the current one (an administrator's reset, or a
 * WordPress client's profile update, which sends none) and ends the user's web sessions but
 * `keepCredentialId`, in one transaction: whoever knew the old password is signed out.
 */
export async function resetPassword(
  db: Db,
  input: { userId: string; newPassword: string; keepCredentialId?: string },
  options: PasswordOptions = {},
): Promise<void> {
  assertPassword(input.newPassword);
  const hash = await hashPassword(input.newPassword, options.scrypt ?? DEFAULT_SCRYPT_PARAMS);
  await db.transaction(async (tx) => {
    const r = await tx.query(
      'UPDATE users SET password_hash = $2, password_changed_at = now() WHERE id = $1',
      [input.userId, hash],
    );
    if (r.rowCount === 0) throw new AccountError('user_not_found', `no user ${input.userId}`, 'id');
    await revokeWebSessions(tx, input.userId, input.keepCredentialId);
  });
}

async function revokeWebSessions(
  db: Queryable,
  userId: string,
  keepCredentialId: string | undefined,
): Promise<void> {
  await db.query(
    `UPDATE credentials SET revoked_at = now()
      WHERE user_id = $1 AND issuer = 'webapp' AND revoked_at IS NULL
        AND ($2::bigint IS NULL OR id <> $2::bigint)`,
    [userId, keepCredentialId ?? null],
  );
}

export async function findUserById(db: Queryable, userId: string): Promise<User | undefined> {
  if (!/^\d{1,18}$/.test(userId)) return undefined;
  const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [userId]);
  return r.rows[0] && userOf(r.rows[0]);
}

/** The user of this name, in any case. */
export async function findUserByName(db: Queryable, username: string): Promise<User | undefined> {
  const r = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`,
    [username],
  );
  return r.rows[0] && userOf(r.rows[0]);
}

/** Every user, oldest first (the operators' list). */
export async function listUsers(db: Queryable): Promise<User[]> {
  const r = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`);
  return r.rows.map(userOf);
}

const dummyHashes = new Map<string, Promise<string>>();

function dummyHashFor(params: ScryptParams): Promise<string> {
  const key = `${params.N}:${params.r}:${params.p}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = dummyPasswordHash(params);
    dummyHashes.set(key, hash);
  }
  return hash;
}

/**
 * The user whose name and password these are, or undefined: an unknown name costs the same
 * scrypt run as a wrong password (against a hash nobody knows), so the two cannot be told apart
 * by their answer or its time. A banned user is returned (the caller refuses them with its own
 * error once the password has proved who they are).
 */
export async function verifyLogin(
  db: Queryable,
  username: string,
  password: string,
  options: PasswordOptions = {},
): Promise<User | undefined> {
  const params = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
  const r = await db.query<UserRow & { password_hash: string }>(
    `SELECT ${USER_COLUMNS}, password_hash FROM users WHERE lower(username) = lower($1)`,
    [username],
  );
  const row = r.rows[0];
  const ok = await verifyPassword(password, row?.password_hash ?? (await dummyHashFor(params)));
  return row && ok ? userOf(row) : undefined;
}

/** Bans (banned = true) or unbans a user by name; throws user_not_found. Banning twice keeps the first time. */
export async function setUserBanned(
  db: Queryable,
  username: string,
  banned: boolean,
): Promise<User> {
  const r = await db.query<UserRow>(
    `UPDATE users SET banned_at = CASE WHEN $2 THEN coalesce(banned_at, now()) ELSE NULL END
      WHERE lower(username) = lower($1) RETURNING ${USER_COLUMNS}`,
    [username, banned],
  );
  if (!r.rows[0]) throw new AccountError('user_not_found', `no user ${username}`, 'username');
  return userOf(r.rows[0]);
}

export const banUser = (db: Queryable, username: string) => setUserBanned(db, username, true);
export const unbanUser = (db: Queryable, username: string) => setUserBanned(db, username, false);

/**
 * Changes a user's password when `currentPassword` is right (returns false otherwise) and
 * revokes the user's other web sessions (every `webapp` credential but `keepCredentialId`), in
 * one transaction. API keys and OAuth tokens stay: they were issued on purpose.
 */
export async function changePassword(
  db: Db,
  input: {
    userId: string;
    currentPassword: string;
    newPassword: string;
    /** The session making the change; it stays signed in. */
    keepCredentialId?: string;
  },
  options: PasswordOptions = {},
): Promise<boolean> {
  assertPassword(input.newPassword, 'newPassword');
  const r = await db.query<{ password_hash: string }>(
    'SELECT password_hash FROM users WHERE id = $1',
    [input.userId],
  );
  const stored =
    r.rows[0]?.password_hash ?? (await dummyHashFor(options.scrypt ?? DEFAULT_SCRYPT_PARAMS));
  if (!(await verifyPassword(input.currentPassword, stored)) || !r.rows[0]) return false;
  const hash = await hashPassword(input.newPassword, options.scrypt ?? DEFAULT_SCRYPT_PARAMS);
  await db.transaction(async (tx) => {
    await tx.query(
      'UPDATE users SET password_hash = $2, password_changed_at = now() WHERE id = $1',
      [input.userId, hash],
    );
    await revokeWebSessions(tx, input.userId, input.keepCredentialId);
  });
  return true;
}
