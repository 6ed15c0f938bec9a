import { createHash, randomBytes } from 'node:crypto';
import Tokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../../shared/db/db.js';

/**
 * CSRF tokens of the server-rendered forms (the API's /login, /register, /logout, /account,
 * OAuth consent and admin review; the site's /wp-login.php), bound to the browser's session.
 *
 * The scheme is @fastify/csrf-protection's with `@fastify/cookie` and `getUserInfo` (its tokens
 * come from @fastify/csrf, used here directly so a refusal can be our own page): a random secret
 * in the `csrf` cookie, and a token that is an HMAC, under a key only the server has, of a salt,
 * that secret and the browser's binding:
 * - signed in (a `token` cookie): the SHA-256 of the session cookie, so a token made for one
 *   session is worthless in another;
 * - not signed in (sign-in and registration forms, login CSRF): the `csrf` cookie itself is the
 *   pre-session, and the binding says "no session", so a token from before sign-in is refused
 *   after it and the other way round.
 * Planting a `csrf` cookie (cookies are not separated by port, so script on another port of the
 * host can) and a matching field no longer works: without the key no one can make a token for a
 * secret, and a token made for the attacker's own session does not fit the victim's.
 */
export const CSRF_COOKIE = 'csrf';

declare module 'fastify' {
  interface FastifyInstance {
    /** The forms' CSRF tokens, decorated by the API's buildApp and the site's buildSiteApp. */
    formCsrf: FormCsrf;
  }
}

export const CSRF_FIELD = '_csrf';
/** The session cookie the binding reads (the product's web session, on the API and the site). */
const SESSION_COOKIE = 'token';
const KEY_NAME = 'form_csrf_hmac_key';

/** What a token is bound to: the session cookie's hash, or "no session yet". */
export function csrfBinding(request: FastifyRequest): string {
  return sessionBinding(request.cookies?.[SESSION_COOKIE]);
}

/** The binding of a browser whose session cookie holds this value (or none). */
export function sessionBinding(sessionCookie: string | undefined): string {
  if (!sessionCookie) return 'pre-session';
  return `session:${createHash('sha256').update(sessionCookie).digest('base64url')}`;
}

export class FormCsrf {
  private tokens: Tokens.TokensUserinfo | undefined;
  private loading: Promise<void> | undefined;
  private failure: unknown;

  private constructor(private readonly db: Queryable) {}

  /** The server's key from server_secrets (made by the first process that asks), loaded now. */
  static async load(db: Queryable): Promise<FormCsrf> {
    const csrf = new FormCsrf(db);
    await csrf.ready();
    if (!csrf.tokens) throw csrf.failure;
    return csrf;
  }

  /**
   * Loaded on first need (`ready()`), so that an app builds while the database is unreachable
   * (its health checks answer; a page asking for a token meanwhile fails as the database does).
   */
  static lazy(db: Queryable): FormCsrf {
    return new FormCsrf(db);
  }

  get loaded(): boolean {
    return this.tokens !== undefined;
  }

  /** Loads the key if it is not (one attempt at a time; a failed one is retried next time). */
  ready(): Promise<void> {
    if (this.tokens) return Promise.resolve();
    this.loading ??= this.fetchKey().then(
      (key) => {
        this.tokens = newTokens(key);
      },
      (err: unknown) => {
        this.failure = err;
        this.loading = undefined;
      },
    );
    return this.loading;
  }

  private async fetchKey(): Promise<Buffer> {
    await this.db.query(
      `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [KEY_NAME, randomBytes(32)],
    );
    const r = await this.db.query<{ value: Buffer | Uint8Array }>(
      `SELECT value FROM server_secrets WHERE name = $1`,
      [KEY_NAME],
    );
    return Buffer.from(r.rows[0]!.value);
  }

  private get t(): Tokens.TokensUserinfo {
    if (!this.tokens) throw this.failure ?? new Error('the forms CSRF key is not loaded yet');
    return this.tokens;
  }

  /** A new random secret (for the `csrf` cookie). */
  newSecret(): string {
    return this.t.secretSync();
  }

  /** A token for this secret and binding (each call a new salt; all stay valid). */
  create(secret: string, binding: string): string {
    return this.t.create(secret, binding);
  }

  verify(secret: string, token: string, binding: string): boolean {
    return this.t.verify(secret, token, binding);
  }

  /**
   * The token for a form on this page: the browser's secret (set as the `csrf` cookie on first
   * use: HttpOnly, SameSite=Lax, Path=/, Secure over https) bound to its session.
   */
  token(request: FastifyRequest, reply: FastifyReply): string {
    let secret = request.cookies?.[CSRF_COOKIE];
    if (!secret || !/^[A-Za-z0-9_-]{16,64}$/.test(secret)) {
      secret = this.newSecret();
      reply.setCookie(CSRF_COOKIE, secret, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: request.protocol === 'https',
      });
      // Later tokens of this request use the same secret.
      (request.cookies ??= {})[CSRF_COOKIE] = secret;
    }
    return this.create(secret, csrfBinding(request));
  }

  /** Whether the posted `_csrf` field is a token of this browser's secret and session. */
  valid(request: FastifyRequest, form: Record<string, unknown> | undefined): boolean {
    const secret = request.cookies?.[CSRF_COOKIE];
    const sent = form?.[CSRF_FIELD];
    if (typeof secret !== 'string' || typeof sent !== 'string') return false;
    return this.verify(secret, sent, csrfBinding(request));
  }
}

/** @fastify/csrf's Tokens with userInfo (the binding) and a server-side HMAC key. */
function newTokens(hmacKey: Buffer): Tokens.TokensUserinfo {
  return Tokens({ userInfo: true, hmacKey }) as Tokens.TokensUserinfo;
}

/**
 * Whether a state-changing browser request comes from one of our own pages (OWASP CSRF cheat
 * sheet, "Verifying origin with standard headers", as defence in depth under the token):
 * - `Origin` naming an origin: it must be exactly one of `origins` (scheme, host and port:
 *   another port of the same host is another origin) or the origin the request itself was
 *   addressed to (its Host, over its protocol);
 * - `Origin: null` (what Chromium sends from a page with `Referrer-Policy: no-referrer`, as the
 *   consent page has, and from sandboxed documents) or no Origin: `Sec-Fetch-Site` decides, and
 *   only `same-origin` or `none` (typed, bookmarked) pass; `same-site` (another port or
 *   subdomain) and `cross-site` are refused; `null` without Sec-Fetch-Site is refused;
 * - neither header (a non-browser client, an old browser): allowed, the token still decides.
 */
export function fromOwnOrigin(request: FastifyRequest, origins: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    if (origins.includes(origin)) return true;
    const host = request.headers.host;
    return typeof host === 'string' && origin === `${request.protocol}://${host}`;
  }
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || site === 'none';
  return origin === undefined;
}

/** The origin (scheme://host:port) of a configured URL, or undefined. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
