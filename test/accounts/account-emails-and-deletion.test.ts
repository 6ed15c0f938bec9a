import { describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/account-deletion.js';
import { authenticateSecret, issueCredential } from '../../src/domain/accounts/credentials.js';
import {
  createUser,
  findUserByEmail,
  resetPassword,
  setUserEmail,
  verifyLogin,
} from '../../src/domain/accounts/users.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { createClient } from '../../src/domain/oauth/clients.js';
import { useTestDatabase } from '../helpers/test-db.js';

const scrypt = { N: 1024, r: 8, p: 1 };
const t = useTestDatabase();

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return isEmutrackError(err) ? err.code : String(err);
  }
};

describe('accounts: e-mail addresses (migration 027)', () => {
  it('are optional, unique regardless of case, and found in any case', async () => {
    const { db } = t.current;
    const old = await createUser(db, { username: 'old-one', password: 'long enough' }, { scrypt });
    expect(old.email).toBeNull();
    const a = await createUser(
      db,
      { username: 'mail-a', password: 'long enough', email: 'Mail.A@Example.test' },
      { scrypt },
    );
    expect(a.email).toBe('Mail.A@Example.test');
    expect((await findUserByEmail(db, 'mail.a@example.TEST'))?.userId).toBe(a.userId);
    expect(
      await codeOf(
        createUser(
          db,
          { username: 'mail-b', password: 'long enough', email: 'MAIL.a@example.test' },
          { scrypt },
        ),
      ),
    ).toBe('email_taken');
    expect(await codeOf(setUserEmail(db, old.userId, 'mail.A@example.test'))).toBe('email_taken');
    expect(await codeOf(setUserEmail(db, old.userId, 'not an address'))).toBe('invalid_param');
    expect((await setUserEmail(db, old.userId, 'old@example.test')).email).toBe('old@example.test');
    // A taken name is still named as such.
    expect(
      await codeOf(createUser(db, { username: 'MAIL-A', password: 'long enough' }, { scrypt })),
    ).toBe('username_taken');
  });

  it('resetPassword sets a password without the current one and ends web sessions', async () => {
    const { db } = t.current;
    const u = await createUser(db, { username: 'resetme', password: 'first password' }, { scrypt });
    const session = await issueCredential(db, {
      userId: u.userId,
      issuer: 'webapp',
      scopes: [],
      dailyTokenLimit: 10,
    });
    await resetPassword(db, { userId: u.userId, newPassword: 'second password' }, { scrypt });
    expect(await verifyLogin(db, 'resetme', 'second password', { scrypt })).toBeDefined();
    expect(await verifyLogin(db, 'resetme', 'first password', { scrypt })).toBeUndefined();
    expect((await authenticateSecret(db, session.secret)).ok).toBe(false);
  });
});

describe('accounts: deletion', () => {
  it("takes the account's credentials and withdraws the tokens its OAuth clients issued to others", async () => {
    const { db } = t.current;
    const owner = await createUser(
      db,
      { username: 'app-owner', password: 'long enough' },
      { scrypt },
    );
    const other = await createUser(
      db,
      { username: 'app-user', password: 'long enough' },
      { scrypt },
    );
    const client = await createClient(db, owner, {
      name: 'Owner app',
      redirectUris: ['https://app.example.test/cb'],
      requestedScopes: ['api.auth.me.read'],
    });
    const ownKey = await issueCredential(db, {
      userId: owner.userId,
      issuer: 'api',
      scopes: [],
      dailyTokenLimit: 10,
    });
    const othersToken = await issueCredential(db, {
      userId: other.userId,
      issuer: 'oauth',
      scopes: [],
      dailyTokenLimit: 10,
      oauthClientId: client.clientId,
    });
    expect((await authenticateSecret(db, othersToken.secret)).ok).toBe(true);
    await db.transaction((tx) => deleteAccount(tx, owner.userId));
    expect((await authenticateSecret(db, ownKey.secret)).ok).toBe(false);
    expect((await authenticateSecret(db, othersToken.secret)).ok).toBe(false);
    expect(await codeOf(deleteAccount(db, owner.userId))).toBe('user_not_found');
  });
});
