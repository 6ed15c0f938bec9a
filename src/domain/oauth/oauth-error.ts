import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * The error values of RFC 6749 (4.1.2.1, 5.2), RFC 6750 (3.1) and OpenID Connect Core (3.1.2.6)
 * that this server sends.
 */
export type OAuthErrorValue =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_token'
  | 'login_required'
  | 'consent_required'
  | 'account_selection_required'
  | 'request_not_supported'
  | 'request_uri_not_supported';

/**
 * A refusal of the OAuth protocol, told to the client as `{error, error_description}` (token
 * endpoint), as query parameters of the redirect (authorization endpoint) or in
 * `WWW-Authenticate` (userinfo). `code` is `oauth_<error>`; the description never holds a secret.
 */
export class OAuthError extends EmutrackError {
  constructor(
    readonly error: OAuthErrorValue,
    readonly description: string,
    /** Access tokens were revoked on the way (a replayed code): caches of credentials are stale. */
    readonly tokensRevoked = false,
  ) {
    super(`oauth_${error}`, `${error}: ${description}`);
  }
}
