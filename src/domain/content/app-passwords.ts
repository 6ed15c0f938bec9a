import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * Application passwords: 24 characters from WordPress's alphabet (about 143 bits), shown once,
 * stored as their SHA-256 (a random secret of that size has nothing to brute-force; a slow hash
 * would only slow every Basic-authenticated request). Clients may send them with or without the
 * spaces of the `abcd efgh ...` display form.
 */
export interface AppPassword {
  uuid: string;
  appId: string;
  name: string;
  created: Date;
  lastUsed: Date | null;
  lastIp: string | null;
  userId: number;
}

export class AppPasswordError extends EmutrackError {}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LENGTH = 24;
const NAME_MAX = 200;

interface Row {
  uuid: string;
  app_id: string;
  name: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  last_ip: string | null;
  user_id: string | number;
}
const COLUMNS = 'uuid, app_id, name, created_at, last_used_at, last_ip, user_id';

function toApp(r: Row): AppPassword {
  return {
    uuid: r.uuid,
    appId: r.app_id,
    name: r.name,
    created: new Date(r.created_at),
    lastUsed: r.last_used_at === null ? null : new Date(r.last_used_at),
    lastIp: r.last_ip,
    userId: Number(r.user_id),
  };
}

/** The password without the spaces of its display form. */
export function normalizeAppPassword(password: string): string {
  return password.replace(/\s+/g, '');
}

export function appPasswordHash(password: string): Buffer {
  return createHash('sha256').update(normalizeAppPassword(password), 'utf8').digest();
}

/** `abcd efgh ijkl mnop qrst uvwx`, as WordPress shows a new one. */
export function chunkAppPassword(password: string): string {
  return password.replace(/(.{4})(?!$)/g, '$1 ');
}

export async function createAppPassword(
  db: Queryable,
  input: { userId: number; name: string; appId?: string },
): Promise<{ password: string; item: AppPassword }> {
  const name = input.name.trim();
  if (name === '')
    throw new AppPasswordError(
      'application_password_empty_name',
      'name: an application name is required',
    );
  if (name.length > NAME_MAX)
    throw new AppPasswordError(
      'application_password_invalid_name',
      `name: at most ${NAME_MAX} characters`,
    );
  const dup = await db.query('SELECT 1 FROM site_app_passwords WHERE user_id = $1 AND name = $2', [
    input.userId,
    name,
  ]);
  if (dup.rowCount > 0) {
    throw new AppPasswordError(
      'application_passwords_duplicate_name',
      'Each application name should be unique.',
    );
  }
  let password = '';
  for (let i = 0; i < LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  const r = await db.query<Row>(
    `INSERT INTO site_app_passwords (uuid, user_id, app_id, name, password_hash)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [randomUUID(), input.userId, input.appId ?? '', name, appPasswordHash(password)],
  );
  return { password, item: toApp(r.rows[0]!) };
}

export async function listAppPasswords(db: Queryable, userId: number): Promise<AppPassword[]> {
  const r = await db.query<Row>(
    `SELECT ${COLUMNS} FROM site_app_passwords WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
  return r.rows.map(toApp);
}

export async function findAppPassword(
  db: Queryable,
  userId: number,
  uuid: string,
): Promise<AppPassword | undefined> {
  const r = await db.query<Row>(
    `SELECT ${COLUMNS} FROM site_app_passwords WHERE user_id = $1 AND uuid::text = lower($2)`,
    [userId, uuid],
  );
  return r.rows[0] ? toApp(r.rows[0]) : undefined;
}

export async function renameAppPassword(
  db: Queryable,
  userId: number,
  uuid: string,
  name: string,
): Promise<AppPassword | undefined> {
  const r = await db.query<Row>(
    `UPDATE site_app_passwords SET name = $3 WHERE user_id = $1 AND uuid::text = lower($2) RETURNING ${COLUMNS}`,
    [userId, uuid, name.trim()],
  );
  return r.rows[0] ? toApp(r.rows[0]) : undefined;
}

export async function deleteAppPassword(
  db: Queryable,
  userId: number,
  uuid: string,
): Promise<boolean> {
  const r = await db.query(
    'DELETE FROM site_app_passwords WHERE user_id = $1 AND uuid::text = lower($2)',
    [userId, uuid],
  );
  return r.rowCount > 0;
}

export async function deleteAllAppPasswords(db: Queryable, userId: number): Promise<number> {
  const r = await db.query('DELETE FROM site_app_passwords WHERE user_id = $1', [userId]);
  return r.rowCount;
}

/**
 * The application password of this user matching `password`, or undefined; records its use
 * (time and address; written at most once a minute per password to spare the database).
 */
export async function verifyAppPassword(
  db: Queryable,
  userId: number,
  password: string,
  ip: string,
): Promise<AppPassword | undefined> {
  const r = await db.query<Row>(
    `UPDATE site_app_passwords SET last_used_at = now(), last_ip = $3
      WHERE user_id = $1 AND password_hash = $2
        AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute' OR last_ip IS DISTINCT FROM $3)
      RETURNING ${COLUMNS}`,
    [userId, appPasswordHash(password), ip],
  );
  if (r.rows[0]) return toApp(r.rows[0]);
  const seen = await db.query<Row>(
    `SELECT ${COLUMNS} FROM site_app_passwords WHERE user_id = $1 AND password_hash = $2`,
    [userId, appPasswordHash(password)],
  );
  return seen.rows[0] ? toApp(seen.rows[0]) : undefined;
}
