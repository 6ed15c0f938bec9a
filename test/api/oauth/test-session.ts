import type { FastifyRequest } from 'fastify';
import { issueCredential } from '../../../src/accounts/credentials.js';
import { findUserById, type User } from '../../../src/accounts/users.js';
import type { Db } from '../../../src/db/db.js';
import type { PageSession, SignedInBrowser } from '../../../src/api/oauth/page-session.js';

export const TEST_CSRF = 'csrf-token-of-this-browser';

/**
 * A stand-in for the accounts' web sign-in, for tests of the authorization endpoint's own rules:
 * the cookie `test_user=<userId>` signs a user in; the form's CSRF field must be TEST_CSRF.
 */
export function testSession(db: Db): PageSession & { signIn(user: User): Promise<string> } {
  const sessions = new Map<string, SignedInBrowser>();
  return {
    async signIn(user: User) {
      const issued = await issueCredential(db, {
        userId: user.userId,
        issuer: 'webapp',
        scopes: [],
        dailyTokenLimit: 1000,
      });
      sessions.set(user.userId, {
        user: (await findUserById(db, user.userId))!,
        session: issued.credential,
      });
      return `test_user=${user.userId}`;
    },
    async signedIn(request: FastifyRequest) {
      const id = request.cookies?.test_user;
      return id === undefined ? undefined : sessions.get(id);
    },
    loginUrl: (next) => `/login?next=${encodeURIComponent(next)}`,
    csrfField: async () => ({ field: 'csrf', token: TEST_CSRF }),
    csrfValid: async (_request, formFields) => formFields.csrf === TEST_CSRF,
  };
}
