import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backoffMs,
  beginAttempt,
  forgetQuietAttempts,
  settleAttempt,
  type AttemptRule,
} from '../../src/domain/accounts/attempt-limiter.js';
import {
  assertPasswordStrong,
  passwordStrength,
} from '../../src/domain/accounts/password-policy.js';
import { checkSignIn } from '../../src/domain/accounts/sign-in.js';
import { registrationKeys, signInKeys } from '../../src/domain/accounts/sign-in-throttle.js';
import { createUser } from '../../src/domain/accounts/users.js';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { useTestDatabase } from '../helpers/test-db.js';

const scrypt = { N: 1024, r: 8, p: 1 };
const settings = { scrypt, signInMaxFailures: 5, signInWindowSeconds: 900 };
const t = useTestDatabase();

const rule: AttemptRule = {
  free: 3,
  baseDelaySeconds: 1,
  maxDelaySeconds: 60,
  forgetAfterSeconds: 3600,
  onSuccess: 'reset',
};

describe('backoff', () => {
  it('is free for the free attempts, then doubles up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffMs(rule, n) / 1000)).toEqual([
      0, 0, 1, 2, 4, 8, 16, 60,
    ]);
  });
});

/** The sign-in race, run on each database. */
async function concurrentSignIns(db: Db) {
  const username = `race_${Math.random().toString(36).slice(2, 8)}`;
  const password = 'a-right-password-for-the-race';
  await createUser(db, { username, password }, { scrypt });
  const address = '198.51.100.40';
  const attempts = Array.from({ length: 40 }, (_, i) =>
    checkSignIn(
      db,
      { username, password: i === 20 ? password : `wrong-guess-${i}`, address },
      settings,
    ),
  );
  const results = await Promise.all(attempts);
  const evaluated = results.filter((r) => r.ok || r.reason === 'invalid_credentials');
  const throttled = results.filter((r) => !r.ok && r.reason === 'throttled');
  return { evaluated: evaluated.length, throttled: throttled.length };
}

