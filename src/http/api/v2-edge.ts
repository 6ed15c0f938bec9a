import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../shared/config/config.js';
import type { Clock, QuotaStore } from '../quota/quota-store.js';
import type { CredentialCache } from './caller.js';
import { CallerBuckets, v2CallerQuota } from './v2-caller-quota.js';
import { v2Operations, type V2Route } from './v2-operations.js';
import { answerV2Error, answerV2NotFound, v2Sending } from './v2-sending.js';

/**
 * The API edge: the one place that decides who calls an /api/v2 operation, what it may do and
 * how it is answered, as three plugins that attach their hooks to every route declaring a
 * `config.v2` (the way @fastify/rate-limit reads its per-route config):
 *
 * - v2-operations.ts: operation config and OpenAPI (each route's schema completed from its
 *   config; a route under /api/v2 without one refused; the route table);
 * - v2-caller-quota.ts: caller and quota (authentication, scope, the charge);
 * - v2-sending.ts: sending and errors (the envelope, quota headers, ETag and 304, error mapping).
 *
 * buildApp registers them in one encapsulated scope under the `/api/v2` prefix (v2Api): the
 * operations, their error handler and their not-found answer live there, and the rest of the
 * app (HTML pages, OAuth endpoints, metrics) never runs a hook of the edge. What the edge keeps
 * between requests is in its V2Edge, made per app.
 */

export type { OperationCostRule, V2OperationConfig, V2Route } from './v2-operations.js';
export { queryLimit, signedInOperations } from './v2-operations.js';
export { callerOf, clientAddress, quotaOf } from './v2-caller-quota.js';
export {
  answerError,
  answerFrameworkError,
  dataEnvelopeJson,
  notFoundError,
  sendDataJson,
  toApiError,
} from './v2-sending.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The edge of this app (set by buildApp on the app, and by the edge plugin on its scope). */
    emutrackEdge: V2Edge;
  }
}

export interface V2EdgeOptions {
  config: Config;
  store: QuotaStore;
  credentials: CredentialCache;
  clock: Clock;
}

/** One app's edge: its options and what it keeps between requests (made per app, dropped with it). */
export class V2Edge implements V2EdgeOptions {
  readonly config: Config;
  readonly store: QuotaStore;
  readonly credentials: CredentialCache;
  readonly clock: Clock;
  /** Every v2 operation's route as registered. */
  readonly routes: V2Route[] = [];
  readonly buckets: CallerBuckets;

  constructor(options: V2EdgeOptions) {
    this.config = options.config;
    this.store = options.store;
    this.credentials = options.credentials;
    this.clock = options.clock;
    this.buckets = new CallerBuckets(options.config, options.clock);
  }
}

async function edgePlugins(app: FastifyInstance, options: V2EdgeOptions | V2Edge): Promise<void> {
  const edge = options instanceof V2Edge ? options : new V2Edge(options);
  app.decorate('emutrackEdge', edge);
  app.decorate('emutrackV2Routes', edge.routes);
  await app.register(v2Operations, { routes: edge.routes });
  await app.register(v2CallerQuota, edge);
  await app.register(v2Sending);
}

/**
 * The edge's three plugins on the instance it is registered on (options: the app's V2Edge, or
 * its options). Register it before the operations' routes.
 */
export const v2Edge = fp(edgePlugins, { name: 'emutrack-v2-edge', fastify: '5.x' });

export interface V2ApiOptions {
  edge: V2Edge;
  /** Registers the operations on the scope, with URLs relative to /api/v2. */
  operations: (scope: FastifyInstance) => Promise<void>;
}

/**
 * The /api/v2 scope (register it with `prefix: '/api/v2'`): the edge, the operations, their
 * error handler and the not-found answer of any other path under the prefix (the envelope).
 */
export async function v2Api(scope: FastifyInstance, options: V2ApiOptions): Promise<void> {
  await scope.register(v2Edge, options.edge);
  scope.setErrorHandler(answerV2Error);
  scope.setNotFoundHandler(answerV2NotFound);
  await options.operations(scope);
}
