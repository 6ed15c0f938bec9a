import { isAppRequestableScope, isScope, scopeInfo } from '../accounts/scopes.js';
import { OAuthInputError } from './oauth-input-error.js';
import { MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uri.js';

/** What a developer gives when registering a client (the spec's creation inputs). */
export interface ClientInput {
  /** Shown on the consent page. 1-100 characters. */
  name: string;
  /** 1-10 callback addresses (see redirectUriProblem). */
  redirectUris: readonly string[];
  /** 1 or more scopes of the catalogue; each waits for an administrator's review. */
  requestedScopes: readonly string[];
  /** At most 1000 characters; null or absent = none. */
  description?: string | null;
  /** An http(s) URL shown on the consent page; null or absent = none. */
  homepageUrl?: string | null;
}

/** A change to a client: any subset of the inputs. */
export type ClientPatch = Partial<ClientInput>;

export const CLIENT_NAME_MAX_LENGTH = 100;
export const CLIENT_DESCRIPTION_MAX_LENGTH = 1000;
export const HOMEPAGE_URL_MAX_LENGTH = 2000;

// Control characters would let a name pose as two lines of the consent page.
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new OAuthInputError('name', 'must be a string');
  const name = value.trim();
  if (name.length === 0) throw new OAuthInputError('name', 'must not be empty');
  if (name.length > CLIENT_NAME_MAX_LENGTH)
    throw new OAuthInputError('name', `at most ${CLIENT_NAME_MAX_LENGTH} characters`);
  if (CONTROL.test(name)) throw new OAuthInputError('name', 'may not contain control characters');
  return name;
}

export function checkRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value)) throw new OAuthInputError('redirectUris', 'must be an array');
  if (value.length === 0) throw new OAuthInputError('redirectUris', 'at least one is required');
  if (value.length > MAX_REDIRECT_URIS)
    throw new OAuthInputError('redirectUris', `at most ${MAX_REDIRECT_URIS}`);
  const seen = new Set<string>();
  value.forEach((uri, i) => {
    const field = `redirectUris[${i}]`;
    if (typeof uri !== 'string') throw new OAuthInputError(field, 'must be a string');
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthInputError(field, problem);
    if (seen.has(uri)) throw new OAuthInputError(field, 'is listed twice');
    seen.add(uri);
  });
  return [...seen];
}

export function checkRequestedScopes(value: unknown): string[] {
  if (!Array.isArray(value)) throw new OAuthInputError('requestedScopes', 'must be an array');
  if (value.length === 0) throw new OAuthInputError('requestedScopes', 'at least one is required');
  const seen = new Set<string>();
  value.forEach((scope, i) => {
    const field = `requestedScopes[${i}]`;
    if (typeof scope !== 'string') throw new OAuthInputError(field, 'must be a string');
    if (!isScope(scope))
      throw new OAuthInputError(field, `unknown scope ${JSON.stringify(scope.slice(0, 100))}`);
    // Administrators' powers are never delegated to a third-party app.
    if (scopeInfo(scope)?.adminOnly)
      throw new OAuthInputError(
        field,
        `${scope} is for administrators and cannot be requested by an app`,
      );
    // Managing the user's credentials is never delegated to an app either.
    if (!isAppRequestableScope(scope))
      throw new OAuthInputError(field, `${scope} cannot be requested by an app`);
    seen.add(scope);
  });
  return [...seen];
}

export function checkDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw new OAuthInputError('description', 'must be a string or null');
  const text = value.trim();
  if (text.length > CLIENT_DESCRIPTION_MAX_LENGTH)
    throw new OAuthInputError('description', `at most ${CLIENT_DESCRIPTION_MAX_LENGTH} characters`);
  return text === '' ? null : text;
}

export function checkHomepageUrl(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string')
    throw new OAuthInputError('homepageUrl', 'must be a string or null');
  if (value.length > HOMEPAGE_URL_MAX_LENGTH)
    throw new OAuthInputError('homepageUrl', `at most ${HOMEPAGE_URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthInputError('homepageUrl', 'must be an absolute http or https URL');
  }
  // Shown as a link on the consent page: javascript: and data: URLs must never get there.
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OAuthInputError('homepageUrl', 'must be an absolute http or https URL');
  if (url.username !== '' || url.password !== '')
    throw new OAuthInputError('homepageUrl', 'may not contain user information');
  return value;
}

/** Client inputs after checking: trimmed, de-duplicated, absent = null. */
export interface CheckedClientInput {
  name: string;
  redirectUris: string[];
  requestedScopes: string[];
  description: string | null;
  homepageUrl: string | null;
}

/** The inputs checked and normalised; throws OAuthInputError naming the first bad field. */
export function checkClientInput(input: ClientInput): CheckedClientInput {
  return {
    name: checkName(input.name),
    redirectUris: checkRedirectUris(input.redirectUris),
    requestedScopes: checkRequestedScopes(input.requestedScopes),
    description: checkDescription(input.description),
    homepageUrl: checkHomepageUrl(input.homepageUrl),
  };
}
