import { describe, expect, it } from 'vitest';
import {
  authenticateSecret,
  issueCredential,
  listCredentials,
  revokeCredential,
  revokeOauthCredentials,
} from '../../src/domain/accounts/credentials.js';
import { hashPassword, verifyPassword } from '../../src/domain/accounts/passwords.js';
import {
  scopesOfRole,
  ALL_SCOPES,
  ANONYMOUS_SCOPES,
  AUTH_ME_SCOPE,
  SCOPE_CATALOGUE,
} from '../../src/domain/accounts/scopes.js';
import {
  banUser,
  changePassword,
  createUser,
  findUserByName,
  listUsers,
  unbanUser,
  verifyLogin,
} from '../../src/domain/accounts/users.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { useTestDatabase } from '../helpers/test-db.js';

const scrypt = { N: 1024, r: 8, p: 1 };
const t = useTestDatabase();

describe('passwords', () => {
  it('hash with a salt and verify', async () => {
    const a = await hashPassword('correct horse', scrypt);
    const b = await hashPassword('correct horse', scrypt);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct hors', a)).toBe(false);
    expect(await verifyPassword('x', 'not a hash')).toBe(false);
  });
});

describe('scopes', () => {
  it('describe every scope in words; anonymous callers hold every read scope but the session', () => {
    for (const s of SCOPE_CATALOGUE) expect(s.description.length).toBeGreaterThan(10);
    expect(ANONYMOUS_SCOPES).not.toContain(AUTH_ME_SCOPE);
    // Not anonymous: the session check, managing credentials, webhooks and favourites, the
    // administrators'.
    expect(ALL_SCOPES.filter((s) => !ANONYMOUS_SCOPES.includes(s)).sort()).toEqual(
      [
        AUTH_ME_SCOPE,
        'api.auth.credentials.manage',
        'api.webhooks.manage',
        'api.auth.favorites',
        'api.auth.subscriptions',
        'api.admin.oauth.clients.review',
        'api.admin.corrections.write',
        'api.reports.write',
        'api.admin.reports.moderate',
      ].sort(),
    );
    expect(scopesOfRole('admin')).toEqual(ALL_SCOPES);
    expect(scopesOfRole('user')).not.toContain('api.admin.oauth.clients.review');
    expect(scopesOfRole('user')).not.toContain('api.admin.corrections.write');
    expect(scopesOfRole('user')).not.toContain('api.admin.reports.moderate');
    expect(scopesOfRole('moderator')).toContain('api.admin.reports.moderate');
    expect(scopesOfRole('moderator')).not.toContain('api.admin.corrections.write');
  });
});

describe('users', () => {
  it('create, find in any case, refuse a taken name in any case and bad fields', async () => {
    const { db } = t.current;
    const u = await createUser(db, { username: 'Alice', password: 'password-1' }, { scrypt });
    expect(u.role).toBe('user');
    expect((await findUserByName(db, 'alice'))?.userId).toBe(u.userId);
    await expect(
      createUser(db, { username: 'ALICE', password: 'password-1' }, { scrypt }),
    ).rejects.toMatchObject({
      code: 'username_taken',
    });
    await expect(
      createUser(db, { username: 'a b', password: 'password-1' }, { scrypt }),
    ).rejects.toMatchObject({
      code: 'invalid_param',
      field: 'username',
    });
    await expect(
      createUser(db, { username: 'bob', password: 'short' }, { scrypt }),
    ).rejects.toMatchObject({
      code: 'invalid_param',
      field: 'password',
    });
    expect((await listUsers(db)).map((x) => x.username)).toContain('Alice');
  });

  it('verifyLogin: right password only; unknown name the same as a wrong password', async () => {
    const { db } = t.current;
    await createUser(db, { username: 'carol', password: 'password-2', role: 'admin' }, { scrypt });
    expect((await verifyLogin(db, 'CAROL', 'password-2', { scrypt }))?.role).toBe('admin');
    expect(await verifyLogin(db, 'carol', 'password-3', { scrypt })).toBeUndefined();
    expect(await verifyLogin(db, 'nobody', 'password-2', { scrypt })).toBeUndefined();
  });

  it('changePassword revokes the other web sessions only', async () => {
    const { db } = t.current;
    const u = await createUser(db, { username: 'dave', password: 'password-4' }, { scrypt });
    const s1 = await issueCredential(db, {
      userId: u.userId,
      issuer: 'webapp',
      scopes: scopesOfRole('user'),
      dailyTokenLimit: 10,
    });
    const s2 = await issueCredential(db, {
      userId: u.userId,
      issuer: 'webapp',
      scopes: scopesOfRole('user'),
      dailyTokenLimit: 10,
    });
    const key = await issueCredential(db, {
      userId: u.userId,
      issuer: 'api',
      scopes: scopesOfRole('user'),
      dailyTokenLimit: 10,
    });
    expect(
      await changePassword(
        db,
        { userId: u.userId, currentPassword: 'wrong-pass', newPassword: 'password-5' },
        { scrypt },
      ),
    ).toBe(false);
    expect(
      await changePassword(
        db,
        {
          userId: u.userId,
          currentPassword: 'password-4',
          newPassword: 'password-5',
          keepCredentialId: s1.credential.credentialId,
        },
        { scrypt },
      ),
    ).toBe(true);
    expect((await authenticateSecret(db, s1.secret)).ok).toBe(true);
    expect(await authenticateSecret(db, s2.secret)).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await authenticateSecret(db, key.secret)).ok).toBe(true);
    expect(await verifyLogin(db, 'dave', 'password-5', { scrypt })).toBeDefined();
  });
});

