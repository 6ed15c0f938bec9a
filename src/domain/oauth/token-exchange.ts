import { AUTH_ME_SCOPE } from '../accounts/scopes.js';
import { issueCredential } from '../accounts/credentials.js';
import { isEmutrackError } from '../../shared/errors/emutrack-error.js';
import { toDate, type Db } from '../../shared/db/db.js';
import type { RequestParams } from './authorization-request.js';
import { codeHash } from './authorization-grant.js';
import { findClient } from './client-records.js';
import { OPENID_SCOPE } from './discovery.js';
import { signIdToken } from './id-token.js';
import { OAuthError } from './oauth-error.js';
import { verifyS256 } from './pkce.js';
import type { SigningKeyStore } from './signing-keys.js';

/** Lifetime of access tokens and id_tokens (spec: 2592000 s). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 2_592_000;

/** The successful token response (RFC 6749 5.1; OIDC Core 3.1.3.3). No refresh token. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  id_token: string;
  scope: string;
}

export interface TokenExchangeDeps {
  db: Db;
  keys: SigningKeyStore;
  /** The issuer (PUBLIC_URL), the id_token's `iss`. */
  issuer: string;
  /** What each access token may spend per day (the credentials' daily_token_limit). */
  dailyTokenLimit: number;
  now: Date;
}

/** The token request as received: body parameters and whether it carried client credentials. */
export interface TokenRequest {
  params: RequestParams;
  /** An Authorization header was sent (HTTP Basic client authentication). */
  authorizationHeader: boolean;
}

interface CodeRow {
  client_id: string;
  user_id: string;
  username: string;
  banned_at: Date | string | null;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  nonce: string | null;
  auth_time: Date | string;
  expires_at: Date | string;
  consumed_at: Date | string | null;
  credential_id: string | null;
}

type Outcome =
  | { ok: true; accessToken: string; row: CodeRow; expiresAt: Date }
  | { ok: false; error: OAuthError };

/**
 * POST /oauth/token with grant_type=authorization_code (RFC 6749 4.1.3, RFC 7636 4.5-4.6). The
 * checks run in this order: parameters given once, grant type, client (a public client: no
 * secret; unknown or disabled = invalid_client), code (known, issued to this client, not used,
 * not expired), redirect_uri identical, PKCE. The code row is locked while it is checked, so
 * two exchanges of one code cannot both succeed. A code presented again after it was exchanged
 * is refused and the token it gave is revoked (RFC 6749 4.1.2, 10.5). Throws OAuthError.
 */
export async function exchangeAuthorizationCode(
  request: TokenRequest,
  deps: TokenExchangeDeps,
): Promise<TokenResponse> {
  const { params } = request;
  const repeated = Object.entries(params).find(([, v]) => Array.isArray(v));
  if (repeated) throw new OAuthError('invalid_request', `${repeated[0]} is given more than once`);
  const value = (name: string) => params[name] as string | undefined;

  const grantType = value('grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is missing');
  if (grantType !== 'authorization_code')
    throw new OAuthError(
      'unsupported_grant_type',
      'only grant_type=authorization_code is supported',
    );

  if (
    request.authorizationHeader ||
    value('client_secret') !== undefined ||
    value('client_assertion') !== undefined
  ) {
    throw new OAuthError(
      'invalid_client',
      'clients are public: send client_id alone, without a secret or assertion (PKCE proves the client)',
    );
  }
  const clientId = value('client_id');
  if (!clientId) throw new OAuthError('invalid_client', 'client_id is missing');
  const client = clientId.length <= 200 ? await findClient(deps.db, clientId) : undefined;
  if (!client) throw new OAuthError('invalid_client', 'there is no client with this client_id');
  if (client.status !== 'active')
    throw new OAuthError('invalid_client', 'the client has been disabled by an administrator');

  const code = value('code');
  if (!code) throw new OAuthError('invalid_request', 'code is missing');
  const redirectUri = value('redirect_uri');
  const verifier = value('code_verifier');

  // Loaded (made, the first time) before the transaction: PGlite has one connection.
  const key = await deps.keys.current();
  const now = deps.now;

  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const r = await tx.query<CodeRow>(
      `SELECT k.client_id, k.user_id::text AS user_id, u.username, u.banned_at, k.redirect_uri,
              k.scopes, k.code_challenge, k.nonce, k.auth_time, k.expires_at, k.consumed_at,
              k.credential_id::text AS credential_id
         FROM oauth_codes k JOIN users u ON u.id = k.user_id
        WHERE k.code_hash = $1
          FOR UPDATE OF k`,
      [codeHash(code)],
    );
    const row = r.rows[0];
    const refuse = (error: OAuthError): Outcome => ({ ok: false, error });
    if (!row || row.client_id !== client.clientId)
      return refuse(new OAuthError('invalid_grant', 'the code is not known for this client'));
    if (row.consumed_at !== null) {
      if (row.credential_id !== null) {
        await tx.query(
          'UPDATE credentials SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
          [row.credential_id, now],
        );
      }
      return refuse(
        new OAuthError(
          'invalid_grant',
          'the code was already used; the access token it gave has been revoked',
          row.credential_id !== null,
        ),
      );
    }
    if (toDate(row.expires_at) <= now)
      return refuse(new OAuthError('invalid_grant', 'the code has expired'));
    if (!redirectUri) return refuse(new OAuthError('invalid_request', 'redirect_uri is missing'));
    if (redirectUri !== row.redirect_uri)
      return refuse(
        new OAuthError(
          'invalid_grant',
          'redirect_uri differs from the one of the authorization request',
        ),
      );
    if (!verifier)
      return refuse(new OAuthError('invalid_request', 'code_verifier is missing (PKCE)'));
    if (!verifyS256(verifier, row.code_challenge))
      return refuse(
        new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge'),
      );
    if (row.banned_at !== null)
      return refuse(new OAuthError('invalid_grant', 'the account that authorized is suspended'));

    const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
    let issued;
    try {
      issued = await issueCredential(
        tx,
        {
          userId: row.user_id,
          issuer: 'oauth',
          name: client.name,
          scopes: row.scopes.filter((s) => s !== OPENID_SCOPE),
          activeFrom: now,
          expiresAt,
          dailyTokenLimit: deps.dailyTokenLimit,
          oauthClientId: client.clientId,
        },
        { now },
      );
    } catch (err) {
      // The user's role changed between consent and exchange: the grant no longer holds.
      if (isEmutrackError(err, 'insufficient_scope'))
        return refuse(
          new OAuthError('invalid_grant', 'the user no longer holds the scopes granted'),
        );
      throw err;
    }
    await tx.query(
      'UPDATE oauth_codes SET consumed_at = $2, credential_id = $3 WHERE code_hash = $1',
      [codeHash(code), now, issued.credential.credentialId],
    );
    return { ok: true, accessToken: issued.secret, row, expiresAt };
  });
  if (!outcome.ok) throw outcome.error;

  const { row, accessToken, expiresAt } = outcome;
  const apiScopes = row.scopes.filter((s) => s !== OPENID_SCOPE);
  const idToken = await signIdToken(key, {
    issuer: deps.issuer,
    subject: row.user_id,
    clientId: client.clientId,
    issuedAt: now,
    expiresAt,
    authTime: toDate(row.auth_time),
    accessToken,
    ...(row.nonce !== null ? { nonce: row.nonce } : {}),
    ...(apiScopes.includes(AUTH_ME_SCOPE) ? { preferredUsername: row.username } : {}),
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    id_token: idToken,
    scope: row.scopes.join(' '),
  };
}
