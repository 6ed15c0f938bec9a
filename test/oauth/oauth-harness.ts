import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import type { User } from '../../src/domain/accounts/users.js';
import { buildApp } from '../../src/http/api/app.js';
import { FormCsrf, sessionBinding } from '../../src/http/session/form-csrf.js';
import type { Config } from '../../src/shared/config/config.js';
import type { Db } from '../../src/shared/db/db.js';
import { issueAuthorizationCode } from '../../src/domain/oauth/authorization-grant.js';
import { parseAuthorizationRequest } from '../../src/domain/oauth/authorization-request.js';
import { s256Challenge } from '../../src/domain/oauth/pkce.js';
import { silentLogger, testConfig } from '../api/helpers/api-harness.js';

export const KEY_SECRET = 'oauth tests: a secret of thirty-two characters or more';

/** A config for OAuth tests: its own quota prefix, a key secret, the issuer given. */
export function oauthConfig(overrides: Record<string, string> = {}): Config {
  return testConfig({
    OAUTH_KEY_SECRET: KEY_SECRET,
    PUBLIC_URL: 'http://127.0.0.1:3000',
    ...overrides,
  });
}

/** The whole API app (buildApp), as production builds it, with an OAuth test config. */
export async function oauthApp(db: Db, options: { config?: Config; clock?: () => number } = {}) {
  return buildApp({
    db,
    config: options.config ?? oauthConfig(),
    logger: silentLogger(),
    clock: options.clock,
  });
}

/** The CSRF field of forms (form-csrf.ts: a token bound to the session, under the server's key). */
export const CSRF_FIELD = '_csrf';

/** A signed-in browser: a web session for the user, and its cookies (session and CSRF). */
export interface TestBrowser {
  cookie: string;
  csrf: string;
}

/** Signs a user in as the web sign-in does (a webapp credential in the `token` cookie). */
export async function signIn(db: Db, user: User): Promise<TestBrowser> {
  const { secret } = await issueCredential(db, {
    userId: user.userId,
    issuer: 'webapp',
    // What the web sign-in gives a session: every scope of the user's role.
    scopes: scopesOfRole(user.role),
    dailyTokenLimit: 1000,
  });
  // As the pages make it: a `csrf` cookie secret and a token for it bound to this session.
  const tokens = await FormCsrf.load(db);
  const csrfSecret = tokens.newSecret();
  const csrf = tokens.create(csrfSecret, sessionBinding(secret));
  return { cookie: `token=${secret}; csrf=${csrfSecret}`, csrf };
}

export const VERIFIER = 'verifier-0123456789-0123456789-0123456789-abcdef';

/** An authorization code as the consent step would issue it (the user allowed the request). */
export async function codeFor(
  db: Db,
  user: User,
  query: Record<string, string>,
  options: { now?: Date; authTime?: Date } = {},
): Promise<string> {
  const params = {
    response_type: 'code',
    state: 'st',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    ...query,
  };
  const parsed = await parseAuthorizationRequest(db, params);
  if (!parsed.ok) throw new Error(`bad test request: ${JSON.stringify(parsed.refusal)}`);
  const now = options.now ?? new Date();
  return issueAuthorizationCode(
    db,
    parsed.request,
    { userId: user.userId, role: user.role, authTime: options.authTime ?? now },
    now,
  );
}

/** A form body. */
export function form(fields: Record<string, string | string[]>): string {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return body.toString();
}

export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };
