import { isScope } from '../accounts/scopes.js';
import type { Queryable } from '../../shared/db/db.js';
import { findClient, type OAuthClient } from './client-records.js';
import { OPENID_SCOPE } from './discovery.js';
import type { OAuthErrorValue } from './oauth-error.js';
import { isPkceValue } from './pkce.js';

/** Query parameters as parsed (a repeated parameter is an array). */
export type RequestParams = Record<string, string | string[] | undefined>;

/** A valid authorization request (RFC 6749 4.1.1 with RFC 7636 4.3 and OIDC Core 3.1.2.1). */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string;
  /** The API scopes asked for, in the client's requested order (without `openid`). */
  scopes: string[];
  /** Whether `openid` was asked for (echoed in the token response's scope). */
  openid: boolean;
  codeChallenge: string;
  nonce?: string;
  /** prompt=consent: ask again even when consent is remembered. */
  promptConsent: boolean;
  /** prompt=none: never show a page; fail with login_required / consent_required instead. */
  promptNone: boolean;
}

/** Why a request is refused: shown on an error page (never redirected), or sent to the client. */
export type AuthorizationRefusal =
  | { kind: 'page'; error: OAuthErrorValue; description: string }
  | {
      kind: 'redirect';
      redirectUri: string;
      /** Echoed when the request had exactly one. */
      state?: string;
      error: OAuthErrorValue;
      description: string;
    };

export type ParsedAuthorizationRequest =
  { ok: true; request: AuthorizationRequest } | { ok: false; refusal: AuthorizationRefusal };

export const STATE_MAX_LENGTH = 2048;
export const NONCE_MAX_LENGTH = 512;
const PROMPTS = new Set(['none', 'consent']);

function single(params: RequestParams, name: string): string | undefined | string[] {
  const value = params[name];
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

/**
 * Checks an authorization request in the order the RFCs want it: first what decides whether
 * the client may be redirected to at all (client_id known and active, redirect_uri registered
 * string for string; RFC 6749 4.1.2.1, 10.15; RFC 9700 4.1), refused on a page; then everything
 * else, refused by redirect with error and state. The user's part (scopes held, pending review,
 * consent) is decided later, once the user is known.
 */
export async function parseAuthorizationRequest(
  db: Queryable,
  params: RequestParams,
): Promise<ParsedAuthorizationRequest> {
  const page = (error: OAuthErrorValue, description: string): ParsedAuthorizationRequest => ({
    ok: false,
    refusal: { kind: 'page', error, description },
  });

  const clientId = single(params, 'client_id');
  if (Array.isArray(clientId)) return page('invalid_request', 'client_id is given more than once');
  if (!clientId) return page('invalid_request', 'client_id is missing');
  const client = clientId.length <= 200 ? await findClient(db, clientId) : undefined;
  if (!client) return page('invalid_client', 'there is no client with this client_id');
  if (client.status !== 'active')
    return page(
      'invalid_client',
      `the client "${client.name}" has been disabled by an administrator`,
    );

  const redirectUri = single(params, 'redirect_uri');
  if (Array.isArray(redirectUri))
    return page('invalid_request', 'redirect_uri is given more than once');
  if (!redirectUri) return page('invalid_request', 'redirect_uri is missing');
  if (!client.redirectUris.includes(redirectUri))
    return page('invalid_request', 'redirect_uri is not one the client registered');

  const rawState = single(params, 'state');
  const state = typeof rawState === 'string' && rawState !== '' ? rawState : undefined;
  const fail = (error: OAuthErrorValue, description: string): ParsedAuthorizationRequest => ({
    ok: false,
    refusal: {
      kind: 'redirect',
      redirectUri,
      ...(state !== undefined && state.length <= STATE_MAX_LENGTH ? { state } : {}),
      error,
      description,
    },
  });

  // RFC 6749 3.1: "Request and response parameters MUST NOT be included more than once."
  const repeated = Object.entries(params).find(([, v]) => Array.isArray(v) && v.length > 1);
  if (repeated) return fail('invalid_request', `${repeated[0]} is given more than once`);
  const value = (name: string) => single(params, name) as string | undefined;

  // OIDC Core 6: request objects are not supported (discovery says so too).
  if (value('request') !== undefined)
    return fail('request_not_supported', 'the request parameter is not supported');
  if (value('request_uri') !== undefined)
    return fail('request_uri_not_supported', 'the request_uri parameter is not supported');

  const responseType = value('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is missing');
  if (responseType !== 'code')
    return fail('invalid_request', 'response_type must be "code" (the only flow supported)');
  const responseMode = value('response_mode');
  if (responseMode !== undefined && responseMode !== 'query')
    return fail('invalid_request', 'response_mode must be "query"');

  if (state === undefined) return fail('invalid_request', 'state is missing');
  if (state.length > STATE_MAX_LENGTH)
    return fail('invalid_request', `state is longer than ${STATE_MAX_LENGTH} characters`);

  const challenge = value('code_challenge');
  const method = value('code_challenge_method');
  if (!challenge) return fail('invalid_request', 'code_challenge is missing (PKCE is required)');
  if (!isPkceValue(challenge))
    return fail(
      'invalid_request',
      'code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 4.2)',
    );
  if (!method)
    return fail('invalid_request', 'code_challenge_method is missing (only S256 is supported)');
  if (method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');

  const scopeParam = value('scope');
  const words = (scopeParam ?? '').split(' ').filter((w) => w !== '');
  if (words.length === 0) return fail('invalid_request', 'scope is missing');
  const openid = words.includes(OPENID_SCOPE);
  const wanted = new Set(words.filter((w) => w !== OPENID_SCOPE));
  for (const scope of wanted) {
    if (!isScope(scope)) return fail('invalid_scope', `unknown scope "${scope.slice(0, 100)}"`);
  }
  const review = new Map(client.scopes.map((s) => [s.scope, s.status]));
  for (const scope of wanted) {
    if (!review.has(scope))
      return fail('invalid_scope', `the client did not register scope ${scope}`);
    if (review.get(scope) === 'rejected')
      return fail('access_denied', `scope ${scope} was rejected by an administrator`);
  }

  const prompts = (value('prompt') ?? '').split(' ').filter((w) => w !== '');
  // OIDC Core 3.1.2.1: what the server cannot do for a prompt value is told with its error.
  if (prompts.includes('login'))
    return fail(
      'login_required',
      'prompt=login is not supported: the user cannot be asked to sign in again here',
    );
  if (prompts.includes('select_account'))
    return fail(
      'account_selection_required',
      'prompt=select_account is not supported: one account per browser',
    );
  const unknownPrompt = prompts.find((p) => !PROMPTS.has(p));
  if (unknownPrompt !== undefined)
    return fail('invalid_request', 'prompt may only be "none" or "consent"');
  if (prompts.includes('none') && prompts.length > 1)
    return fail('invalid_request', 'prompt=none cannot be combined with another value');

  const nonce = value('nonce');
  if (nonce !== undefined && nonce.length > NONCE_MAX_LENGTH)
    return fail('invalid_request', `nonce is longer than ${NONCE_MAX_LENGTH} characters`);

  return {
    ok: true,
    request: {
      client,
      redirectUri,
      state,
      scopes: client.scopes.map((s) => s.scope).filter((s) => wanted.has(s)),
      openid,
      codeChallenge: challenge,
      ...(nonce !== undefined && nonce !== '' ? { nonce } : {}),
      promptConsent: prompts.includes('consent'),
      promptNone: prompts.includes('none'),
    },
  };
}
