import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from '@fastify/type-provider-zod';
import { AccountError } from '../accounts/account-error.js';
import type { AuthenticationResult, Issuer } from '../accounts/credentials.js';
import type { Config } from '../config/config.js';
import type { OperationCost } from '../quota/quota-costs.js';
import type { BucketRef, Clock, QuotaStore } from '../quota/quota-store.js';
import { midnightOfServiceDay, serviceDayOf } from '../time/service-day.js';
import { ApiError, isDatabaseUnavailable } from './api-error.js';
import { anonymousCaller, type Caller, type CredentialCache } from './caller.js';
import { isCrossOrigin } from './cors.js';
import {
  dataEnvelope,
  dataEnvelopeBytes,
  dataEnvelopeHead,
  dataEnvelopeOf,
  DATA_ENVELOPE_TAIL,
  errorEnvelopeOf,
  errorEnvelopeSchema,
  QUOTA_HEADERS,
  type ApiMeta,
  type ErrorEnvelope,
} from './envelope.js';
import { RequestQuota, type RequestQuotaRules } from './request-quota.js';
import {
  cacheControl,
  CACHE_SECONDS,
  envelopeData,
  etagMatches,
  NOT_MODIFIED_COST,
  strongEtag,
  type CacheClass,
} from './http-caching.js';
import type { z } from 'zod';

/**
 * The API edge: the one place that decides who calls an /api/v2 operation and what it may do.
 * Every v2 route declares, in its `config.v2`, its OpenAPI identity, its scope and its cost; the
 * hooks here then, for every request:
 *
 * - onRequest: authenticate: `Authorization: Bearer` or else the `token` cookie (bearer wins when
 *   both come); a credential that is sent and does not hold is 401 invalid_api_key (never quietly
 *   anonymous), a banned user's is 403 account_banned; no credential = anonymous.
 * - preHandler (after validation): check the scope (anonymous: 401 when the operation needs a
 *   credential; a credential without it: 403 insufficient_scope naming it), and charge the
 *   declared cost, or reserve a full page for per-record costs.
 * - preSerialization: settle per-record costs from the answer's `items`, wrap the handler's data
 *   in `{meta, data}`.
 * - onSend: `x-api-remain`, `x-api-cost` and `Retry-After` on every v2 response, errors, 304s
 *   and binary bodies included.
 * - answerError (the error handler): give back what a failed request held, answer `{meta, error}`.
 *
 * A route under /api/v2 without `config.v2` is refused when it is registered, so no operation
 * can forget its scope, its cost or its meta.
 */

/** How an operation is charged (token amounts come from quota-costs.ts). */
export type OperationCostRule =
  /** The same cost for every request, charged before the handler runs. */
  | { fixed: OperationCost }
  /**
   * Base + per record: reserved before the handler for `reserveRecords(request)` records (a full
   * page at the effective limit), settled to the records answered: `records(data)`, by default
   * `data.items.length` (or the `records` given to sendDataJson).
   */
  | {
      perRecord: OperationCost;
      reserveRecords: (request: FastifyRequest) => number;
      records?: (data: unknown) => number;
    }
  /**
   * The handler decides (its cost depends on work it finds out about): it must call
   * `quotaOf(request).charge(n)` before answering 200 (checked), and may `settle` it.
   */
  | { inHandler: true }
  /** Free (no charge); the meta still reports the caller's level. */
  | { free: true };

