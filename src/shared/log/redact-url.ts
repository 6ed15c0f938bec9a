import type { Logger } from './logger.js';

/**
 * Query parameters whose values are secrets (lower case; a bracketed name such as
 * `password[0]` counts by its base): passwords (the site's `pwd`, WordPress's `pass1`/`pass2`,
 * `post_password`), tokens and keys (`token`, `access_token`, `api_key`, `key`), OAuth's
 * `code`, `code_verifier` and `client_secret`, nonces and CSRF tokens. Any name containing
 * "password", "secret" or "token" counts too.
 */
const SECRET_PARAMS = new Set([
  'pass',
  'pass1',
  'pass2',
  'password',
  'passwd',
  'pwd',
  'post_password',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'key',
  'api_key',
  'apikey',
  'code',
  'code_verifier',
  'client_secret',
  'secret',
  '_wpnonce',
  'nonce',
  '_csrf',
  'csrf',
  'signature',
  'sig',
  'auth',
  'authorization',
]);
const SECRET_WORDS = /password|secret|token/;

export const REDACTED = '[Redacted]';

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Whether a query parameter's name marks its value as a secret. */
export function isSecretParam(rawName: string): boolean {
  const name = decodeName(rawName).toLowerCase();
  const open = name.indexOf('[');
  const base = open > 0 ? name.slice(0, open) : name;
  return SECRET_PARAMS.has(base) || SECRET_WORDS.test(base);
}

/**
 * The URL (a path with its query, as Fastify logs `req.url`) with every secret parameter's value
 * replaced by [Redacted]: `/wp-json/wp/v2/posts/1?password=hunter2` logs as
 * `/wp-json/wp/v2/posts/1?password=[Redacted]`. One pass over the query; the path is kept.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash === -1 ? url.length : hash);
  let changed = false;
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1 || eq === pair.length - 1) return pair;
    if (!isSecretParam(pair.slice(0, eq))) return pair;
    changed = true;
    return `${pair.slice(0, eq + 1)}${REDACTED}`;
  });
  if (!changed) return url;
  return `${url.slice(0, q + 1)}${pairs.join('&')}${hash === -1 ? '' : url.slice(hash)}`;
}

interface RequestLike {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Fastify's `req` log serializer (its fields: method, url, version, host, remoteAddress,
 * remotePort) with the URL's secret parameters redacted: Fastify logs every incoming request's
 * URL, and a query string may carry a password (`?password=` of a protected post), a nonce or an
 * OAuth code.
 */
export function redactedRequestSerializer(req: RequestLike) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * The logger to give Fastify (loggerInstance) so that its request lines carry redacted URLs: a
 * child with the redacting `req` serializer, which Fastify keeps over its own. Used by the API
 * and the site.
 */
export function withRedactedRequestUrls(logger: Logger): Logger {
  return logger.child({}, { serializers: { req: redactedRequestSerializer } });
}