describe('credentials', () => {
  it('issue once, authenticate, and each refusal with its reason', async () => {
    const { db } = t.current;
    const u = await createUser(db, { username: 'erin', password: 'password-6' }, { scrypt });
    const now = new Date();
    const issued = await issueCredential(db, {
      userId: u.userId,
      issuer: 'api',
      name: 'laptop',
      scopes: ['api.records.daily.read', AUTH_ME_SCOPE],
      dailyTokenLimit: 500,
    });
    expect(issued.secret).toMatch(/^api_[A-Za-z0-9_-]{43}$/);
    expect(issued.credential.maskedApiKey).toMatch(/^api_.{4}\*\*\*\*.{4}$/);
    expect(issued.credential.scopes).toEqual([AUTH_ME_SCOPE, 'api.records.daily.read']);
    expect(issued.credential.expiresAt.getTime() - issued.credential.activeFrom.getTime()).toBe(
      30 * 86_400_000,
    );
    const ok = await authenticateSecret(db, issued.secret);
    expect(ok).toMatchObject({
      ok: true,
      user: { username: 'erin' },
      credential: { name: 'laptop', dailyTokenLimit: 500 },
    });

    expect(await authenticateSecret(db, 'api_' + 'A'.repeat(43))).toEqual({
      ok: false,
      reason: 'unknown',
    });
    expect(await authenticateSecret(db, 'garbage')).toEqual({ ok: false, reason: 'unknown' });

    const later = await issueCredential(db, {
      userId: u.userId,
      issuer: 'api',
      scopes: [],
      activeFrom: new Date(now.getTime() + 3600_000),
      dailyTokenLimit: 1,
    });
    expect(await authenticateSecret(db, later.secret)).toMatchObject({
      ok: false,
      reason: 'not_active',
    });
    expect(
      (await authenticateSecret(db, later.secret, new Date(now.getTime() + 7200_000))).ok,
    ).toBe(true);
    expect(
      await authenticateSecret(db, issued.secret, new Date(now.getTime() + 31 * 86_400_000)),
    ).toMatchObject({
      ok: false,
      reason: 'expired',
    });

    await banUser(db, 'erin');
    expect(await authenticateSecret(db, issued.secret)).toMatchObject({
      ok: false,
      reason: 'banned',
    });
    await unbanUser(db, 'erin');
    expect(
      await revokeCredential(db, issued.credential.revokeId, { userId: '999999' }),
    ).toBeUndefined();
    expect(
      (await revokeCredential(db, issued.credential.revokeId, { userId: u.userId }))?.revokedAt,
    ).not.toBeNull();
    expect(await authenticateSecret(db, issued.secret)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    const active = await listCredentials(db, u.userId);
    expect(active.map((c) => c.revokeId)).toEqual([later.credential.revokeId]);
    expect((await listCredentials(db, u.userId, { includeInactive: true })).length).toBe(2);
  });

  it('refuses unknown scopes, bad lifetimes and oauth without a client; revokes a client`s tokens', async () => {
    const { db } = t.current;
    const u = await createUser(db, { username: 'frank', password: 'password-7' }, { scrypt });
    const base = { userId: u.userId, issuer: 'api' as const, dailyTokenLimit: 5 };
    const err = await issueCredential(db, { ...base, scopes: ['api.nothing'] }).catch(
      (e: unknown) => e,
    );
    expect(isEmutrackError(err, 'invalid_param')).toBe(true);
    expect((err as Error).message).toContain('api.nothing');
    await expect(
      issueCredential(db, {
        ...base,
        scopes: [],
        expiresAt: new Date(Date.now() + 6 * 366 * 86_400_000),
      }),
    ).rejects.toMatchObject({ code: 'invalid_param', field: 'expiresAt' });
    await expect(
      issueCredential(db, { ...base, issuer: 'oauth', scopes: [] }),
    ).rejects.toMatchObject({
      field: 'oauthClientId',
    });
    // The clients themselves are the OAuth issue's rows (migration 008).
    for (const id of ['client-1', 'client-2']) {
      await db.query(
        'INSERT INTO oauth_clients (id, owner_id, name, redirect_uris) VALUES ($1, $2, $1, $3)',
        [id, u.userId, ['https://app.example/cb']],
      );
    }
    const a = await issueCredential(db, {
      ...base,
      issuer: 'oauth',
      scopes: [],
      oauthClientId: 'client-1',
    });
    const b = await issueCredential(db, {
      ...base,
      issuer: 'oauth',
      scopes: [],
      oauthClientId: 'client-2',
    });
    expect(await revokeOauthCredentials(db, 'client-1')).toEqual([a.credential.revokeId]);
    expect(await authenticateSecret(db, a.secret)).toMatchObject({ reason: 'revoked' });
    expect((await authenticateSecret(db, b.secret)).ok).toBe(true);
  });
});