export interface V2OperationConfig {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** The scope a caller needs; absent = none (account operations that check the caller themselves). */
  scope?: string;
  /**
   * Who may call: `optional` (default: anonymous callers too, with the anonymous scopes),
   * `required` (a credential), `none` (the request's credentials are not read at all: sign-in and
   * registration, so that a stale cookie cannot block signing in again).
   */
  auth?: 'optional' | 'required' | 'none';
  /** Only credentials of these issuers (others: 403 forbidden). Default any. */
  issuers?: readonly Issuer[];
  cost: OperationCostRule;
  /**
   * Whether the handler answers the data alone and the edge wraps it in `{meta, data}` (the 200
   * schema given is the data's). Default true.
   */
  envelope?: boolean;
  /** Extra error statuses to document (400, 401, 403, 404, 429, 500 and 503 always are). */
  errorStatuses?: readonly number[];
  /**
   * A read whose 200 answers carry a strong ETag (of their data, unless the handler set one),
   * honour If-None-Match with 304, and carry Cache-Control with this class's max-age
   * (http-caching.ts). Absent: none of these.
   */
  cache?: CacheClass;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The v2 operation this route is (see v2-edge.ts). */
    v2?: V2OperationConfig;
  }
  interface FastifyInstance {
    /** The edge's options (set once by the plugin; children inherit it). */
    emutrackEdge: V2EdgeOptions;
    /** Every v2 operation's route as registered (the route table; tests enumerate it). */
    emutrackV2Routes: readonly V2Route[];
  }
  interface FastifyRequest {
    /** Who calls: set by the API edge; read it through callerOf(request). */
    emutrackCaller: Caller | null;
    /** What the request is charged; read it through quotaOf(request). */
    emutrackQuota: RequestQuota | null;
  }
}

export interface V2EdgeOptions {
  config: Config;
  store: QuotaStore;
  credentials: CredentialCache;
  clock: Clock;
}

/** One v2 operation's route: method, URL pattern and its config. */
export interface V2Route {
  method: string;
  url: string;
  v2: V2OperationConfig;
}

const V2_PREFIX = '/api/v2/';
/** Retry-After of a 503 `unavailable`: about how long a database restart or failover takes. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Whether a request is under /api/v2 (the envelope and quota apply), the OpenAPI document aside. */
export function isV2(request: FastifyRequest): boolean {
  const { url } = request;
  if (url.startsWith('/api/v2/openapi.json')) return false;
  return url.startsWith(V2_PREFIX) || url === '/api/v2' || url.startsWith('/api/v2?');
}

