import type { Logger } from '../../../shared/log/logger.js';
import type { SiteUrls } from '../site-urls.js';
import { ArgInvalid, argForIndex, coerceArg, parseList, type ArgSchema } from './arg-schema.js';
import { authorizationStatus, RestError } from './rest-error.js';
import { RestRequest } from './rest-request.js';
import { envelopeOf, RestResponse, type RestLink } from './rest-response.js';
import { filterResponseFields } from './response-fields.js';
import type {
  RegisteredEndpoint,
  RegisteredRoute,
  RestMethod,
  RestRouteRegistry,
} from './route-registry.js';
import { parsePhpQuery } from './php-query.js';

/** What the HTTP edge sends back. */
export interface RestReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface RestMatch {
  route: RegisteredRoute;
  endpoint: RegisteredEndpoint;
  urlParams: Record<string, string>;
}

const NO_ROUTE = () =>
  new RestError('rest_no_route', 'No route was found matching the URL and request method.', 404);

/**
 * WP_REST_Server: matches a request to a registered endpoint, validates and coerces its args
 * (before the permission check, as WordPress does), runs the permission callback and the
 * endpoint, and turns the result into data. `serve` adds what the top-level HTTP request asks
 * for (`_embed`, `_fields`, `_envelope`); batch items and embeds go through `dispatch`.
 */
export class RestServer {
  constructor(
    readonly registry: RestRouteRegistry,
    readonly urls: SiteUrls,
    private readonly logger: Logger,
  ) {}

  /** The first endpoint (route order, then endpoint order) for the path and method. */
  match(path: string, method: string): RestMatch | RestError {
    const m = method === 'HEAD' ? 'GET' : method;
    for (const { route, urlParams } of this.registry.matching(path)) {
      const endpoint = route.endpoints.find((e) => e.methods.includes(m as RestMethod));
      if (endpoint) return { route, endpoint, urlParams };
    }
    return NO_ROUTE();
  }

