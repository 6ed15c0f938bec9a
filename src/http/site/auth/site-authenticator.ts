import { beginAttempt, settleAttempt } from '../../../domain/accounts/attempt-limiter.js';
import { authenticateSecret } from '../../../domain/accounts/credentials.js';
import { signInKeys } from '../../../domain/accounts/sign-in-throttle.js';
import type { Db } from '../../../shared/db/db.js';
import { verifyAppPassword } from '../../../domain/content/app-passwords.js';
import { findSiteAccount, findSiteAccountByLogin } from '../../../domain/content/site-users.js';
import type { SiteUser } from '../../../domain/content/site-user.js';
import { RestError } from '../rest/rest-error.js';
import type { RestNonces } from './rest-nonce.js';

/** The product's web-session cookie (set by the API's sign-in and the site's). */
export const SESSION_COOKIE = 'token';

/** A signed-in browser: the account and the session (credential) the cookie names. */
export interface SiteSession {
  user: SiteUser;
  /** The session credential's revokeId: nonces are bound to it. */
  sessionId: string;
}

export interface SiteAuthInput {
  authorization?: string;
  cookieSecret?: string;
  /** X-WP-Nonce header or `_wpnonce` parameter. */
  nonce?: string;
  ip: string;
}

export interface SiteAuthResult {
  user: SiteUser | null;
  /** Answered instead of running the request (WordPress's rest_authentication_errors). */
  error?: RestError;
  via?: 'application-password' | 'cookie';
  session?: SiteSession;
}

/**
 * Who calls a REST route: HTTP Basic with an application password (the account's own password
 * is refused there), or the product's session cookie together with a REST nonce. A cookie
 * without a nonce counts as anonymous (WordPress's CSRF rule); a wrong nonce is 403.
 */
export class SiteAuthenticator {
  constructor(
    private readonly db: Db,
    readonly nonces: RestNonces,
  ) {}

  /** The account signed in through the cookie, if its session is valid (no nonce asked). */
  async session(cookieSecret: string | undefined): Promise<SiteSession | undefined> {
    if (!cookieSecret) return undefined;
    const result = await authenticateSecret(this.db, cookieSecret);
    if (!result.ok || result.credential.issuer !== 'webapp') return undefined;
    const account = await findSiteAccount(this.db, Number(result.user.userId));
    if (!account) return undefined;
    return {
      user: { id: account.id, username: account.username, role: account.role },
      sessionId: result.credential.revokeId,
    };
  }

  async authenticate(input: SiteAuthInput): Promise<SiteAuthResult> {
    const auth = input.authorization;
    if (auth && /^basic\s/i.test(auth)) return this.basic(auth, input.ip);
    // A cookie without a nonce is anonymous, whatever the cookie holds: no session lookup.
    if (input.cookieSecret && input.nonce !== undefined) {
      const session = await this.session(input.cookieSecret);
      if (!session || !this.nonces.verify(input.nonce, session.user.id, session.sessionId)) {
        return {
          user: null,
          error: new RestError('rest_cookie_invalid_nonce', 'Cookie check failed', 403),
        };
      }
      return { user: session.user, via: 'cookie', session };
    }
    return { user: null };
  }

  private async basic(header: string, ip: string): Promise<SiteAuthResult> {
    const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const username = colon === -1 ? decoded : decoded.slice(0, colon);
    const password = colon === -1 ? '' : decoded.slice(colon + 1);
    // Counted before it is tried, per account and address and per address (as password
    // sign-ins are, under their own scope): past the free attempts each waits longer.
    const keys = signInKeys({ username, address: ip }, {}, 'app_password');
    const verdict = await beginAttempt(this.db, keys);
    if (!verdict.allowed) {
      return {
        user: null,
        error: new RestError(
          'rest_too_many_attempts',
          `Too many failed application password attempts. Try again in ${verdict.retryAfterSeconds} seconds.`,
          { status: 429, retry_after: verdict.retryAfterSeconds },
        ),
      };
    }
    // The user name may be the e-mail address (wp_authenticate_application_password). A failed
    // application password (unknown user name or address, wrong password, a header that is no
    // Basic credential) leaves the request anonymous, as WordPress 6.1 answers it
    // (compatibility.md: its codes invalid_username / invalid_email / incorrect_password never
    // reach a REST answer; a route the anonymous caller may not use answers rest_not_logged_in
    // or rest_forbidden_context). No privilege comes of it, and the failure still counts
    // against the attempt limits above (past them: 429).
    const account = await findSiteAccountByLogin(this.db, username);
    if (!account) return { user: null };
    const app = await verifyAppPassword(this.db, account.id, password, ip);
    if (!app) return { user: null };
    await settleAttempt(this.db, keys);
    if (account.bannedAt !== null) {
      return {
        user: null,
        error: new RestError('rest_user_banned', 'This account is banned.', 403),
      };
    }
    return {
      user: {
        id: account.id,
        username: account.username,
        role: account.role,
        appPassword: app.uuid,
      },
      via: 'application-password',
    };
  }
}