/** The client address (IPv4-mapped IPv6 written as IPv4). */
export function clientAddress(request: FastifyRequest): string {
  const ip = request.ip;
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** The `Authorization: Bearer` token, '' for another scheme or an empty one, undefined when absent. */
function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * The credential a request sends (bearer wins over the `token` cookie), or undefined. The cookie
 * of a request from a page of another origin is never read (cors.ts): cross-origin is bearer only.
 */
function secretOf(
  request: FastifyRequest,
): { secret: string; via: 'bearer' | 'cookie' } | undefined {
  const bearer = bearerOf(request);
  if (bearer !== undefined) return { secret: bearer, via: 'bearer' };
  const cookie = request.cookies?.token;
  if (cookie === undefined || isCrossOrigin(request, optionsOf(request).config)) return undefined;
  return { secret: cookie, via: 'cookie' };
}

function credentialCaller(
  request: FastifyRequest,
  result: Extract<AuthenticationResult, { ok: true }>,
  via: 'bearer' | 'cookie',
): Caller {
  return {
    kind: 'credential',
    address: clientAddress(request),
    user: result.user,
    credential: result.credential,
    scopes: result.credential.scopes,
    via,
  };
}

function optionsOf(request: FastifyRequest): V2EdgeOptions {
  const options = request.server.emutrackEdge;
  if (!options) throw new Error('the v2 edge plugin is not registered on this app');
  return options;
}

/** Who calls this request (anonymous until the edge has authenticated it). */
export function callerOf(request: FastifyRequest): Caller {
  return (request.emutrackCaller ??= anonymousCaller(clientAddress(request)));
}

/** The end of the current service day (the daily limits' period), for the day it was worked out. */
let periodEnd = { day: Number.NaN, resetAtMs: 0 };

function bucketOf(caller: Caller, config: Config, clock: Clock): BucketRef {
  if (caller.kind === 'anonymous') {
    return { key: `anon:${caller.address}`, capacity: config.QUOTA_ANONYMOUS_CAPACITY };
  }
  const day = serviceDayOf(clock() / 1000);
  if (day !== periodEnd.day) {
    // Worked out once a day: the time-zone arithmetic costs more than the rest of the request's edge.
    periodEnd = { day, resetAtMs: midnightOfServiceDay(day + 1) * 1000 };
  }
  // The same bucket for every request of a credential on a day (the credential object is the
  // credential cache's, until it refreshes): made once, not per request.
  const made = credentialBuckets.get(caller.credential);
  if (made && made.day === day && made.capacity === config.QUOTA_USER_CAPACITY) return made.bucket;
  const bucket: BucketRef = {
    key: `user:${caller.user.userId}`,
    capacity: config.QUOTA_USER_CAPACITY,
    daily: {
      key: `daily:${caller.credential.credentialId}:${day}`,
      limit: caller.credential.dailyTokenLimit,
      resetAtMs: periodEnd.resetAtMs,
    },
  };
  credentialBuckets.set(caller.credential, { day, capacity: config.QUOTA_USER_CAPACITY, bucket });
  return bucket;
}

const credentialBuckets = new WeakMap<
  object,
  { day: number; capacity: number; bucket: BucketRef }
>();

/** How a request of this caller is charged (config: QUOTA_MIN_COST, QUOTA_OVER_CAPACITY). */
function quotaRules(request: FastifyRequest, caller: Caller, config: Config): RequestQuotaRules {
  const free = request.routeOptions.config.v2?.cost;
  return {
    minCost: free && 'free' in free ? 0 : config.QUOTA_MIN_COST,
    overCapacity: config.QUOTA_OVER_CAPACITY,
    largerBucketHint: (cost) => {
      if (cost > config.QUOTA_USER_CAPACITY)
        return `no caller's bucket on this server holds that much (a signed-in caller's holds ${config.QUOTA_USER_CAPACITY})`;
      return caller.kind === 'anonymous'
        ? `sign in or send an API key (Authorization: Bearer <key>): a signed-in caller's bucket holds ${config.QUOTA_USER_CAPACITY}`
        : `use a key whose dailyTokenLimit is at least ${cost}`;
    },
  };
}

/** What this request is charged (made on first use, for the caller known by then). */
export function quotaOf(request: FastifyRequest): RequestQuota {
  if (!request.emutrackQuota) {
    const { store, config, clock } = optionsOf(request);
    const caller = callerOf(request);
    request.emutrackQuota = new RequestQuota(
      store,
      bucketOf(caller, config, clock),
      quotaRules(request, caller, config),
    );
  }
  return request.emutrackQuota;
}

/** reserveRecords for operations paged by a `limit` query parameter (already validated). */
export function queryLimit(request: FastifyRequest): number {
  const limit = (request.query as { limit?: unknown } | undefined)?.limit;
  return typeof limit === 'number' ? limit : 0;
}

function defaultRecords(data: unknown): number {
  const items = (data as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.length : 0;
}

function authenticationError(result: Exclude<AuthenticationResult, { ok: true }>): ApiError {
  const credential = result.credential;
  switch (result.reason) {
    case 'banned':
      return new ApiError('account_banned', 'the account is banned');
    case 'revoked':
      return new ApiError(
        'invalid_api_key',
        `the credential ${credential?.maskedApiKey} was revoked`,
      );
    case 'expired':
      return new ApiError(
        'invalid_api_key',
        `the credential ${credential?.maskedApiKey} expired at ${credential?.expiresAt.toISOString()}`,
      );
    case 'not_active':
      return new ApiError(
        'invalid_api_key',
        `the credential ${credential?.maskedApiKey} is not active before ${credential?.activeFrom.toISOString()}`,
      );
    default:
      return new ApiError('invalid_api_key', 'the credential is not valid');
  }
}

/** Sets x-api-remain, x-api-cost and, when throttled, Retry-After. */
function setQuotaHeaders(reply: FastifyReply, meta: ApiMeta): void {
  reply.header(QUOTA_HEADERS.remain, meta.remain);
  reply.header(QUOTA_HEADERS.cost, meta.cost);
  if (meta.retryAfter !== undefined) reply.header(QUOTA_HEADERS.retryAfter, meta.retryAfter);
}

async function settleRecords(request: FastifyRequest, records: number): Promise<void> {
  const rule = request.routeOptions.config.v2?.cost;
  if (rule && 'perRecord' in rule) await quotaOf(request).settle(rule.perRecord.of(records));
}

/**
 * Answers an operation's data already written as JSON (the value of `data`), e.g. a pre-rendered
 * or cached page, as text or as UTF-8 bytes: settles a per-record cost for `records` records, and
 * sends the success envelope around it. The data must match the route's 200 data schema. Bytes are
 * sent as one buffer copied from the page's own (no text is encoded per request).
 */
export async function sendDataJson(
  request: FastifyRequest,
  reply: FastifyReply,
  data: string | Buffer,
  options: {
    records?: number;
    /** The data's strong entity tag, when known (a kept page's): not digested again. */
    etag?: string;
  } = {},
): Promise<FastifyReply> {
  if (options.etag) reply.header('etag', options.etag);
  if (options.records !== undefined) await settleRecords(request, options.records);
  const meta = await quotaOf(request).meta();
  reply.header('content-type', 'application/json; charset=utf-8');
  if (typeof data === 'string') return reply.send(dataEnvelopeJson(meta, data));
  return reply.send(dataEnvelopeBytes(meta, data));
}

/** `{"ok":true,"meta":...,"data":<dataJson>,"error":""}`: the success envelope around data already written as JSON. */
export function dataEnvelopeJson(meta: ApiMeta, dataJson: string): string {
  return `${dataEnvelopeHead(meta)}${dataJson}${DATA_ENVELOPE_TAIL}`;
}

/** The accounts domain's refusals as API errors (a scope beyond the user's is a bad parameter). */
function accountApiError(error: AccountError): ApiError {
  switch (error.code) {
    case 'username_taken':
      return new ApiError('username_taken', error.message);
    case 'user_not_found':
    case 'credential_not_found':
      return new ApiError('not_found', error.message);
    default:
      return new ApiError('invalid_param', error.message);
  }
}

/** "date: ...; limit: ..." from a validation failure: every message names its parameter. */
function validationMessage(error: FastifyError): string {
  const parts = (error.validation ?? []).map((v) => {
    const name = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    return name && !v.message?.startsWith(name) ? `${name}: ${v.message}` : (v.message ?? '');
  });
  return parts.join('; ') || error.message;
}

/** What a failure is reported as; unexpected errors are logged here and told as `internal`. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AccountError) return accountApiError(error);
  if (hasZodFastifySchemaValidationErrors(error) || error.validation) {
    return new ApiError('invalid_param', validationMessage(error));
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unreachable');
    return new ApiError(
      'unavailable',
      'the database cannot be reached; try again shortly',
      UNAVAILABLE_RETRY_AFTER_SECONDS,
    );
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return new ApiError('invalid_param', 'the URL is malformed (bad percent-encoding)');
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new ApiError('invalid_param', 'a path parameter is longer than 100 characters');
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    return new ApiError('payload_too_large', 'the request body is larger than 16 KiB');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own client errors (bad URL, body on a GET, bad JSON, ...): their messages are safe to show.
    return new ApiError('invalid_param', error.message);
  }
  request.log.error({ err: error }, 'request failed');
  return new ApiError('internal', `internal error (request ${request.id})`);
}

/**
 * The one place failures are answered: under /api/v2 the envelope with the quota (what the
 * request held is given back unless settled); elsewhere `{error}`. 401 and insufficient_scope
 * carry WWW-Authenticate (RFC 6750).
 */
export async function answerError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const apiError = toApiError(error, request);
  if (apiError.statusCode === 401) {
    reply.header('www-authenticate', 'Bearer realm="emutrack", error="invalid_token"');
  } else if (apiError.code === 'insufficient_scope') {
    const scope = request.routeOptions.config.v2?.scope ?? '';
    reply.header(
      'www-authenticate',
      `Bearer realm="emutrack", error="insufficient_scope", scope="${scope}"`,
    );
  }
  if (apiError.code === 'unavailable' && apiError.retryAfter !== undefined) {
    reply.header('retry-after', apiError.retryAfter);
  }
  const error_ = { code: apiError.code, message: apiError.message };
  if (!isV2(request)) return reply.code(apiError.statusCode).send({ error: error_ });
  const quota = quotaOf(request);
  // Every request costs at least QUOTA_MIN_COST, failed or not; the server's own failures nothing.
  await quota.release({ serverFault: apiError.statusCode >= 500 });
  let meta = await quota.meta();
  // A refusal decided outside the quota (sign-in attempts) still says how long to wait.
  if (apiError.code === 'rate_limited' && apiError.retryAfter !== undefined) {
    meta = { ...meta, retryAfter: Math.max(meta.retryAfter ?? 0, apiError.retryAfter) };
  }
  setQuotaHeaders(reply, meta);
  const body: ErrorEnvelope = errorEnvelopeOf(meta, error_);
  return reply.code(apiError.statusCode).send(body);
}

const ALWAYS_DOCUMENTED = [400, 401, 403, 404, 429, 500, 503];
const wrapped = new WeakSet<object>();

function securityOf(v2: V2OperationConfig): Array<Record<string, string[]>> {
  const scopes = v2.scope ? [v2.scope] : [];
  const schemes: Array<Record<string, string[]>> = [{ bearerAuth: scopes }, { cookieAuth: scopes }];
  switch (v2.auth ?? 'optional') {
    case 'none':
      return [{}];
    case 'required':
      return schemes;
    default:
      return [{}, ...schemes];
  }
}

/** Completes a v2 route's schema from its config: OpenAPI identity, security, envelopes. */
function completeSchema(route: RouteOptions): void {
  const v2 = route.config?.v2;
  if (!v2) {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    if ((route.url.startsWith(V2_PREFIX) || route.url === '/api/v2') && !hidden) {
      throw new Error(
        `route ${String(route.method)} ${route.url} is under /api/v2 but declares no config.v2 (scope and cost): see src/api/v2-edge.ts`,
      );
    }
    return;
  }
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  if (wrapped.has(schema)) return;
  wrapped.add(schema);
  Object.assign(schema, {
    operationId: v2.operationId,
    tags: [v2.tag],
    summary: v2.summary,
    ...(v2.description ? { description: v2.description } : {}),
    security: securityOf(v2),
    ...(v2.scope ? { 'x-scope': v2.scope } : {}),
    ...(v2.cache ? { 'x-cache': v2.cache } : {}),
  });
  const response = { ...((schema.response ?? {}) as Record<string, z.ZodType>) };
  if (response[200] && v2.envelope !== false) response[200] = dataEnvelope(response[200]);
  for (const status of [...ALWAYS_DOCUMENTED, ...(v2.errorStatuses ?? [])]) {
    response[status] ??= errorEnvelopeSchema;
  }
  schema.response = response;
}

async function edge(app: FastifyInstance, options: V2EdgeOptions): Promise<void> {
  app.decorate('emutrackEdge', options);
  const { credentials } = options;
  app.decorateRequest('emutrackCaller', null);
  app.decorateRequest('emutrackQuota', null);

  const v2Routes: V2Route[] = [];
  app.decorate('emutrackV2Routes', v2Routes);
  app.addHook('onRoute', (route) => {
    completeSchema(route);
    const v2 = route.config?.v2;
    for (const method of [route.method].flat()) {
      if (v2 && method !== 'HEAD') v2Routes.push({ method, url: route.url, v2 });
    }
  });

  // A callback, not a promise: most requests carry no credential and leave at once.
  app.addHook('onRequest', (request, reply, done) => {
    if (!isV2(request)) return done();
    const v2 = request.routeOptions.config.v2;
    if (v2?.auth === 'none') return done();
    const sent = secretOf(request);
    if (!sent) return done();
    credentials.authenticate(sent.secret, request.raw.socket).then((result) => {
      if (!result.ok) return done(authenticationError(result));
      request.emutrackCaller = credentialCaller(request, result, sent.via);
      done();
    }, done);
  });

  app.addHook('preHandler', async (request) => {
    const v2 = request.routeOptions.config.v2;
    if (!v2) return;
    const caller = callerOf(request);
    const needsCredential = v2.auth === 'required';
    if (caller.kind === 'anonymous') {
      if (needsCredential || (v2.scope !== undefined && !caller.scopes.includes(v2.scope))) {
        throw new ApiError(
          'invalid_api_key',
          `${v2.operationId} needs a credential: send Authorization: Bearer <key> or sign in`,
        );
      }
    } else {
      if (v2.scope !== undefined && !caller.scopes.includes(v2.scope)) {
        throw new ApiError(
          'insufficient_scope',
          `this credential lacks the scope ${v2.scope}, which ${v2.operationId} needs`,
        );
      }
      if (v2.issuers && !v2.issuers.includes(caller.credential.issuer)) {
        throw new ApiError(
          'forbidden',
          `${v2.operationId} is open to ${v2.issuers.join(' and ')} credentials only, not ${caller.credential.issuer}`,
        );
      }
    }
    const rule = v2.cost;
    if ('fixed' in rule) await quotaOf(request).charge(rule.fixed.of());
    else if ('perRecord' in rule)
      await quotaOf(request).charge(rule.perRecord.of(rule.reserveRecords(request)), {
        reservation: true,
      });
  });

  app.addHook('preSerialization', async (request, reply, payload) => {
    const v2 = request.routeOptions.config.v2;
    if (!v2 || v2.envelope === false || reply.statusCode >= 300) return payload;
    const quota = quotaOf(request);
    const rule = v2.cost;
    if ('perRecord' in rule)
      await quota.settle(rule.perRecord.of((rule.records ?? defaultRecords)(payload)));
    if ('inHandler' in rule && !quota.charged) {
      throw new Error(`${v2.operationId} answered without charging (cost: inHandler)`);
    }
    return dataEnvelopeOf(await quota.meta(), payload);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!isV2(request) || reply.hasHeader(QUOTA_HEADERS.remain)) return done(null, payload);
    const cache = request.routeOptions.config.v2?.cache;
    if (cache && request.method === 'GET' && reply.statusCode === 200) {
      const quota = quotaOf(request);
      answerConditionally(request, reply, payload, cache)
        .then(async (sent) => {
          setQuotaHeaders(reply, quota.knownMeta ?? (await quota.meta()));
          return sent;
        })
        .then((sent) => done(null, sent), done);
      return;
    }
    const quota = quotaOf(request);
    const known = quota.knownMeta;
    if (known) {
      setQuotaHeaders(reply, known);
      return done(null, payload);
    }
    quota.meta().then((meta) => {
      setQuotaHeaders(reply, meta);
      done(null, payload);
    }, done);
  });
}

/**
 * A cached read's 200 (http-caching.ts): its ETag (the handler's, or a digest of the data sent)
 * and Cache-Control; when If-None-Match names the tag, a 304 instead, costing at most
 * NOT_MODIFIED_COST (what the request held beyond is given back). Returns the payload to send.
 */
async function answerConditionally(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  cache: CacheClass,
): Promise<unknown> {
  let etag = reply.getHeader('etag') as string | undefined;
  if (etag === undefined) {
    const data = envelopeData(payload);
    if (data !== undefined) etag = strongEtag(data);
  }
  if (!reply.hasHeader('cache-control'))
    reply.header(
      'cache-control',
      cacheControl(CACHE_SECONDS[cache], callerOf(request).kind === 'anonymous'),
    );
  if (etag === undefined) return payload;
  reply.header('etag', etag);
  if (!etagMatches(request.headers['if-none-match'], etag)) return payload;
  await quotaOf(request).reduceTo(NOT_MODIFIED_COST);
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  reply.removeHeader('content-disposition');
  return '';
}

/** The API edge as a plugin (hooks on the whole app). Register it before any v2 route. */
export const v2Edge = fp(edge, { name: 'emutrack-v2-edge', fastify: '5.x' });
