import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preSerializationAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from '@fastify/type-provider-zod';
import { AccountError } from '../../domain/accounts/account-error.js';
import { ApiError, isDatabaseUnavailable } from './api-error.js';
import {
  dataEnvelopeBytes,
  dataEnvelopeHead,
  dataEnvelopeOf,
  dataEnvelopeOfPieces,
  DATA_ENVELOPE_TAIL,
  errorEnvelopeOf,
  QUOTA_HEADERS,
  type ApiMeta,
  type ErrorEnvelope,
} from './envelope.js';
import {
  cacheControl,
  CACHE_SECONDS,
  envelopeData,
  etagMatches,
  NOT_MODIFIED_COST,
  strongEtag,
  type CacheClass,
} from './http-caching.js';
import { callerOf, edgeOf, identifyCaller, quotaOf } from './v2-caller-quota.js';
import { prependRouteHook } from './v2-operations.js';

/**
 * How a v2 operation's answers are sent: attached to every route that declares `config.v2`
 * (as v2-caller-quota.ts is), with the error and not-found answers of the /api/v2 scope:
 *
 * - preSerialization: settle per-record costs from the answer's `items`, wrap the handler's data
 *   in `{meta, data}`.
 * - onSend: `x-api-remain`, `x-api-cost` and `Retry-After` on every answer, 304s and binary
 *   bodies included; a cached read's ETag and Cache-Control, and its 304.
 * - answerV2Error (the scope's error handler): give back what a failed request held, answer
 *   `{meta, error}` with the quota headers (answerError: the same for a v2 operation, `{error}`
 *   for any other route; answerFrameworkError: before routing, by URL).
 * - answerV2NotFound: an unknown path under /api/v2, in the envelope, charged the minimum to
 *   the caller its credential names.
 */

/** Retry-After of a 503 `unavailable`: about how long a database restart or failover takes. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

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
 * or cached page, as text, as UTF-8 bytes or as text pieces (utf8Concat): settles a per-record
 * cost for `records` records, and sends the success envelope around it. The data must match the
 * route's 200 data schema. Bytes are sent as one buffer copied from the page's own (no text is
 * encoded per request).
 */
export async function sendDataJson(
  request: FastifyRequest,
  reply: FastifyReply,
  data: string | Buffer | readonly string[],
  options: {
    records?: number;
    /** The data's strong entity tag, when known (a kept page's): not digested again. */
    etag?: string;
  } = {},
): Promise<FastifyReply> {
  if (options.etag) reply.header('etag', options.etag);
  if (options.records !== undefined) await settleRecords(request, options.records);
  const quota = quotaOf(request);
  const meta = await quota.meta();
  reply.header('content-type', 'application/json; charset=utf-8');
  if (typeof data === 'string') return reply.send(dataEnvelopeJson(meta, data));
  if (Buffer.isBuffer(data)) return reply.send(dataEnvelopeBytes(meta, data));
  return reply.send(dataEnvelopeOfPieces(meta, data));
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

/** Whether a URL is under /api/v2 (the OpenAPI document aside): for requests that found no route. */
function isV2Url(url: string): boolean {
  if (url.startsWith('/api/v2/openapi.json')) return false;
  return url.startsWith('/api/v2/') || url === '/api/v2' || url.startsWith('/api/v2?');
}

async function answer(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  enveloped: boolean,
): Promise<FastifyReply> {
  const apiError = toApiError(error, request);
  if (apiError.statusCode === 401) {
    reply.header('www-authenticate', 'Bearer realm="emutrack", error="invalid_token"');
  } else if (apiError.code === 'insufficient_scope') {
    const scope = request.routeOptions.config?.v2?.scope ?? '';
    reply.header(
      'www-authenticate',
      `Bearer realm="emutrack", error="insufficient_scope", scope="${scope}"`,
    );
  }
  if (apiError.code === 'unavailable' && apiError.retryAfter !== undefined) {
    reply.header('retry-after', apiError.retryAfter);
  }
  const error_ = { code: apiError.code, message: apiError.message };
  if (!enveloped) return reply.code(apiError.statusCode).send({ error: error_ });
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

/**
 * The one place failures are answered: a v2 operation's in the envelope with the quota (what the
 * request held is given back unless settled); any other route's as `{error}`. 401 and
 * insufficient_scope carry WWW-Authenticate (RFC 6750).
 */
export function answerError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  return answer(error, request, reply, request.routeOptions.config?.v2 !== undefined);
}

/** The /api/v2 scope's error handler: every request there is a v2 one (its 404s included). */
export function answerV2Error(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  return answer(error, request, reply, true);
}

/**
 * A failure before routing (Fastify's frameworkErrors: a malformed URL, an over-long path
 * parameter): there is no route to go by, so the URL decides whether it is a v2 request.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  return answer(error, request, reply, isV2Url(request.url));
}

/** "no operation GET /api/v2/x" (the path cut to 200 characters, no query). */
export function notFoundError(request: FastifyRequest): { code: string; message: string } {
  const path = request.url.split('?')[0]!.slice(0, 200);
  return { code: 'not_found', message: `no operation ${request.method} ${path}` };
}

/**
 * The /api/v2 scope's not-found handler: the envelope, with the quota of the caller its
 * credential names (a credential that does not hold is refused first, as on any operation).
 */
export async function answerV2NotFound(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  await identifyCaller(request, edgeOf(request));
  const quota = quotaOf(request);
  await quota.release(); // an unknown operation costs the minimum too (QUOTA_MIN_COST)
  const meta = await quota.meta();
  setQuotaHeaders(reply, meta);
  return reply.code(404).send(errorEnvelopeOf(meta, notFoundError(request)));
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

function defaultRecords(data: unknown): number {
  const items = (data as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.length : 0;
}

const wrapData: preSerializationAsyncHookHandler<unknown> = async (request, reply, payload) => {
  const v2 = request.routeOptions.config.v2!;
  if (v2.envelope === false || reply.statusCode >= 300) return payload;
  const quota = quotaOf(request);
  const rule = v2.cost;
  if ('perRecord' in rule)
    await quota.settle(rule.perRecord.of((rule.records ?? defaultRecords)(payload)));
  if ('inHandler' in rule && !quota.charged) {
    throw new Error(`${v2.operationId} answered without charging (cost: inHandler)`);
  }
  return dataEnvelopeOf(await quota.meta(), payload);
};

const sendQuotaHeaders: onSendHookHandler = (request, reply, payload, done) => {
  if (reply.hasHeader(QUOTA_HEADERS.remain)) return done(null, payload);
  const quota = quotaOf(request);
  const cache = request.routeOptions.config.v2!.cache;
  if (cache && request.method === 'GET' && reply.statusCode === 200) {
    answerConditionally(request, reply, payload, cache)
      .then(async (sent) => {
        setQuotaHeaders(reply, quota.knownMeta ?? (await quota.meta()));
        return sent;
      })
      .then((sent) => done(null, sent), done);
    return;
  }
  const known = quota.knownMeta;
  if (known) {
    setQuotaHeaders(reply, known);
    return done(null, payload);
  }
  quota.meta().then((meta) => {
    setQuotaHeaders(reply, meta);
    done(null, payload);
  }, done);
};

async function sending(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (!route.config?.v2) return;
    prependRouteHook(route, 'preSerialization', wrapData);
    prependRouteHook(route, 'onSend', sendQuotaHeaders);
  });
}

/** Sending and errors, as a plugin (its error and not-found answers are set by the scope). */
export const v2Sending = fp(sending, { name: 'emutrack-v2-sending', fastify: '5.x' });
