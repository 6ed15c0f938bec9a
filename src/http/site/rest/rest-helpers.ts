import type { Queryable } from '../../../shared/db/db.js';
import { deleteLatestAutosave } from '../../../domain/content/posts-store.js';
import type { ArgSchema } from './arg-schema.js';
import { RestError } from './rest-error.js';
import type { RestRequest } from './rest-request.js';
import { RestResponse } from './rest-response.js';
import type { SiteUrls } from '../site-urls.js';

export type Context = 'view' | 'embed' | 'edit';

/** A resource schema (JSON Schema with WordPress's `context` on every property). */
export interface ResourceSchema {
  $schema: string;
  title: string;
  type: 'object';
  properties: Record<string, ArgSchema>;
}

export function resourceSchema(
  title: string,
  properties: Record<string, ArgSchema>,
): ResourceSchema {
  return { $schema: 'http://json-schema.org/draft-04/schema#', title, type: 'object', properties };
}

/**
 * rest_filter_response_by_context: keeps the properties (and sub-properties) whose `context`
 * lists the request's context; properties without one, and `_links`, stay.
 */
export function filterByContext(
  data: Record<string, unknown>,
  schema: ResourceSchema,
  context: Context,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const prop = schema.properties[key];
    if (!prop) {
      out[key] = value;
      continue;
    }
    if (prop.context && !prop.context.includes(context)) continue;
    if (prop.properties && value && typeof value === 'object' && !Array.isArray(value)) {
      const sub: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const subProp = prop.properties[k];
        if (subProp?.context && !subProp.context.includes(context)) continue;
        sub[k] = v;
      }
      out[key] = sub;
    } else out[key] = value;
  }
  return out;
}

/** The `context` arg (get_context_param). */
export function contextArg(defaultContext: Context = 'view'): ArgSchema {
  return {
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: ['view', 'embed', 'edit'],
    default: defaultContext,
    validateFirst: true,
  };
}

/**
 * The largest id, page or offset a list query takes: ids are Postgres bigints and every number
 * here stays exact in JavaScript. Past it a number names no item; refused as WordPress refuses a
 * value out of bounds (rest_out_of_bounds inside rest_invalid_param), never left to the database.
 */
const MAX_QUERY_INTEGER = Number.MAX_SAFE_INTEGER;
/** A page so far that even per_page=100 pages stay within MAX_QUERY_INTEGER. */
const MAX_PAGE = Math.floor(MAX_QUERY_INTEGER / 100);

function outOfBounds(message: string): RestError {
  return new RestError('rest_out_of_bounds', message, 400);
}

/** A sanitize refusing an integer outside [min, max] (the schema's own min/max show in the index). */
export function integerWithin(
  param: string,
  min: number,
  max: number,
): NonNullable<ArgSchema['sanitize']> {
  return (value) => {
    const n = value as number;
    if (n < min || n > max) {
      throw outOfBounds(`${param} must be between ${min} (inclusive) and ${max} (inclusive)`);
    }
    return n;
  };
}

/**
 * A post list's offset: any integer within the bounds either way. WordPress keeps it as given
 * (a Link repeats `offset=-1`) and WP_Query reads it as absint (the list controller does too).
 */
export const signedOffset: NonNullable<ArgSchema['sanitize']> = (value, request) => {
  integerWithin('offset', 0, MAX_QUERY_INTEGER)(Math.abs(value as number), request);
  return value;
};

/** A sanitize refusing list ids that no item can have (beyond MAX_QUERY_INTEGER either way). */
export function idsWithin(value: unknown): unknown {
  const ids = Array.isArray(value) ? value : [];
  for (const id of ids) {
    if (typeof id === 'number' && Math.abs(id) > MAX_QUERY_INTEGER) {
      throw outOfBounds(`Each ID must be between -${MAX_QUERY_INTEGER} and ${MAX_QUERY_INTEGER}.`);
    }
  }
  return value;
}

export const PAGE_ARG: ArgSchema = {
  description: 'Current page of the collection.',
  type: 'integer',
  default: 1,
  minimum: 1,
  sanitize: integerWithin('page', 1, MAX_PAGE),
  validateFirst: true,
};

export function perPageArg(defaultValue = 10): ArgSchema {
  return {
    description: 'Maximum number of items to be returned in result set.',
    type: 'integer',
    default: defaultValue,
    minimum: 1,
    maximum: 100,
    validateFirst: true,
  };
}

export const ID_LIST: ArgSchema = {
  type: 'array',
  items: { type: 'integer' },
  default: [],
  sanitize: idsWithin,
};

/**
 * The arguments WordPress's collections share (get_collection_params and the search, include,
 * exclude, offset and order that terms, users and revisions add): `order` defaults to `order`,
 * `per_page` to `perPage` (null: no default, every item, as revisions).
 */
