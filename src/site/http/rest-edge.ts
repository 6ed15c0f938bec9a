import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SiteAuthenticator } from '../auth/site-authenticator.js';
import { SESSION_COOKIE } from '../auth/site-authenticator.js';
import { RestError } from '../rest/rest-error.js';
import { RestRequest } from '../rest/rest-request.js';
import type { RestReply, RestServer } from '../rest/rest-server.js';
import { publishDuePosts } from '../../content/posts-store.js';
import {
  anonymousResponseKey,
  SiteResponseCache,
  siteResponseCacheOf,
  type PreparedResponse,
} from '../cache/site-response-cache.js';
import { dueScheduledTypes, type SiteContentState } from '../cache/site-content-version.js';
import type { SiteKit } from '../site-kit.js';

const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const OVERRIDABLE = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Marks a JSON body that did not parse (answered as rest_invalid_json, as WordPress does). */
export const INVALID_JSON = Symbol('invalid-json');

function lowerHeaders(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function bodyOf(request: FastifyRequest): {
  body: Record<string, unknown>;
  bodyStream?: Readable;
  invalidJson: boolean;
} {
  const raw = request.body as unknown;
  if (raw === INVALID_JSON) return { body: {}, invalidJson: true };
  if (raw instanceof Readable) return { body: {}, bodyStream: raw, invalidJson: false };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { body: {}, invalidJson: false };
  return { body: raw as Record<string, unknown>, invalidJson: false };
}

/**
 * The REST API's HTTP edge: `/wp-json/...` and `?rest_route=...` (on `/` and `/index.php`)
 * reach the same RestServer. POST may carry `X-HTTP-Method-Override` or `?_method=`; HEAD is
 * served by GET. The caller is authenticated here, once per HTTP request.
 */
export function registerRestEdge(
  app: FastifyInstance,
  server: RestServer,
  auth: SiteAuthenticator,
  renderHtml: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, path: string) => {
    const query = { ...(request.query as Record<string, unknown>) };
    delete query.rest_route;
    let method = request.method.toUpperCase();
    if (method === 'POST') {
      const override =
        (typeof query._method === 'string' ? query._method : undefined) ??
        (request.headers['x-http-method-override'] as string | undefined);
      if (override && OVERRIDABLE.has(override.toUpperCase())) method = override.toUpperCase();
    }
    const headers = lowerHeaders(request);
    // Anonymous reads are served from prepared responses while the site content is unchanged.
    const kit = (app as FastifyInstance & { site?: SiteKit }).site;
    let cached: { cache: SiteResponseCache; state: SiteContentState; key: string } | undefined;
    if (kit && isAnonymousRead(request.method, method, headers, query, request)) {
      const cache = siteResponseCacheOf(server, kit.db, { logger: kit.logger });
      const state = await cache.state();
      const now = kit.clock();
      if (SiteResponseCache.due(state, now)) {
        // A scheduled item came due: publish it (its writer bumps the version) and render afresh.
        for (const type of await dueScheduledTypes(kit.db, new Date(now)))
          await publishDuePosts(kit.db, type, new Date(now));
      } else {
        const key = anonymousResponseKey(normalizePath(path), query);
        const kept = cache.get(key, state);
        if (kept) return sendPrepared(reply, server, kept);
        cached = { cache, state, key };
      }
    }
    const { body, bodyStream, invalidJson } = bodyOf(request);
    const nonce =
      headers['x-wp-nonce'] ?? (typeof query._wpnonce === 'string' ? query._wpnonce : undefined);
    const who = await auth.authenticate({
      authorization: headers.authorization,
      cookieSecret: request.cookies?.[SESSION_COOKIE],
      nonce,
      ip: request.ip,
    });
    const restRequest = new RestRequest({
      method,
      path: normalizePath(path),
      query,
      body,
      headers,
      bodyStream,
      user: who.user,
      ip: request.ip,
    });
    const error =
      who.error ??
      (invalidJson
        ? new RestError('rest_invalid_json', 'Invalid JSON body passed.', 400)
        : undefined);
    const result = await server.serve(restRequest, error);
    const prepared: PreparedResponse = {
      status: result.status,
      headers: result.headers,
      body: JSON.stringify(result.body),
    };
    if (
      cached &&
      !who.user &&
      !who.error &&
      keepable(result, prepared.body, '_envelope' in query)
    ) {
      cached.cache.set(cached.key, cached.state, prepared);
    }
    if (who.session && who.via === 'cookie') {
      reply.header('x-wp-nonce', auth.nonces.create(who.session.user.id, who.session.sessionId));
    }
    return sendPrepared(reply, server, prepared);
  };

  app.route({
    method: [...REST_METHODS],
    url: '/wp-json',
    handler: (request, reply) => handle(request, reply, '/'),
  });
  app.route({
    method: [...REST_METHODS],
    url: '/wp-json/*',
    handler: (request, reply) =>
      handle(request, reply, `/${(request.params as { '*': string })['*']}`),
  });
  const restRouteOr = (request: FastifyRequest, reply: FastifyReply) => {
    const route = (request.query as Record<string, unknown>).rest_route;
    if (typeof route === 'string') return handle(request, reply, route);
    if (request.method === 'GET' || request.method === 'HEAD') return renderHtml(request, reply);
    return reply.code(405).send();
  };
  app.route({ method: [...REST_METHODS], url: '/', handler: restRouteOr });
  app.route({ method: [...REST_METHODS], url: '/index.php', handler: restRouteOr });
}

