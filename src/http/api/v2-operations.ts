import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { z } from 'zod';
import type { Issuer } from '../../domain/accounts/credentials.js';
import type { OperationCost } from '../quota/quota-costs.js';
import { dataEnvelope, errorEnvelopeSchema } from './envelope.js';
import type { CacheClass } from './http-caching.js';

/**
 * What a v2 operation is: every route under /api/v2 declares, in its `config.v2`, its OpenAPI
 * identity, its scope and its cost (as @fastify/rate-limit reads its per-route `config`). This
 * plugin completes each such route's schema from it when the route is registered (operationId,
 * tags, security, the envelopes of its answers) and keeps the app's table of operations; a route
 * under /api/v2 without `config.v2` is refused then, so no operation can forget its scope, its
 * cost or its meta. The other edge plugins read the same config (v2-caller-quota.ts,
 * v2-sending.ts).
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

/**
 * Configs of free operations only a credential may call (`auth: 'required'`), as account, OAuth
 * and administration operations are: `shared` holds what the family has in common (tag,
 * issuers, scope, error statuses), `describe` what each description adds (default: nothing).
 */
export function signedInOperations(
  shared: Pick<V2OperationConfig, 'tag' | 'issuers' | 'scope' | 'errorStatuses'>,
  describe: (description: string) => string = (description) => description,
) {
  return (
    operationId: string,
    summary: string,
    description: string,
  ): { v2: V2OperationConfig } => ({
    v2: {
      operationId,
      summary,
      description: describe(description),
      auth: 'required',
      cost: { free: true },
      ...shared,
    },
  });
}

/** One v2 operation's route: method, URL pattern and its config. */
export interface V2Route {
  method: string;
  url: string;
  v2: V2OperationConfig;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The v2 operation this route is (see v2-operations.ts). */
    v2?: V2OperationConfig;
  }
  interface FastifyInstance {
    /** Every v2 operation's route as registered (the route table; tests enumerate it). */
    emutrackV2Routes: readonly V2Route[];
  }
}

/** reserveRecords for operations paged by a `limit` query parameter (already validated). */
export function queryLimit(request: FastifyRequest): number {
  const limit = (request.query as { limit?: unknown } | undefined)?.limit;
  return typeof limit === 'number' ? limit : 0;
}

type RouteHookName = 'onRequest' | 'preHandler' | 'preSerialization' | 'onSend';

/**
 * Puts `hook` first among a route's own hooks of that name (in an onRoute hook): the edge's
 * plugins attach their behaviour to each operation this way, ahead of what the route brings.
 */
export function prependRouteHook(route: RouteOptions, name: RouteHookName, hook: unknown): void {
  const own = route[name] as unknown;
  const list = own === undefined ? [] : Array.isArray(own) ? own : [own];
  (route as unknown as Record<RouteHookName, unknown[]>)[name] = [hook, ...list];
}

const ALWAYS_DOCUMENTED = [400, 401, 403, 404, 429, 500, 503];

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

function isUnderV2(url: string): boolean {
  return url.startsWith('/api/v2/') || url === '/api/v2';
}

/**
 * Completes a v2 route's schema from its config: OpenAPI identity, security, envelopes. A GET's
 * HEAD route shares the GET's schema object: `completed` (this app's) keeps it from being
 * wrapped twice.
 */
function completeSchema(route: RouteOptions, completed: WeakSet<object>): void {
  const v2 = route.config?.v2;
  if (!v2) {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    if (isUnderV2(route.url) && !hidden) {
      throw new Error(
        `route ${String(route.method)} ${route.url} is under /api/v2 but declares no config.v2 (scope and cost): see src/http/api/v2-operations.ts`,
      );
    }
    return;
  }
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  if (completed.has(schema)) return;
  completed.add(schema);
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

async function operations(app: FastifyInstance, options: { routes: V2Route[] }): Promise<void> {
  const completed = new WeakSet<object>();
  const { routes } = options;
  app.addHook('onRoute', (route) => {
    completeSchema(route, completed);
    const v2 = route.config?.v2;
    for (const method of [route.method].flat()) {
      if (v2 && method !== 'HEAD') routes.push({ method, url: route.url, v2 });
    }
  });
}

/**
 * Operation config and OpenAPI, as a plugin: register it before the operations' routes (it
 * reads each one as it is registered). `routes` is the table it fills (the app's: see V2Edge).
 */
export const v2Operations = fp(operations, { name: 'emutrack-v2-operations', fastify: '5.x' });
