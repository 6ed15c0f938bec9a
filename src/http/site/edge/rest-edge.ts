import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SiteAuthenticator } from '../auth/site-authenticator.js';
import { SESSION_COOKIE } from '../auth/site-authenticator.js';
import { RestError } from '../rest/rest-error.js';
import { RestRequest } from '../rest/rest-request.js';
import type { RestReply, RestServer } from '../rest/rest-server.js';
import {
  anonymousResponseKey,
  SiteResponseCache,
  type PreparedResponse,
} from '../cache/site-response-cache.js';
import type { SiteContentState } from '../cache/site-content-version.js';
import type { ScheduledPublisher } from '../../../domain/content/scheduled-publishing.js';

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

/** Where anonymous reads are answered from prepared responses (absent: every read renders). */
export interface RestEdgeResponses {
  cache: SiteResponseCache;
  /** The scheduled publishing job: run at once when the state read shows an item due. */
  publisher: ScheduledPublisher;
  /** Milliseconds since the epoch. */
  clock: () => number;
}

/**
 * The REST API's HTTP edge: `/wp-json/...` and `?rest_route=...` (on `/` and `/index.php`)
 * reach the same RestServer. POST may carry `X-HTTP-Method-Override` or `?_method=`; HEAD is
 * served by GET. The caller is authenticated here, once per HTTP request.
 *
 * An anonymous read first reads the site content state (one coalesced query, see
 * SiteContentVersionReader) and, when a response prepared under that state is kept, sends it
 * as it is: no query copy, no header copy, no authentication, no dispatch.
 */
export function registerRestEdge(
  app: FastifyInstance,
  server: RestServer,
  auth: SiteAuthenticator,
  renderHtml: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  responses?: RestEdgeResponses,
): void {
  const edgeHeaders = standardHeaders(server);

  const handle = async (request: FastifyRequest, reply: FastifyReply, rawPath: string) => {
    const path = normalizePath(rawPath);
    const query = request.query as Record<string, unknown>;
    let keep: Keep | undefined;
    if (responses && isAnonymousRead(request, query)) {
      const { cache, publisher, clock } = responses;
      const key = anonymousResponseKey(path, query);
      const state = await cache.state();
      const now = clock();
      if (SiteResponseCache.due(state, now)) {
        // A scheduled item came due (perhaps scheduled by another process): the scheduled job
        // publishes it (its write moves the version) and the answer is rendered afresh.
        await publisher.catchUp(state.nextPublishMs);
      } else {
        const kept = cache.get(key, state);
        if (kept) return reply.code(kept.status).headers(kept.sendHeaders).send(kept.body);
        keep = { key, state };
      }
    }
    return render(request, reply, path, query, keep);
  };

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    parsedQuery: Record<string, unknown>,
    keep: Keep | undefined,
  ) => {
    // `rest_route` stays among the query parameters, as in WordPress's $_GET: a list's Link
    // headers repeat it.
    const query = { ...parsedQuery };
    let method = request.method.toUpperCase();
    if (method === 'POST') {
      const override =
        (typeof query._method === 'string' ? query._method : undefined) ??
        (request.headers['x-http-method-override'] as string | undefined);
      if (override && OVERRIDABLE.has(override.toUpperCase())) method = override.toUpperCase();
    }
    const headers = lowerHeaders(request);
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
      path,
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
    const prepared = prepare(
      edgeHeaders,
      result.status,
      result.headers,
      JSON.stringify(result.body),
    );
    if (keep && !who.user && !who.error && keepable(result, prepared.body, '_envelope' in query)) {
      responses!.cache.set(keep.key, keep.state, prepared);
    }
    const retryAfter = who.error?.data.retry_after;
    if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
    if (who.session && who.via === 'cookie') {
      reply.header('x-wp-nonce', auth.nonces.create(who.session.user.id, who.session.sessionId));
    }
    return reply.code(prepared.status).headers(prepared.sendHeaders).send(prepared.body);
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

/** A response to keep once rendered: its key and the state it is rendered under. */
interface Keep {
  key: string;
  state: SiteContentState;
}

/** The headers every REST response carries (the endpoint's `Link` goes after the index's). */
function standardHeaders(server: RestServer): Record<string, string> {
  return {
    'content-type': 'application/json; charset=UTF-8',
    'x-content-type-options': 'nosniff',
    'x-robots-tag': 'noindex',
    link: `<${server.urls.restRoot}>; rel="https://api.w.org/"`,
    'access-control-expose-headers': 'X-WP-Total, X-WP-TotalPages, Link',
    'access-control-allow-headers':
      'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type',
  };
}

/**
 * A response as sent: the edge's headers with the endpoint's over them (its `Link` values
 * after the index's), merged once, so that a kept response is sent with one header call.
 */
function prepare(
  edgeHeaders: Record<string, string>,
  status: number,
  endpointHeaders: Record<string, string>,
  body: string,
): PreparedResponse {
  const sendHeaders: Record<string, string | string[]> = { ...edgeHeaders };
  for (const [name, value] of Object.entries(endpointHeaders)) {
    const k = name.toLowerCase();
    if (k === 'link') sendHeaders.link = [edgeHeaders.link!, value];
    else sendHeaders[k] = value;
  }
  return { status, headers: endpointHeaders, sendHeaders, body };
}

/**
 * A read whose answer depends only on the path, the query and the site's content: GET or HEAD
 * (never overridden: only POST is) with no credential that authenticates (no Authorization, no
 * nonce), so that every such caller has the same capabilities (none: `context=edit` is
 * refused). A session cookie without a nonce authenticates no one (WordPress's CSRF rule), so
 * it does not matter here. `password` unlocks protected items: such reads render afresh.
 */
function isAnonymousRead(request: FastifyRequest, query: Record<string, unknown>): boolean {
  const method = request.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const headers = request.headers;
  if (headers.authorization !== undefined || headers['x-wp-nonce'] !== undefined) return false;
  return query._wpnonce === undefined && query.password === undefined;
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
