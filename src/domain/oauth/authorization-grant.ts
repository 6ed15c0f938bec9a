import { createHash, randomBytes } from 'node:crypto';
import { scopesOfRole, type Role } from '../accounts/scopes.js';
import type { Queryable } from '../../shared/db/db.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { OAuthErrorValue } from './oauth-error.js';

/** Lifetime of an authorization code (RFC 6749 4.1.2 recommends 10 minutes at most). */
export const CODE_LIFETIME_SECONDS = 300;
/** How long a user's "Allow" is remembered for the same client and scopes. */
export const CONSENT_LIFETIME_SECONDS = 30 * 86_400;

/** The signed-in user deciding on a request. */
export interface AuthorizingUser {
  userId: string;
  role: Role;
  /** When the user signed in (the web session's start): the id_token's auth_time. */
  authTime: Date;
}

/**
 * Whether this user may grant these scopes to this client (spec Authentication 9 and the scope
 * review): each scope must be one the user holds, and approved by an administrator, except
 * that the client's owner may use scopes still pending, to test. Returns the refusal or
 * undefined.
 */
export function userRefusal(
  request: AuthorizationRequest,
  user: Pick<AuthorizingUser, 'userId' | 'role'>,
): { error: OAuthErrorValue; description: string } | undefined {
  const held = new Set(scopesOfRole(user.role));
  const missing = request.scopes.find((s) => !held.has(s));
  if (missing !== undefined)
    return { error: 'access_denied', description: `you do not hold scope ${missing}` };
  const isOwner = request.client.ownerId === user.userId;
  for (const { scope, status } of request.client.scopes) {
    if (!request.scopes.includes(scope) || status === 'approved') continue;
    if (status === 'pending' && isOwner) continue;
    return {
      error: 'access_denied',
      description:
        status === 'pending'
          ? `scope ${scope} is waiting for an administrator's review; until then only the client's owner may use it`
          : `scope ${scope} was rejected by an administrator`,
    };
  }
  return undefined;
}

/** Whether the user allowed this client these scopes (or more) before, and it is remembered. */
export async function hasRememberedConsent(
  db: Queryable,
  userId: string,
  request: AuthorizationRequest,
  now: Date,
): Promise<boolean> {
  const r = await db.query(
    `SELECT 1 FROM oauth_consents
      WHERE user_id = $1 AND client_id = $2 AND scopes @> $3::text[] AND expires_at > $4
      LIMIT 1`,
    [userId, request.client.clientId, request.scopes, now],
  );
  return r.rowCount > 0;
}

/** Remembers an "Allow" for CONSENT_LIFETIME_SECONDS (renewed when given again). */
export async function rememberConsent(
  db: Queryable,
  userId: string,
  request: AuthorizationRequest,
  now: Date,
): Promise<void> {
  const scopes = [...request.scopes].sort();
  await db.query(
    `INSERT INTO oauth_consents (user_id, client_id, scopes, granted_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id, client_id, scopes)
       DO UPDATE SET granted_at = EXCLUDED.granted_at, expires_at = EXCLUDED.expires_at`,
    [
      userId,
      request.client.clientId,
      scopes,
      now,
      new Date(now.getTime() + CONSENT_LIFETIME_SECONDS * 1000),
    ],
  );
}

/** SHA-256 of a code: what oauth_codes keeps (a database read gives no usable code). */
export function codeHash(code: string): Buffer {
  return createHash('sha256').update(code, 'utf8').digest();
}

/**
 * Issues a one-time authorization code (32 random bytes, base64url) bound to the client, the
 * redirect_uri, the scopes, the PKCE challenge, the nonce and the user; it lives
 * CODE_LIFETIME_SECONDS.
 */
export async function issueAuthorizationCode(
  db: Queryable,
  request: AuthorizationRequest,
  user: AuthorizingUser,
  now: Date,
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, code_challenge,
       nonce, auth_time, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      codeHash(code),
      request.client.clientId,
      user.userId,
      request.redirectUri,
      request.openid ? [...request.scopes, 'openid'] : request.scopes,
      request.codeChallenge,
      request.nonce ?? null,
      user.authTime,
      now,
      new Date(now.getTime() + CODE_LIFETIME_SECONDS * 1000),
    ],
  );
  return code;
}
