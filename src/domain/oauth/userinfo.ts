import { authenticateSecret } from '../accounts/credentials.js';
import { AUTH_ME_SCOPE } from '../accounts/scopes.js';
import type { Queryable } from '../../shared/db/db.js';
import { OAuthError } from './oauth-error.js';

/** The UserInfo response (OIDC Core 5.3.2): `sub` always, the username only with api.auth.me.read. */
export interface UserInfo {
  sub: string;
  preferred_username?: string;
}

const REFUSALS = {
  unknown: 'the access token is not known',
  revoked: 'the access token has been revoked',
  expired: 'the access token has expired',
  not_active: 'the access token is not active yet',
  banned: 'the account is suspended',
} as const;

/**
 * What GET /oauth/userinfo tells about the holder of an access token. Only OAuth access tokens
 * are accepted (an API key or web session is not one: invalid_token, RFC 6750 3.1).
 */
export async function userInfoFor(
  db: Queryable,
  accessToken: string,
  now: Date,
): Promise<UserInfo> {
  const result = await authenticateSecret(db, accessToken, now);
  if (!result.ok) throw new OAuthError('invalid_token', REFUSALS[result.reason]);
  if (result.credential.issuer !== 'oauth')
    throw new OAuthError('invalid_token', 'not an OAuth access token');
  return {
    sub: result.user.userId,
    ...(result.credential.scopes.includes(AUTH_ME_SCOPE)
      ? { preferred_username: result.user.username }
      : {}),
  };
}