/** Sends a REST response with the edge's standard headers and the endpoint's own. */
function sendPrepared(reply: FastifyReply, server: RestServer, response: PreparedResponse) {
  reply.header('content-type', 'application/json; charset=UTF-8');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-robots-tag', 'noindex');
  reply.header('link', `<${server.urls.restRoot}>; rel="https://api.w.org/"`);
  reply.header('access-control-expose-headers', 'X-WP-Total, X-WP-TotalPages, Link');
  reply.header(
    'access-control-allow-headers',
    'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type',
  );
  for (const [k, v] of Object.entries(response.headers)) {
    if (k.toLowerCase() === 'link') reply.header('link', [reply.getHeader('link') as string, v]);
    else reply.header(k, v);
  }
  return reply.code(response.status).send(response.body);
}

/**
 * A read whose answer depends only on the path, the query and the site's content: GET or HEAD
 * (not overridden), and no credentials of any kind (Basic, session cookie, nonce), so that
 * every such caller has the same capabilities (none: `context=edit` is refused).
 */
function isAnonymousRead(
  httpMethod: string,
  method: string,
  headers: Record<string, string>,
  query: Record<string, unknown>,
  request: FastifyRequest,
): boolean {
  if (httpMethod !== 'GET' && httpMethod !== 'HEAD') return false;
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (headers.authorization !== undefined || headers['x-wp-nonce'] !== undefined) return false;
  if (query._wpnonce !== undefined || query.password !== undefined) return false;
  return request.cookies?.[SESSION_COOKIE] === undefined;
}

/**
 * Only successful answers are kept (an `_envelope` one by its inner status), and never one
 * showing a password-protected item (its answer depends on a password, WordPress keeps those
 * out of caches too).
 */
function keepable(result: RestReply, text: string, enveloped: boolean): boolean {
  if (result.status !== 200) return false;
  if (enveloped && (result.body as { status?: unknown }).status !== 200) return false;
  return !text.includes('"protected":true');
}

/** `/wp/v2/posts/` and `wp/v2/posts` both name `/wp/v2/posts`. */
function normalizePath(path: string): string {
  let p = path.startsWith('/') ? path : `/${path}`;
  if (p.length > 1) p = p.replace(/\/+$/, '');
  return p || '/';
}
