import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../accounts/credentials.js';
import type { User } from '../accounts/users.js';

/**
 * The browser side of signing in, for server-rendered pages (/login, /account, and the OAuth
 * consent page): who is signed in (the `token` cookie of a web session), the session cookie
 * itself, CSRF protection of forms, and safe `next` paths. Needs @fastify/cookie and the v2 edge
 * (for its credential cache) registered on the app.
 */
export const SESSION_COOKIE = 'token';
/** The CSRF cookie (double submit: a form must carry the same value in CSRF_FIELD). */
export const CSRF_COOKIE = 'csrf';
export const CSRF_FIELD = '_csrf';

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
 * This browser's CSRF token, set as the `csrf` cookie on first use: put it in forms as the
 * hidden field `_csrf`. Another site can neither read the cookie nor make the browser send a
 * form with the same value, so a post whose field matches the cookie came from our page.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = request.cookies?.[CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(request));
  // Later calls in this request see the same token.
  (request.cookies ??= {})[CSRF_COOKIE] = token;
  return token;
}

/** Whether a posted form (or body) carries this browser's CSRF token in `_csrf`. */
export function csrfValid(
  request: FastifyRequest,
  form: Record<string, unknown> | undefined,
): boolean {
  const cookie = request.cookies?.[CSRF_COOKIE];
  const sent = form?.[CSRF_FIELD];
  if (typeof cookie !== 'string' || typeof sent !== 'string' || cookie.length === 0) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
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
 * The four operations above as one object, shaped as src/api/oauth/page-session.ts's PageSession
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
