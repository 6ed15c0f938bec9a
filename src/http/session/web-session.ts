import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../../domain/accounts/credentials.js';
import type { User } from '../../domain/accounts/users.js';
import { CSRF_COOKIE, CSRF_FIELD, fromOwnOrigin, originOf } from './form-csrf.js';

export { CSRF_COOKIE, CSRF_FIELD };

/**
 * The browser side of signing in, for server-rendered pages (/login, /account, and the OAuth
 * consent page): who is signed in (the `token` cookie of a web session), the session cookie
 * itself, CSRF protection of forms (form-csrf.ts: tokens bound to the session, and an Origin
 * check), and safe `next` paths. Needs @fastify/cookie, the v2 edge (for its credential cache)
 * and the `formCsrf` decoration on the app.
 */
export const SESSION_COOKIE = 'token';

/** A signed-in browser: the user and the web session (issuer webapp) of the `token` cookie. */
export interface SignedInBrowser {
  user: User;
  session: Credential;
}

/** Whether the request came over https (directly, or through a trusted proxy's X-Forwarded-Proto). */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

function cookieOptions(request: FastifyRequest) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: isHttps(request) };
}

/**
 * The signed-in user of a browser request, or undefined: no cookie, or a cookie that is not a
 * live web session (unknown, revoked, expired, not an issuer-webapp credential, banned user).
 */
export async function signedInBrowser(
  request: FastifyRequest,
): Promise<SignedInBrowser | undefined> {
  const secret = request.cookies?.[SESSION_COOKIE];
  if (!secret) return undefined;
  const result = await request.server.emutrackEdge.credentials.authenticate(secret);
  if (!result.ok || result.credential.issuer !== 'webapp') return undefined;
  return { user: result.user, session: result.credential };
}

/** Sets the `token` cookie of a new web session: HttpOnly, SameSite=Lax, Path=/, Secure over https. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
  expiresAt: Date,
): void {
  reply.setCookie(SESSION_COOKIE, secret, { ...cookieOptions(request), expires: expiresAt });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/**
 * A CSRF token for a form on this page, bound to this browser's session (or, signed out, to its
 * pre-session `csrf` cookie): put it in the hidden field `_csrf`. See form-csrf.ts.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return request.server.formCsrf.token(request, reply);
}

/**
 * Whether a posted form carries a token made for this browser's session in `_csrf`, and the
 * post comes from our own origin (Origin, else Sec-Fetch-Site; see fromOwnOrigin).
 */
export function csrfValid(
  request: FastifyRequest,
  form: Record<string, unknown> | undefined,
): boolean {
  const publicOrigin = originOf(request.server.emutrackEdge?.config.PUBLIC_URL);
  if (!fromOwnOrigin(request, publicOrigin ? [publicOrigin] : [])) return false;
  return request.server.formCsrf.valid(request, form);
}

/**
 * `next` if it is a path on this site (`/...`, not `//host` nor `/\host`, no control
 * characters), else `fallback`: where to go after signing in, never another site.
 */
export function safeNextPath(next: unknown, fallback = '/account'): string {
  if (typeof next !== 'string' || next.length > 2000) return fallback;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return fallback;
  return next;
}

/** The sign-in page that comes back to `next` (a path and query on this site) afterwards. */
export function loginUrl(next: string): string {
  return `/login?next=${encodeURIComponent(safeNextPath(next))}`;
}

/**
 * The four operations above as one object, shaped as src/http/oauth/page-session.ts's PageSession
 * (what the OAuth pages ask of the web sign-in).
 */
export const webPageSession = {
  signedIn: signedInBrowser,
  loginUrl,
  async csrfField(request: FastifyRequest, reply: FastifyReply) {
    return { field: CSRF_FIELD, token: csrfToken(request, reply) };
  },
  async csrfValid(request: FastifyRequest, form: Record<string, unknown>) {
    return csrfValid(request, form);
  },
};
