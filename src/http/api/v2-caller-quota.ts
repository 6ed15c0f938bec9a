import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { AuthenticationResult } from '../../domain/accounts/credentials.js';
import type { Config } from '../../shared/config/config.js';
import type { BucketRef, Clock } from '../quota/quota-store.js';
import { addressLimitKey } from '../../shared/net/address-limit-key.js';
import { midnightOfServiceDay, serviceDayOf } from '../../shared/time/service-day.js';
import { ApiError } from './api-error.js';
import { anonymousCaller, type Caller } from './caller.js';
import { isCrossOrigin } from './cors.js';
import { RequestQuota, type RequestQuotaRules } from './request-quota.js';
import type { V2Edge } from './v2-edge.js';
import { prependRouteHook } from './v2-operations.js';

/**
 * Who calls a v2 operation and what it may spend. Attached to every route that declares
 * `config.v2` when it is registered (the way @fastify/rate-limit attaches its hooks), so routes
 * without it never pay for it:
 *
 * - onRequest: authenticate: `Authorization: Bearer` or else the `token` cookie (bearer wins when
 *   both come); a credential that is sent and does not hold is 401 invalid_api_key (never quietly
 *   anonymous), a banned user's is 403 account_banned; no credential = anonymous. Operations
 *   with `auth: 'none'` get no such hook.
 * - preHandler (after validation): check the scope (anonymous: 401 when the operation needs a
 *   credential; a credential without it: 403 insufficient_scope naming it), and charge the
 *   declared cost, or reserve a full page for per-record costs.
 *
 * What it keeps between requests (the daily period's end, each credential's bucket) lives in the
 * app's edge (CallerBuckets in V2Edge), made with the app and dropped with it.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls: set by the API edge; read it through callerOf(request). */
    emutrackCaller: Caller | null;
    /** What the request is charged; read it through quotaOf(request). */
    emutrackQuota: RequestQuota | null;
  }
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
  config: Config,
): { secret: string; via: 'bearer' | 'cookie' } | undefined {
  const bearer = bearerOf(request);
  if (bearer !== undefined) return { secret: bearer, via: 'bearer' };
  const cookie = request.cookies?.token;
  if (cookie === undefined || isCrossOrigin(request, config)) return undefined;
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

/** The edge of the app (or scope) that serves this request. */
export function edgeOf(request: FastifyRequest): V2Edge {
  const edge = request.server.emutrackEdge;
  if (!edge) throw new Error('the v2 edge plugin is not registered on this app');
  return edge;
}

/** Who calls this request (anonymous until the edge has authenticated it). */
export function callerOf(request: FastifyRequest): Caller {
  return (request.emutrackCaller ??= anonymousCaller(clientAddress(request)));
}

/**
 * The callers' buckets of one app. A credential's bucket is the same object for every request of
 * that credential on a service day (the credential object is the credential cache's, until it
 * refreshes), and the day's end is worked out once a day: the time-zone arithmetic costs more
 * than the rest of the request's edge.
 */
export class CallerBuckets {
  /** The end of the current service day (the daily limits' period), for the day it was worked out. */
  private periodEnd = { day: Number.NaN, resetAtMs: 0 };
  private readonly byCredential = new WeakMap<object, { day: number; bucket: BucketRef }>();

  constructor(
    private readonly config: Config,
    private readonly clock: Clock,
  ) {}

  of(caller: Caller): BucketRef {
    const { config } = this;
    if (caller.kind === 'anonymous') {
      // IPv6 callers by their /64: one subscriber's network, not one interface identifier.
      return {
        key: `anon:${addressLimitKey(caller.address)}`,
        capacity: config.QUOTA_ANONYMOUS_CAPACITY,
      };
    }
    const day = serviceDayOf(this.clock() / 1000);
    if (day !== this.periodEnd.day) {
      this.periodEnd = { day, resetAtMs: midnightOfServiceDay(day + 1) * 1000 };
    }
    const made = this.byCredential.get(caller.credential);
    if (made && made.day === day) return made.bucket;
    const bucket: BucketRef = {
      key: `user:${caller.user.userId}`,
      capacity: config.QUOTA_USER_CAPACITY,
      daily: {
        key: `daily:${caller.credential.credentialId}:${day}`,
        limit: caller.credential.dailyTokenLimit,
        resetAtMs: this.periodEnd.resetAtMs,
      },
    };
    this.byCredential.set(caller.credential, { day, bucket });
    return bucket;
  }
}

/** How a request of this caller is charged (config: QUOTA_MIN_COST, QUOTA_OVER_CAPACITY). */
function quotaRules(request: FastifyRequest, caller: Caller, config: Config): RequestQuotaRules {
  const free = request.routeOptions.config?.v2?.cost;
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
export function quotaOf(request: FastifyRequest, edge: V2Edge = edgeOf(request)): RequestQuota {
  if (!request.emutrackQuota) {
    const caller = callerOf(request);
    request.emutrackQuota = new RequestQuota(
      edge.store,
      edge.buckets.of(caller),
      quotaRules(request, caller, edge.config),
    );
  }
  return request.emutrackQuota;
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

/**
 * Sets the request's caller from the credential it sends: undefined (at once) when it sends
 * none, else a promise that rejects with the refusal (401 invalid_api_key, 403 account_banned).
 */
export function identifyCaller(request: FastifyRequest, edge: V2Edge): Promise<void> | undefined {
  const sent = secretOf(request, edge.config);
  if (!sent) return undefined;
  return edge.credentials.authenticate(sent.secret, request.raw.socket).then((result) => {
    if (!result.ok) throw authenticationError(result);
    request.emutrackCaller = credentialCaller(request, result, sent.via);
  });
}

/** The scope, credential and issuer checks of an operation (preHandler, after validation). */
function authorize(request: FastifyRequest): void {
  const v2 = request.routeOptions.config.v2!;
  const caller = callerOf(request);
  if (caller.kind === 'anonymous') {
    if (v2.auth === 'required' || (v2.scope !== undefined && !caller.scopes.includes(v2.scope))) {
      throw new ApiError(
        'invalid_api_key',
        `${v2.operationId} needs a credential: send Authorization: Bearer <key> or sign in`,
      );
    }
    return;
  }
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

const authorizeAndCharge: preHandlerAsyncHookHandler = async (request) => {
  authorize(request);
  const rule = request.routeOptions.config.v2!.cost;
  if ('fixed' in rule) await quotaOf(request).charge(rule.fixed.of());
  else if ('perRecord' in rule)
    await quotaOf(request).charge(rule.perRecord.of(rule.reserveRecords(request)), {
      reservation: true,
    });
};

async function callerQuota(app: FastifyInstance, edge: V2Edge): Promise<void> {
  app.decorateRequest('emutrackCaller', null);
  app.decorateRequest('emutrackQuota', null);

  // A callback, not a promise: most requests carry no credential and leave at once.
  const authenticate: onRequestHookHandler = (request, reply: FastifyReply, done) => {
    const identifying = identifyCaller(request, edge);
    if (!identifying) return done();
    identifying.then(() => done(), done);
  };

  app.addHook('onRoute', (route) => {
    const v2 = route.config?.v2;
    if (!v2) return;
    // Before the route's own hooks, as the app-wide hooks of the edge ran before.
    if (v2.auth !== 'none') prependRouteHook(route, 'onRequest', authenticate);
    prependRouteHook(route, 'preHandler', authorizeAndCharge);
  });
}

/** Caller and quota, as a plugin (options: the app's edge). */
export const v2CallerQuota = fp(callerQuota, { name: 'emutrack-v2-caller-quota', fastify: '5.x' });
