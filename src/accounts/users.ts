import type { Db, Queryable } from '../db/db.js';
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

const USER_COLUMNS = `id::text AS user_id, username, role, banned_at, created_at, password_changed_at`;

interface UserRow {
  user_id: string;
  username: string;
  role: Role;
  banned_at: Date | string | null;
  created_at: Date | string;
  password_changed_at: Date | string;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

function userOf(row: UserRow): User {
  return {
    userId: row.user_id,
    username: row.username,
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

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/** Creates a user (role `user` unless told); throws username_taken when the name is taken in any case. */
export async function createUser(
  db: Queryable,
  input: { username: string; password: string; role?: Role },
  options: PasswordOptions = {},
): Promise<User> {
  assertUsername(input.username);
  assertPassword(input.password);
  const hash = await hashPassword(input.password, options.scrypt ?? DEFAULT_SCRYPT_PARAMS);
  try {
    const r = await db.query<UserRow>(
      `INSERT INTO users (username, password_hash, role) VALUES ($1, $2, $3) RETURNING ${USER_COLUMNS}`,
      [input.username, hash, input.role ?? 'user'],
    );
    return userOf(r.rows[0]!);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AccountError(
        'username_taken',
        `the username ${input.username} is taken`,
        'username',
      );
    }
    throw err;
  }
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

/** Sets a user's role by name; throws user_not_found. */
export async function setUserRole(db: Queryable, username: string, role: Role): Promise<User> {
  const r = await db.query<UserRow>(
    `UPDATE users SET role = $2 WHERE lower(username) = lower($1) RETURNING ${USER_COLUMNS}`,
    [username, role],
  );
  if (!r.rows[0]) throw new AccountError('user_not_found', `no user ${username}`, 'username');
  return userOf(r.rows[0]);
}

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
    await tx.query(
      `UPDATE credentials SET revoked_at = now()
        WHERE user_id = $1 AND issuer = 'webapp' AND revoked_at IS NULL
          AND ($2::bigint IS NULL OR id <> $2::bigint)`,
      [input.userId, input.keepCredentialId ?? null],
    );
  });
  return true;
}
