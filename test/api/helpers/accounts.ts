import {
  issueCredential,
  type IssueCredentialInput,
} from '../../../src/domain/accounts/credentials.js';
import { scopesOfRole, type Role } from '../../../src/domain/accounts/scopes.js';
import { createUser, type User } from '../../../src/domain/accounts/users.js';
import type { Db } from '../../../src/shared/db/db.js';

/** scrypt at its smallest allowed cost: tests hash many passwords. */
export const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };
export const FAST_SCRYPT_ENV = { PASSWORD_SCRYPT_N: '1024' };

let counter = 0;

/** A new user with a unique name (`<prefix><n>`) and the password `password-<name>`. */
export async function makeUser(
  db: Db,
  prefix = 'user',
  role: Role = 'user',
): Promise<User & { password: string }> {
  const username = `${prefix}${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  const password = `password-${username}`;
  const user = await createUser(db, { username, password, role }, { scrypt: FAST_SCRYPT });
  return { ...user, password };
}

/** An API key of a user (every scope the user holds unless told), its secret in clear. */
export async function makeKey(
  db: Db,
  user: User,
  input: Partial<Omit<IssueCredentialInput, 'userId'>> = {},
): Promise<string> {
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'api',
    scopes: scopesOfRole(user.role),
    dailyTokenLimit: 10_000,
    ...input,
  });
  return secret;
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
