import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../app-context.js';
import type { Config } from '../../shared/config/config.js';
import { OAUTH_PATHS } from '../../domain/oauth/discovery.js';

/**
 * Cross-origin reads for browser apps (the live service sends `Access-Control-Allow-Origin: *`
 * on every v2 answer; PKCE public clients are mostly single-page apps). Open to any origin, and
 * never with credentials: no `Access-Control-Allow-Credentials`, so a browser never sends or
 * exposes cookies through it, and the edge ignores the `token` cookie of a cross-origin request
 * anyway (isCrossOrigin, used by v2-caller-quota.ts): a page on another origin acts with a bearer token
 * or not at all. The HTML pages (account, consent, sign-in, admin review) get no CORS headers
 * and their preflights are 404s.
 */

/** Methods a cross-origin caller may use (the v2 account operations write too). */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'] as const;
const TOKEN_METHODS = ['POST'] as const;
const USERINFO_METHODS = ['GET', 'POST'] as const;
const WELL_KNOWN_METHODS = ['GET', 'HEAD'] as const;
/** Request headers a cross-origin caller may send. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'];
/** Response headers a cross-origin caller may read (besides the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = [
  'x-api-remain',
  'x-api-cost',
  'Retry-After',
  'ETag',
  'x-request-id',
  'WWW-Authenticate',
];
/** How long a browser may keep a preflight's answer (s). */
const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * The methods a cross-origin caller may use on a path, or undefined when the path is closed to
 * them (the HTML pages).
 */
export function corsMethodsOf(path: string): readonly string[] | undefined {
  if (path === '/api/v2' || path.startsWith('/api/v2/')) return CORS_METHODS;
  if (path === OAUTH_PATHS.token) return TOKEN_METHODS;
  if (path === OAUTH_PATHS.userinfo) return USERINFO_METHODS;
  if (path.startsWith('/.well-known/')) return WELL_KNOWN_METHODS;
  return undefined;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Whether a request comes from a page of another origin: it carries an `Origin` that is neither
 * this server's public origin (PUBLIC_URL) nor the origin the request was addressed to (its
 * Host, with X-Forwarded-* only through TRUSTED_PROXIES). An opaque origin (`null`: sandboxed
 * frames, data: URLs) is cross-origin. No `Origin` (a program, a same-origin GET) is not.
 */
export function isCrossOrigin(
  request: FastifyRequest,
  config: Pick<Config, 'PUBLIC_URL'>,
): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === publicOriginOf(config.PUBLIC_URL)) return false;
  return origin !== `${request.protocol}://${request.host}`;
}

let publicOrigin = { url: '', origin: '' };
function publicOriginOf(url: string): string {
  if (publicOrigin.url !== url) publicOrigin = { url, origin: new URL(url).origin };
  return publicOrigin.origin;
}

const open = (methods: readonly string[]): FastifyCorsOptions => ({
  origin: '*',
  credentials: false,
  methods: [...methods],
  allowedHeaders: CORS_ALLOWED_HEADERS,
  exposedHeaders: CORS_EXPOSED_HEADERS,
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  strictPreflight: true,
});
/** One options object per method list (the lists above: a handful of entries). */
const OPEN_BY_METHODS = new Map<readonly string[], FastifyCorsOptions>();
const CLOSED: FastifyCorsOptions = { origin: false };

function corsOptionsOf(url: string): FastifyCorsOptions {
  const methods = corsMethodsOf(pathOf(url));
  if (!methods) return CLOSED;
  let options = OPEN_BY_METHODS.get(methods);
  if (!options) OPEN_BY_METHODS.set(methods, (options = open(methods)));
  return options;
}

/**
 * Registers @fastify/cors on the whole app (its onRequest hook answers preflights before any
 * authentication). Register it before the v2 edge, so that its headers are set on every answer
 * the edge gives, refusals included.
 */
export async function registerCors(app: ApiApp): Promise<void> {
  await app.register(fastifyCors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => callback(null, corsOptionsOf(request.url)),
  });
}
