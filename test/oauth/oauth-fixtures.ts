import { createUser, type User } from '../../src/domain/accounts/users.js';
import type { Db } from '../../src/shared/db/db.js';
import { createClient } from '../../src/domain/oauth/clients.js';
import type { ClientInput } from '../../src/domain/oauth/client-input.js';
import type { OAuthClient } from '../../src/domain/oauth/client-records.js';

/** Cheap scrypt: tests make many users. */
export const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };
export const TEST_PASSWORD = 'correct horse battery';

let counter = 0;

/** A new user with a unique name (role `user` unless told). */
export async function makeUser(
  db: Db,
  role: 'user' | 'admin' = 'user',
  name?: string,
): Promise<User> {
  counter += 1;
  const username = name ?? `${role}${counter}_${Math.random().toString(36).slice(2, 8)}`;
  return createUser(db, { username, password: TEST_PASSWORD, role }, { scrypt: FAST_SCRYPT });
}

export const CALLBACK = 'http://127.0.0.1:8123/callback';

/** A client of `owner` with sensible inputs, overridable. */
export async function makeClient(
  db: Db,
  owner: User,
  input: Partial<ClientInput> = {},
): Promise<OAuthClient> {
  return createClient(db, owner, {
    name: 'Timetable Viewer',
    redirectUris: [CALLBACK],
    requestedScopes: ['api.auth.me.read', 'api.records.daily.read'],
    description: 'Shows your trains',
    homepageUrl: 'https://viewer.example',
    ...input,
  });
}
