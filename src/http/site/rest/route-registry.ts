import type { ArgSchema } from './arg-schema.js';
import type { RestRequest } from './rest-request.js';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** WordPress's method groups (WP_REST_Server::READABLE, CREATABLE, EDITABLE, DELETABLE). */
export const READABLE: readonly RestMethod[] = ['GET'];
export const CREATABLE: readonly RestMethod[] = ['POST'];
export const EDITABLE: readonly RestMethod[] = ['POST', 'PUT', 'PATCH'];
export const DELETABLE: readonly RestMethod[] = ['DELETE'];

/** Answers with data (sent as 200) or a RestResponse; throws RestError to fail. */
export type RestCallback = (request: RestRequest) => unknown;

/**
 * Decides whether the caller may run the endpoint, after its args validated: return true (or
 * nothing) to go on, false for 401/403 `rest_forbidden`, or throw a RestError of its own code.
 */
export type PermissionCallback = (request: RestRequest) => boolean | void | Promise<boolean | void>;

export interface RestEndpoint {
  methods: RestMethod | readonly RestMethod[];
  callback: RestCallback;
  /** Absent = anyone may call it. */
  permission?: PermissionCallback;
  /** The parameters: validated and coerced before the permission check, listed by the index. */
  args?: Record<string, ArgSchema>;
  /** Whether /batch/v1 may call this endpoint; absent = the route's `allowBatch`. */
  allowBatch?: boolean;
}

export interface RestRouteOptions {
  /** The resource's JSON schema: OPTIONS shows it (context `help`). */
  schema?: () => object;
  /** Default false. */
  allowBatch?: boolean;
  /** Listed by the index. Default true. */
  showInIndex?: boolean;
}

export interface RegisteredEndpoint {
  methods: readonly RestMethod[];
  callback: RestCallback;
  permission?: PermissionCallback;
  args: Record<string, ArgSchema>;
  allowBatch: boolean;
}

export interface RegisteredRoute {
  namespace: string;
  /** As the index lists it, e.g. `/wp/v2/posts/(?P<id>[\d]+)`. */
  pattern: string;
  regex: RegExp;
  endpoints: RegisteredEndpoint[];
  options: RestRouteOptions;
}

/** `(?P<id>...)` (PCRE, what WordPress and wpapi write) as a JavaScript named group. */
function compilePattern(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/\(\?P</g, '(?<')}$`, 'i');
}

/**
 * register_rest_route: routes by namespace and pattern, in registration order (the first route
 * whose pattern and method match wins, as in WordPress). Registering a pattern twice adds
 * endpoints to it.
 */
export class RestRouteRegistry {
  private readonly routes = new Map<string, RegisteredRoute>();
  private readonly namespaceList: string[] = [];

  /**
   * @param namespace e.g. `wp/v2`
   * @param route the pattern below it, e.g. `/posts/(?P<id>[\d]+)`; `''` for the namespace itself
   */
  register(
    namespace: string,
    route: string,
    endpoints: RestEndpoint | RestEndpoint[],
    options: RestRouteOptions = {},
  ): void {
    const ns = namespace.replace(/^\/+|\/+$/g, '');
    const pattern = ns === '' ? route || '/' : `/${ns}${route}`;
    if (ns !== '' && !this.namespaceList.includes(ns)) this.namespaceList.push(ns);
    const list = (Array.isArray(endpoints) ? endpoints : [endpoints]).map((e) => ({
      methods: typeof e.methods === 'string' ? [e.methods] : [...e.methods],
      callback: e.callback,
      permission: e.permission,
      args: e.args ?? {},
      allowBatch: e.allowBatch ?? options.allowBatch ?? false,
    }));
    const existing = this.routes.get(pattern);
    if (existing) {
      existing.endpoints.push(...list);
      existing.options = { ...existing.options, ...options };
      return;
    }
    this.routes.set(pattern, {
      namespace: ns,
      pattern,
      regex: compilePattern(pattern),
      endpoints: list,
      options,
    });
  }

  namespaces(): readonly string[] {
    return this.namespaceList;
  }

  all(): IterableIterator<RegisteredRoute> {
    return this.routes.values();
  }

  get(pattern: string): RegisteredRoute | undefined {
    return this.routes.get(pattern);
  }

  /** The routes whose pattern matches the path, in order, with the captured URL parameters. */
  *matching(
    path: string,
  ): Generator<{ route: RegisteredRoute; urlParams: Record<string, string> }> {
    for (const route of this.routes.values()) {
      const m = route.regex.exec(path);
      if (m) yield { route, urlParams: { ...(m.groups ?? {}) } };
    }
  }
}
