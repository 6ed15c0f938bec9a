import type { SiteKit } from '../site-kit.js';
import type { ArgSchema } from './arg-schema.js';
import type { RestRequest } from './rest-request.js';
import type { RestResponse } from './rest-response.js';
import {
  CREATABLE,
  DELETABLE,
  EDITABLE,
  READABLE,
  type PermissionCallback,
  type RestCallback,
  type RestEndpoint,
} from './route-registry.js';
import {
  collectionResponse,
  contextArg,
  filterByContext,
  type Context,
  type ResourceSchema,
} from './rest-helpers.js';

/** One endpoint of a route, its methods given by where it is registered. */
export interface EndpointSpec {
  args?: Record<string, ArgSchema>;
  /** Absent: anyone may call it (the callback checks what it must). */
  permission?: PermissionCallback;
  callback: RestCallback;
}

/**
 * The collection route (list, create) and the item route (read, update, delete) of a resource,
 * as WordPress's controllers register them. Item endpoints take `id` first; a read without args
 * of its own takes `context`; a delete takes `force`.
 */
export interface ResourceRoutes {
  /** The `id` URL parameter's schema. */
  id: ArgSchema;
  /** The `force` parameter's description (absent: none). */
  forceDescription?: string;
  /**
   * Whether /batch/v1 may call both routes (WordPress's `$allow_batch`). Default true; false for
   * the attachments controller, as WordPress's.
   */
  allowBatch?: boolean;
  list?: EndpointSpec;
  create?: EndpointSpec;
  read?: EndpointSpec;
  update?: EndpointSpec;
  remove?: EndpointSpec;
}

/**
 * WP_REST_Controller: what every resource controller of the site shares. A controller names
 * its schema (get_item_schema, which OPTIONS shows) and registers its routes (register_routes)
 * through `route` or `resourceRoutes`; items are filtered by context against the schema, and
 * collections answer with X-WP-Total, X-WP-TotalPages and Link headers.
 */
export abstract class RestController {
  protected readonly namespace: string = 'wp/v2';

  constructor(protected readonly kit: SiteKit) {}

  /** The item schema (get_item_schema). */
  abstract readonly schema: ResourceSchema;

  /** register_routes. */
  abstract register(): void;

  /**
   * register_rest_route below the namespace, with the item schema for OPTIONS (or `schema`;
   * null: none).
   */
  protected route(
    path: string,
    endpoints: RestEndpoint | RestEndpoint[],
    options: { schema?: (() => object) | null; allowBatch?: boolean } = {},
  ): void {
    const schema = options.schema === undefined ? () => this.schema : options.schema;
    this.kit.rest.register(this.namespace, path, endpoints, {
      ...(schema ? { schema } : {}),
      ...(options.allowBatch ? { allowBatch: true } : {}),
    });
  }

  /** The collection route at `base` and the item route below it (batch callable by default). */
  protected resourceRoutes(base: string, routes: ResourceRoutes): void {
    const collection: RestEndpoint[] = [];
    if (routes.list) collection.push({ methods: READABLE, ...withArgs(routes.list) });
    if (routes.create) collection.push({ methods: CREATABLE, ...withArgs(routes.create) });
    const allowBatch = routes.allowBatch ?? true;
    if (collection.length > 0) this.route(base, collection, { allowBatch });
    const id = { id: routes.id };
    const item: RestEndpoint[] = [];
    if (routes.read) {
      const args = routes.read.args ?? { context: contextArg() };
      item.push({ methods: READABLE, ...routes.read, args: { ...id, ...args } });
    }
    if (routes.update) {
      item.push({ methods: EDITABLE, ...routes.update, args: { ...id, ...routes.update.args } });
    }
    if (routes.remove) {
      const force: ArgSchema = { type: 'boolean', default: false };
      if (routes.forceDescription) force.description = routes.forceDescription;
      item.push({ methods: DELETABLE, ...routes.remove, args: { ...id, force } });
    }
    this.route(`${base}/(?P<id>[\\d]+)`, item, { allowBatch });
  }

  /** rest_filter_response_by_context against the item schema. */
  protected filterByContext(data: Record<string, unknown>, context: Context) {
    return filterByContext(data, this.schema, context);
  }

  /** A page of the collection with its total, page count and prev/next links. */
  protected collectionResponse(
    request: RestRequest,
    items: unknown[],
    total: number,
    perPage: number,
    invalidPageCode?: string,
    options?: { page: number },
  ): RestResponse {
    return collectionResponse(
      request,
      this.kit.urls,
      items,
      total,
      perPage,
      invalidPageCode,
      options,
    );
  }
}

function withArgs(spec: EndpointSpec): EndpointSpec {
  return { ...spec, args: spec.args ?? {} };
}