  /**
   * has_valid_params + sanitize_params: fills `request.params` from the route's defaults, the
   * URL parameters, the query and the body (later ones win), then checks required args and
   * coerces every given arg; one RestError names every bad parameter.
   */
  validate(request: RestRequest, match: RestMatch): void {
    request.urlParams = match.urlParams;
    request.route = match.route.pattern;
    const args = match.endpoint.args;
    request.registered = new Set(Object.keys(args));
    const params: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(args)) {
      if (schema.default !== undefined) params[name] = structuredClone(schema.default);
    }
    Object.assign(params, match.urlParams, request.query, request.body);
    // Coerced in place below; set now so that `Allow` asks the permission callbacks with the
    // parameters as given even when they do not validate (WordPress keeps them on the request).
    request.params = params;
    const missing = Object.entries(args)
      .filter(([name, schema]) => schema.required === true && params[name] === undefined)
      .map(([name]) => name);
    if (missing.length > 0) {
      throw new RestError(
        'rest_missing_callback_param',
        `Missing parameter(s): ${missing.join(', ')}`,
        {
          status: 400,
          params: missing,
        },
      );
    }
    // has_valid_params checks the args that have a validate_callback and stops there when one
    // fails; sanitize_params then checks the others.
    const entries = Object.entries(args);
    this.coerceParams(
      request,
      params,
      entries.filter(([, schema]) => schema.validateFirst),
    );
    this.coerceParams(
      request,
      params,
      entries.filter(([, schema]) => !schema.validateFirst),
    );
    request.params = params;
  }

  /** Coerces the given args in place; one rest_invalid_param names every bad one. */
  private coerceParams(
    request: RestRequest,
    params: Record<string, unknown>,
    args: Array<[string, ArgSchema]>,
  ): void {
    const invalid: Record<string, string> = {};
    const details: Record<string, unknown> = {};
    for (const [name, schema] of args) {
      if (params[name] === undefined) continue;
      if (!request.given(name)) {
        // A route's default is trusted, but takes the arg's shape ("publish" -> ["publish"]).
        try {
          params[name] = coerceArg(params[name], { ...schema, enum: undefined }, name);
        } catch {
          /* keep the default as written */
        }
        continue;
      }
      try {
        params[name] = coerceArg(params[name], schema, name);
        if (schema.sanitize) params[name] = schema.sanitize(params[name], request);
      } catch (err) {
        if (!(err instanceof ArgInvalid) && !(err instanceof RestError)) throw err;
        invalid[name] = err.message;
        details[name] = err.toJSON();
      }
    }
    const bad = Object.keys(invalid);
    if (bad.length > 0) {
      throw new RestError('rest_invalid_param', `Invalid parameter(s): ${bad.join(', ')}`, {
        status: 400,
        params: invalid,
        details,
      });
    }
  }

  /** Permission callback, then the endpoint; errors come back as error responses. */
  async run(request: RestRequest, match: RestMatch): Promise<RestResponse> {
    try {
      const { permission, callback } = match.endpoint;
      if (permission) {
        const allowed = await permission(request);
        if (allowed === false) {
          throw new RestError(
            'rest_forbidden',
            'Sorry, you are not allowed to do that.',
            authorizationStatus(request.signedIn),
          );
        }
      }
      const result = await callback(request);
      return result instanceof RestResponse ? result : new RestResponse(result);
    } catch (err) {
      return this.errorResponse(err, request);
    }
  }

  /** Match, validate and run one request (no `_embed`/`_envelope`; `_fields` applied). */
  async dispatch(request: RestRequest): Promise<RestResponse> {
    const match = this.match(request.path, request.method);
    if (match instanceof RestError) return this.errorResponse(match, request);
    try {
      this.validate(request, match);
    } catch (err) {
      return this.errorResponse(err, request);
    }
    const response = await this.run(request, match);
    return this.applyFields(request, response);
  }

  errorResponse(err: unknown, request: RestRequest): RestResponse {
    if (err instanceof RestError) return new RestResponse(err.toJSON(), err.status);
    this.logger.error({ err, path: request.path, method: request.method }, 'site request failed');
    const error = new RestError(
      'rest_internal_error',
      'The site could not answer this request.',
      500,
    );
    return new RestResponse(error.toJSON(), 500);
  }

  private applyFields(request: RestRequest, response: RestResponse): RestResponse {
    const fields = request.query._fields ?? request.body._fields;
    if (fields === undefined || response.status >= 400) return response;
    const list = parseList(fields).map(String);
    if (list.length === 0) return response;
    response.data = filterResponseFields(response.data, list);
    return response;
  }

  /**
   * The top-level request: an authentication error of the edge answers at once; OPTIONS answers
   * the route's description; `_embed` fetches embeddable links; `_envelope` wraps the answer.
   */
  async serve(request: RestRequest, authError?: RestError): Promise<RestReply> {
    let response: RestResponse;
    if (authError) response = new RestResponse(authError.toJSON(), authError.status);
    else if (request.method === 'OPTIONS') response = await this.options(request);
    else {
      response = await this.dispatch(request);
      const match = this.match(request.path, request.method);
      if (!(match instanceof RestError)) {
        const allow = await this.allowedMethods(request, match.route);
        if (allow) response.headers.Allow = allow;
      }
      const embed = request.query._embed;
      if (embed !== undefined && response.status < 400) {
        const rels =
          embed === '' || embed === '1' || embed === 'true'
            ? undefined
            : parseList(embed).map(String);
        await this.embedLinks(response, request, rels);
      }
    }
    const headers: Record<string, string> = { ...response.headers };
    if ('_envelope' in request.query) {
      return { status: 200, headers: {}, body: envelopeOf(response, headers) };
    }
    return { status: response.status, headers, body: response.data };
  }

  private async options(request: RestRequest): Promise<RestResponse> {
    for (const { route, urlParams } of this.registry.matching(request.path)) {
      const data = this.routeData(route, 'help');
      request.urlParams = urlParams;
      request.route = route.pattern;
      request.params = { ...urlParams, ...request.query, ...request.body };
      const allow = await this.allowedMethods(request, route);
      return new RestResponse(data, 200, allow ? { Allow: allow } : {});
    }
    // rest_handle_options_request answers before any route is matched: a path no route takes
    // gets an empty description, not rest_no_route.
    return new RestResponse([], 200);
  }

  /**
   * rest_send_allow_header: the route's methods whose permission callback passes for this
   * caller, asked with this very request (as WordPress does: GET ?context=edit as a subscriber
   * leaves GET out); a later endpoint of the same method decides. Undefined when none passes
   * (no header, as WordPress sends none).
   */
  async allowedMethods(request: RestRequest, route: RegisteredRoute): Promise<string | undefined> {
    const allowed = new Map<string, boolean>();
    for (const endpoint of route.endpoints) {
      let ok = true;
      if (endpoint.permission) {
        try {
          ok = (await endpoint.permission(request)) !== false;
        } catch {
          ok = false;
        }
      }
      for (const method of endpoint.methods) allowed.set(method, ok);
    }
    const methods = [...allowed].filter(([, ok]) => ok).map(([method]) => method);
    return methods.length > 0 ? methods.join(', ') : undefined;
  }

  /** get_data_for_route: namespace, methods, endpoints with args, self link; schema for `help`. */
  routeData(route: RegisteredRoute, context: 'view' | 'help'): Record<string, unknown> {
    const methods = [...new Set(route.endpoints.flatMap((e) => e.methods))];
    const data: Record<string, unknown> = {
      namespace: route.namespace,
      methods,
      endpoints: route.endpoints.map((e) => {
        const endpoint: Record<string, unknown> = {
          methods: e.methods,
          args: Object.fromEntries(Object.entries(e.args).map(([k, s]) => [k, argForIndex(s)])),
        };
        if (e.allowBatch) endpoint.allow_batch = { v1: true };
        return endpoint;
      }),
    };
    if (context === 'help' && route.options.schema) data.schema = route.options.schema();
    if (!route.pattern.includes('(?P<')) {
      data._links = { self: [{ href: this.urls.rest(route.pattern) }] };
    }
    return data;
  }

  /** The `routes` object of an index: every route (of one namespace, or all). */
  routesData(namespace?: string, context: 'view' | 'help' = 'view'): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const route of this.registry.all()) {
      if (route.options.showInIndex === false) continue;
      if (namespace !== undefined && route.namespace !== namespace) continue;
      out[route.pattern] = this.routeData(route, context);
    }
    return out;
  }

  private async embedLinks(
    response: RestResponse,
    parent: RestRequest,
    wanted: string[] | undefined,
  ): Promise<void> {
    const cache = new Map<string, Promise<unknown>>();
    const fetchLink = (href: string) => {
      let pending = cache.get(href);
      if (!pending) {
        pending = this.embedOne(href, parent);
        cache.set(href, pending);
      }
      return pending;
    };
    const items = Array.isArray(response.data) ? response.data : [response.data];
    // Every embeddable link of every item is dispatched at once (same link once), then placed.
    await Promise.all(
      items.map(async (item) => {
        if (typeof item !== 'object' || item === null) return;
        const links = (item as { _links?: Record<string, RestLink[]> })._links;
        if (!links) return;
        const rels = Object.entries(links).filter(
          ([rel, list]) => (!wanted || wanted.includes(rel)) && list.some((l) => l.embeddable),
        );
        if (rels.length === 0) return;
        const embedded: Record<string, unknown[]> = {};
        const results = await Promise.all(
          rels.map(([, list]) =>
            Promise.all(list.filter((l) => l.embeddable).map((l) => fetchLink(l.href))),
          ),
        );
        rels.forEach(([rel], i) => (embedded[rel] = results[i]!));
        (item as Record<string, unknown>)._embedded = embedded;
      }),
    );
  }

  private async embedOne(href: string, parent: RestRequest): Promise<unknown> {
    const target = this.urls.routeOf(href);
    if (!target) return null;
    const query = parsePhpQuery(target.query) as Record<string, unknown>;
    query.context ??= 'embed';
    const request = new RestRequest({
      method: 'GET',
      path: target.path,
      query,
      headers: parent.headers,
      user: parent.user,
      ip: parent.ip,
    });
    const response = await this.dispatch(request);
    return response.data;
  }
}
