import type { Readable } from 'node:stream';
import type { SiteUser } from '../../../domain/content/site-user.js';
import { hasCap } from '../../../domain/content/site-user.js';

export interface RestRequestInit {
  method: string;
  /** The route path, e.g. `/wp/v2/posts/5` (no query). */
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  /**
   * A body that is neither JSON nor a form (an upload: raw bytes or multipart), unread: the
   * route streams it (and enforces its own size limit). Absent for batch items and embeds.
   */
  bodyStream?: Readable;
  user?: SiteUser | null;
  ip?: string;
}

/**
 * One request to a REST route (WP_REST_Request): its method and path, the parameters in
 * WordPress's precedence (body over query over URL parameters over the route's defaults; `params`
 * holds the validated, coerced values once the route matched), the caller (`user`, null for
 * anonymous) and, for uploads, the unread body stream.
 */
export class RestRequest {
  method: string;
  readonly path: string;
  readonly query: Record<string, unknown>;
  readonly body: Record<string, unknown>;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly bodyStream: Readable | undefined;
  readonly user: SiteUser | null;
  readonly ip: string;
  urlParams: Record<string, string> = {};
  /** Every parameter after validation and coercion (set by the server before the permission check). */
  params: Record<string, unknown> = {};
  /** The pattern of the matched route, e.g. `/wp/v2/posts/(?P<id>[\d]+)`. */
  route = '';
  /** The names of the matched endpoint's args (set with `params`). */
  registered: ReadonlySet<string> = new Set();

  constructor(init: RestRequestInit) {
    this.method = init.method.toUpperCase();
    this.path = init.path;
    this.query = init.query ?? {};
    this.body = init.body ?? {};
    this.headers = init.headers ?? {};
    this.bodyStream = init.bodyStream;
    this.user = init.user ?? null;
    this.ip = init.ip ?? '';
  }

  /** A parameter's value (after validation once the route matched). */
  get<T = unknown>(name: string): T {
    return this.params[name] as T;
  }

  /** A parameter's value when the endpoint registers it, else undefined however it was sent. */
  arg<T = unknown>(name: string): T {
    return (this.registered.has(name) ? this.params[name] : undefined) as T;
  }

  has(name: string): boolean {
    return this.params[name] !== undefined;
  }

  /** Whether the parameter was given by the caller (not a route default). */
  given(name: string): boolean {
    return name in this.body || name in this.query || name in this.urlParams;
  }

  can(cap: string): boolean {
    return hasCap(this.user, cap);
  }

  get signedIn(): boolean {
    return this.user !== null;
  }
}
