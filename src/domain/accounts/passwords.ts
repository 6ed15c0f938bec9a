import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt from node:crypto. A stored hash carries its own parameters and
 * salt (`scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>`), so raising the cost in configuration
 * applies to new and changed passwords while old hashes keep verifying.
 */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. Default 16384 (2^14; about 16 MiB and 50 ms per hash). */
  N: number;
  /** Block size. Default 8. */
  r: number;
  /** Parallelism. Default 1. */
  p: number;
}

export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { N: 16384, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function scryptAsync(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    // Node refuses N*r*128 over maxmem (32 MiB by default); leave room for larger costs.
    maxmem: 256 * params.N * params.r + 1024 * 1024,
  };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A new salted hash of `password`. */
export async function hashPassword(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT_PARAMS,
): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scryptAsync(password, salt, params);
  return [
    'scrypt',
    params.N,
    params.r,
    params.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/**
 * Whether `password` matches `stored`, compared in constant time. A malformed stored hash never
 * matches (and still costs one scrypt run, so its answer takes as long as a real one).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const [kind, n, r, p, salt, key] = parts;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const wellFormed =
    parts.length === 6 &&
    kind === 'scrypt' &&
    Number.isInteger(params.N) &&
    Number.isInteger(params.r) &&
    Number.isInteger(params.p) &&
    params.N > 1 &&
    params.r > 0 &&
    params.p > 0;
  if (!wellFormed) {
    await scryptAsync(password, randomBytes(SALT_LENGTH), DEFAULT_SCRYPT_PARAMS);
    return false;
  }
  const expected = Buffer.from(key!, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt!, 'base64url'), params);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * A hash of a password nobody knows, made with `params`: verifying against it when a username
 * is unknown makes that answer take as long as a wrong password's.
 */
export function dummyPasswordHash(params: ScryptParams): Promise<string> {
  return hashPassword(randomBytes(24).toString('base64url'), params);
}
