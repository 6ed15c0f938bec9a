import { isAppRequestableScope, SCOPE_CATALOGUE } from '../accounts/scopes.js';

/** The scope an OpenID Connect client adds; accepted, never reviewed (an id_token is always issued). */
export const OPENID_SCOPE = 'openid';

/** The claims an id_token or userinfo may carry. */
export const SUPPORTED_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'azp',
  'exp',
  'iat',
  'auth_time',
  'at_hash',
  'nonce',
  'preferred_username',
] as const;

/** Where the endpoints are under the issuer. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
  discovery: '/.well-known/openid-configuration',
} as const;

/**
 * The issuer identifier from PUBLIC_URL: an https (or http, for development) URL with no query
 * or fragment and no trailing slash (OpenID Connect Discovery 3: discovery is at
 * issuer + /.well-known/openid-configuration, and `iss` must equal it string for string).
 */
export function issuerOf(publicUrl: string): string {
  const url = new URL(publicUrl);
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

/**
 * The OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3, RFC 8414 section 2,
 * RFC 9207 section 3 for `authorization_response_iss_parameter_supported`).
 */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: issuer + OAUTH_PATHS.authorize,
    token_endpoint: issuer + OAUTH_PATHS.token,
    userinfo_endpoint: issuer + OAUTH_PATHS.userinfo,
    jwks_uri: issuer + OAUTH_PATHS.jwks,
    // What an app may ask for: not the administrators' scopes, nor managing credentials.
    scopes_supported: [
      OPENID_SCOPE,
      ...SCOPE_CATALOGUE.filter((s) => isAppRequestableScope(s.name)).map((s) => s.name),
    ],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...SUPPORTED_CLAIMS],
    prompt_values_supported: ['none', 'consent'],
    authorization_response_iss_parameter_supported: true,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    service_documentation: `${issuer}/docs`,
  };
}