export function collectionArgs(options: {
  order: 'asc' | 'desc';
  perPage?: number | null;
}): Record<string, ArgSchema> {
  const perPage = perPageArg(options.perPage ?? 10);
  if (options.perPage === null) delete perPage.default;
  return {
    context: contextArg(),
    page: PAGE_ARG,
    per_page: perPage,
    search: {
      description: 'Limit results to those matching a string.',
      type: 'string',
      validateFirst: true,
    },
    exclude: { description: 'Ensure result set excludes specific IDs.', ...ID_LIST },
    include: { description: 'Limit result set to specific IDs.', ...ID_LIST },
    offset: {
      description: 'Offset the result set by a specific number of items.',
      type: 'integer',
      // WordPress's schema has no minimum (WP_Query takes absint); a negative offset is an error
      // of the caller here, named as one, instead of a silent absolute value.
      sanitize: integerWithin('offset', 0, MAX_QUERY_INTEGER),
    },
    order: {
      description: 'Order sort attribute ascending or descending.',
      type: 'string',
      default: options.order,
      enum: ['asc', 'desc'],
    },
  };
}

/** PHP's urlencode: everything but letters, digits and `-_.` as %XX, a space as `+`. */
function phpUrlencode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * The query add_query_arg( urlencode_deep( $params ), $url ) writes: PHP's urlencode for values
 * (`a b` as `a+b`), lists and maps as `a%5B0%5D=1`, `o%5Bk%5D=v`, true as 1, false as the empty
 * string, and an empty value as its bare key (`sticky`, not `sticky=`), so Link headers carry
 * the query in the form WordPress clients send and read back.
 */
export function buildPhpQuery(params: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) value.forEach((v, i) => add(`${key}%5B${i}%5D`, v));
    else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        add(`${key}%5B${phpUrlencode(k)}%5D`, v);
      }
    } else {
      const v = typeof value === 'boolean' ? (value ? '1' : '') : String(value);
      parts.push(v === '' ? key : `${key}=${phpUrlencode(v)}`);
    }
  };
  for (const [k, v] of Object.entries(params)) add(phpUrlencode(k), v);
  return parts.join('&');
}

/** The URL of `page` of the list `request` asked for, with the rest of its query. */
export function pageUrl(request: RestRequest, urls: SiteUrls, page: number): string {
  // WordPress builds the links from the query as sanitized (get_query_params after
  // sanitize_params): `status=any` comes back as `status[0]=any`; what the route does not
  // register stays as sent.
  const query: Record<string, unknown> = { ...request.query };
  for (const key of Object.keys(query)) {
    const value = request.params[key];
    if (value !== undefined && request.registered.has(key)) query[key] = value;
  }
  return `${urls.rest(request.path)}?${buildPhpQuery({ ...query, page })}`;
}

/**
 * A page of a collection with X-WP-Total, X-WP-TotalPages and Link rel="prev"/"next" keeping the
 * request's query; a page past the end (when anything matched) is `invalidPageCode` (400).
 */
export function collectionResponse(
  request: RestRequest,
  urls: SiteUrls,
  items: unknown[],
  total: number,
  perPage: number,
  invalidPageCode = 'rest_post_invalid_page_number',
  /** The page the Link rels count from when not the request's (terms with an offset). */
  options?: { page: number },
): RestResponse {
  const page = options?.page ?? Number(request.params.page ?? 1);
  const totalPages = perPage > 0 ? Math.ceil(total / perPage) : 1;
  if (page > totalPages && total > 0 && !options) {
    throw new RestError(
      invalidPageCode,
      'The page number requested is larger than the number of pages available.',
      400,
    );
  }
  const headers: Record<string, string> = {
    'X-WP-Total': String(total),
    'X-WP-TotalPages': String(totalPages),
  };
  const links: string[] = [];
  const at = (p: number) => pageUrl(request, urls, p);
  if (page > 1) links.push(`<${at(Math.min(page - 1, Math.max(totalPages, 1)))}>; rel="prev"`);
  if (page < totalPages) links.push(`<${at(page + 1)}>; rel="next"`);
  if (links.length > 0) headers.Link = links.join(', ');
  return new RestResponse(items, 200, headers);
}

/** The `wp` curie every item links with. */
export const CURIES = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];

/** The caller's id, or 0 when anonymous. */
export function userIdOf(request: RestRequest): number {
  return request.user?.id ?? 0;
}

/** rest_authorization_required_code as a RestError. */
export function denied(request: RestRequest, code: string, message: string): RestError {
  return new RestError(code, message, request.signedIn ? 403 : 401);
}

/**
 * A DELETE ?force answer: `{deleted, previous}` where `previous` is the item's data without its
 * `_links` (WordPress sends `$previous->get_data()`, the response's data alone).
 */
export function deletedAnswer(previous: Record<string, unknown>): {
  deleted: true;
  previous: Record<string, unknown>;
} {
  const { _links: _dropped, ...data } = previous;
  void _dropped;
  return { deleted: true, previous: data };
}

/**
 * An autosave that changes nothing: the caller's previous autosave goes (it equals the item now)
 * and the request is refused, as WordPress's autosaves controller does.
 */
export async function refuseUnchangedAutosave(
  db: Queryable,
  parentId: number,
  user: number,
): Promise<never> {
  await deleteLatestAutosave(db, parentId, user);
  throw new RestError(
    'rest_autosave_no_changes',
    'There is nothing to save. The autosave and the post content are the same.',
    400,
  );
}