describe('sign-in limits under concurrency', () => {
  it('40 concurrent sign-ins (39 wrong, 1 right): no more than the free number are tried, the rest 429', async () => {
    const { evaluated, throttled } = await concurrentSignIns(t.current.db);
    expect(evaluated).toBeLessThanOrEqual(settings.signInMaxFailures);
    expect(throttled).toBe(40 - evaluated);
  });

  it('a stranger failing from one address does not lock the account out at another', async () => {
    const { db } = t.current;
    await createUser(db, { username: 'victim_1', password: 'victims-own-long-pass' }, { scrypt });
    for (let i = 0; i < 12; i++)
      await checkSignIn(
        db,
        { username: 'victim_1', password: `guess-${i}`, address: '203.0.113.9' },
        settings,
      );
    const stranger = await checkSignIn(
      db,
      { username: 'victim_1', password: 'victims-own-long-pass', address: '203.0.113.9' },
      settings,
    );
    expect(stranger).toMatchObject({ ok: false, reason: 'throttled' });
    const owner = await checkSignIn(
      db,
      { username: 'victim_1', password: 'victims-own-long-pass', address: '192.0.2.1' },
      settings,
    );
    expect(owner.ok).toBe(true);
  });

  it('backs off exponentially instead of a hard lock, and forgets a quiet key', async () => {
    const { db } = t.current;
    const keys = [{ scope: 'test', key: 'k1', rule }];
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);
    for (let i = 0; i < 3; i++)
      expect(await beginAttempt(db, keys, at(i))).toEqual({ allowed: true });
    // The third attempt started the backoff: 1 s after it.
    expect(await beginAttempt(db, keys, at(2.5))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect(await beginAttempt(db, keys, at(3))).toEqual({ allowed: true });
    expect(await beginAttempt(db, keys, at(4))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect(await beginAttempt(db, keys, at(5))).toEqual({ allowed: true });
    expect(await beginAttempt(db, keys, at(6))).toMatchObject({
      allowed: false,
      retryAfterSeconds: 3,
    });
    // An hour without attempts: afresh.
    expect(await beginAttempt(db, keys, at(5 + 3600))).toEqual({ allowed: true });
    expect(await beginAttempt(db, keys, at(5 + 3601))).toEqual({ allowed: true });
  });

  it('a success resets the account-and-address key and refunds the address key', async () => {
    const { db } = t.current;
    const keys = signInKeys({ username: 'Zed', address: '192.0.2.77' }, { maxFailures: 2 });
    const now = new Date();
    expect(await beginAttempt(db, keys, now)).toEqual({ allowed: true });
    expect(await beginAttempt(db, keys, now)).toEqual({ allowed: true });
    expect((await beginAttempt(db, keys, now)).allowed).toBe(false);
    await settleAttempt(db, keys);
    const rows = await db.query<{ key: string; attempts: number; blocked_until: Date | null }>(
      `SELECT key, attempts, blocked_until FROM attempt_limits WHERE key LIKE '%192.0.2.77' ORDER BY key`,
    );
    expect(rows.rows.map((r) => [r.key, r.attempts, r.blocked_until])).toEqual([
      ['account:zed address:192.0.2.77', 0, null],
      ['address:192.0.2.77', 1, null],
    ]);
  });
});

describe('the addresses the limits count', () => {
  it('counts IPv6 sign-ins and registrations by /64, so a new interface identifier starts nothing afresh', () => {
    const one = signInKeys({ username: 'zed', address: '2001:db8:5:6::1' });
    const other = signInKeys({ username: 'zed', address: '2001:db8:5:6:9:9:9:9' });
    expect(other.map((k) => k.key)).toEqual(one.map((k) => k.key));
    expect(registrationKeys('2001:db8:5:6::1')).toEqual(registrationKeys('2001:db8:5:6::abcd'));
    expect(registrationKeys('2001:db8:5:7::1')).not.toEqual(registrationKeys('2001:db8:5:6::1'));
  });
});

describe('forgetting quiet keys', () => {
  it('deletes keys without an attempt for longer than asked, and only those', async () => {
    const { db } = t.current;
    const keys = (key: string) => [{ scope: 'forget-test', key, rule }];
    const now = new Date();
    await beginAttempt(db, keys('old'), new Date(now.getTime() - 2 * 86_400_000));
    await beginAttempt(db, keys('new'), now);
    expect(await forgetQuietAttempts(db, 86_400, now)).toBeGreaterThanOrEqual(1);
    const left = await db.query<{ key: string }>(
      `SELECT key FROM attempt_limits WHERE scope = 'forget-test'`,
    );
    expect(left.rows.map((r) => r.key)).toEqual(['new']);
  });
});

describe('the same limits on the embedded database (PGlite)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createPgliteDb();
    await migrate(db);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('40 concurrent sign-ins (39 wrong, 1 right): no more than the free number are tried, the rest 429', async () => {
    const { evaluated, throttled } = await concurrentSignIns(db);
    expect(evaluated).toBeLessThanOrEqual(settings.signInMaxFailures);
    expect(throttled).toBe(40 - evaluated);
  });
});

describe('password policy', () => {
  it.each(['12345678', 'password', 'qwertyuiop', 'Passw0rd!', 'iloveyou1', 'zaq12wsx'])(
    'refuses the common password %s',
    (password) => {
      expect(passwordStrength(password).acceptable).toBe(false);
      try {
        assertPasswordStrong(password);
        expect.unreachable();
      } catch (err) {
        expect(isEmutrackError(err) && err.code).toBe('invalid_param');
        expect((err as Error).message).toMatch(/^password: too easy to guess/);
      }
    },
  );

  it('refuses a password made of the username', () => {
    expect(passwordStrength('marvin_1999', ['marvin_1999']).acceptable).toBe(false);
  });

  it.each(['correct horse battery staple', 'brand-new-pw', 'another-secret-1'])(
    'accepts %s',
    (password) => {
      expect(passwordStrength(password).acceptable).toBe(true);
    },
  );
});
