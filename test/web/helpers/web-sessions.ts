import type { BrowserContext } from 'playwright-core';
import { issueCredential } from '../../../src/domain/accounts/credentials.js';
import { scopesOfRole, type Role } from '../../../src/domain/accounts/scopes.js';
import type { Db } from '../../../src/shared/db/db.js';
import { makeUser } from '../../api/helpers/accounts.js';
import { shanghaiClock } from '../../api/helpers/fixture-week.js';
import { WEB_TODAY } from './web-harness.js';

export interface WebSession {
  secret: string;
  userId: string;
  username: string;
}

/**
 * A web session of a new user of `role`, live from the app's day (the fixture's, in the past)
 * until a day after the machine's.
 */
export async function webSession(db: Db, prefix: string, role: Role = 'user'): Promise<WebSession> {
  const user = await makeUser(db, prefix, role);
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'webapp',
    scopes: [...scopesOfRole(role)],
    dailyTokenLimit: 1000,
    activeFrom: new Date(shanghaiClock(WEB_TODAY)()),
    expiresAt: new Date(Math.max(Date.now(), shanghaiClock(WEB_TODAY)()) + 86_400_000),
  });
  return { secret, userId: user.userId, username: user.username };
}

/** Signs the browser context in as `session` (its cookie on the server's origin). */
export async function signInBrowser(
  context: BrowserContext,
  base: string,
  session: WebSession,
): Promise<void> {
  await context.addCookies([{ name: 'token', value: session.secret, url: base }]);
}
