import { createHash } from 'node:crypto';
import {
  findSiteAccount,
  listSiteAccounts,
  type SiteAccount,
} from '../../../domain/content/site-users.js';
import { POST_TYPES } from '../../../domain/content/post-types.js';
import { ROLE_CAPABILITIES, SITE_ROLES } from '../../../domain/content/site-roles.js';
import { gmtDate } from '../../../domain/content/site-dates.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import { registerUserWriteEndpoints } from './user-writes-controller.js';
import { SITE_LOCALE, USER_SCHEMA } from './user-schema.js';
import type { RestRequest } from '../rest/rest-request.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import {
  collectionArgs,
  collectionResponse,
  type Context,
  contextArg,
  denied,
  filterByContext,
  pageUrl,
} from '../rest/rest-helpers.js';

/** The REST post types with authors (WordPress's `who=authors` looks at these). */
const AUTHORED_TYPES = Object.values(POST_TYPES).filter((t) => t.supports.author);
/** The roles that may write one of them: WordPress's "authors" (user level above 0). */
const AUTHOR_ROLES = SITE_ROLES.filter((role) =>
  AUTHORED_TYPES.some((t) => ROLE_CAPABILITIES[role].has(t.caps.edit)),
);

/** The request as if it asked for `page` (its parameters copied; the request itself unchanged). */
function withPage(request: RestRequest, page: number): RestRequest {
  const copy = Object.create(request) as RestRequest;
  copy.params = { ...request.params, page };
  return copy;
}

/**
 * The roles a list keeps: `who=authors`'s and those holding one of `capabilities` (a role's
 * capabilities, or its own name, as WordPress's capability__in reads them); undefined = any.
 */
function holdingRoles(
  authors: readonly string[] | undefined,
  capabilities: string[] | undefined,
): readonly string[] | undefined {
  if (!capabilities?.length) return authors;
  const holding = SITE_ROLES.filter(
    (role) =>
      (authors === undefined || authors.includes(role)) &&
      capabilities.some((cap) => cap === role || ROLE_CAPABILITIES[role].has(cap)),
  );
  return holding;
}

/**
 * WP_REST_Users_Controller, read side: /users (anonymous callers see authors of published
 * posts only), /users/{id} and /users/me; private fields only in the edit context, for the user
 * themself or an administrator (list_users).
 */
export function registerUsersRoutes(kit: SiteKit): void {
  const present = (a: SiteAccount, context: Context): Record<string, unknown> => {
    const hash = createHash('md5')
      .update((a.email ?? a.username).trim().toLowerCase())
      .digest('hex');
    const data = {
      id: a.id,
      username: a.username,
      name: a.profile.displayName,
      first_name: a.profile.firstName,
      last_name: a.profile.lastName,
      email: a.email ?? '',
      url: a.profile.url,
      description: a.profile.description,
      // get_author_posts_url with pretty permalinks.
      link: kit.urls.page(`/author/${encodeURIComponent(a.username.toLowerCase())}/`),
      locale: a.profile.locale || SITE_LOCALE,
      nickname: a.profile.nickname,
      slug: a.username.toLowerCase(),
      registered_date: `${gmtDate(a.registeredAt)}+00:00`,
      roles: [a.role],
      capabilities: Object.fromEntries([
        [a.role, true],
        ...[...ROLE_CAPABILITIES[a.role]].map((c) => [c, true]),
      ]),
      extra_capabilities: { [a.role]: true },
      avatar_urls: Object.fromEntries(
        [24, 48, 96].map((s) => [
          String(s),
          `https://secure.gravatar.com/avatar/${hash}?s=${s}&d=mm&r=g`,
        ]),
      ),
      meta: { persisted_preferences: a.profile.meta.persisted_preferences ?? {} },
    };
    const out = filterByContext(data, USER_SCHEMA, context);
    out._links = {
      self: [{ href: kit.urls.rest(`/wp/v2/users/${a.id}`) }],
      collection: [{ href: kit.urls.rest('/wp/v2/users') }],
    };
    return out;
  };

  const hasPublished = async (id: number) => {
    const r = await kit.db.query(
      `SELECT 1 FROM site_posts WHERE author = $1 AND status = 'publish' AND type IN ('post', 'page') LIMIT 1`,
      [id],
    );
    return r.rowCount > 0;
  };

  const accounts = new WeakMap<RestRequest, SiteAccount>();
  const accountOf = async (request: RestRequest): Promise<SiteAccount> => {
    const known = accounts.get(request);
    if (known) return known;
    const a = await findSiteAccount(kit.db, Number(request.get('id')));
    if (!a) throw new RestError('rest_user_invalid_id', 'Invalid user ID.', 404);
    return a;
  };

  const itemPermission = async (request: RestRequest, a: SiteAccount): Promise<boolean> => {
    const self = request.user?.id === a.id;
    accounts.set(request, a);
    if (request.get('context') === 'edit' && !self && !request.can('list_users')) {
      // WordPress 6.1 names the edit context's refusal by the context.
      throw denied(request, 'rest_forbidden_context', 'Sorry, you are not allowed to list users.');
    }
    if (!self && !request.can('list_users') && !(await hasPublished(a.id))) {
      throw denied(request, 'rest_user_cannot_view', 'Sorry, you are not allowed to list users.');
    }
    return true;
  };

  const list: Record<string, ArgSchema> = {
    ...collectionArgs({ order: 'asc' }),
    orderby: {
      description: 'Sort collection by user attribute.',
      type: 'string',
      default: 'name',
      enum: ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'],
    },
    slug: {
      description: 'Limit result set to users with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    },
    roles: {
      description: 'Limit result set to users matching at least one specific role provided.',
      type: 'array',
      items: { type: 'string' },
    },
    capabilities: {
      description:
        'Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.',
      type: 'array',
      items: { type: 'string' },
    },
    who: {
      description: 'Limit result set to users who are considered authors.',
      type: 'string',
      enum: ['authors'],
    },
    has_published_posts: {
      description: 'Limit result set to users who have published posts.',
      type: ['boolean', 'array'],
      items: { type: 'string' },
    },
  };
  kit.rest.register(
    'wp/v2',
    '/users',
    {
      methods: READABLE,
      args: list,
      // get_items_permissions_check, in WordPress's order.
      permission: (r) => {
        if (r.has('roles') && !r.can('list_users')) {
          throw denied(
            r,
            'rest_user_cannot_view',
            'Sorry, you are not allowed to filter users by role.',
          );
        }
        if (r.has('capabilities') && !r.can('list_users')) {
          throw denied(
            r,
            'rest_user_cannot_view',
            'Sorry, you are not allowed to filter users by capability.',
          );
        }
        if (r.get('context') === 'edit' && !r.can('list_users')) {
          throw denied(r, 'rest_forbidden_context', 'Sorry, you are not allowed to list users.');
        }
        if (
          ['email', 'registered_date'].includes(r.get<string>('orderby')) &&
          !r.can('list_users')
        ) {
          throw denied(
            r,
            'rest_forbidden_orderby',
            'Sorry, you are not allowed to order users by this parameter.',
          );
        }
        // `who=authors` for those who may write an item of a type with authors (edit_posts or
        // edit_pages).
        if (r.get('who') === 'authors' && !AUTHORED_TYPES.some((t) => r.can(t.caps.edit))) {
          throw denied(
            r,
            'rest_forbidden_who',
            'Sorry, you are not allowed to query users by this parameter.',
          );
        }
        return true;
      },
      callback: async (r) => {
        const perPage = r.get<number>('per_page');
        const page = r.get<number>('page');
        const orderby = r.get<string>('orderby');
        const { total, items } = await listSiteAccounts(kit.db, {
          include: r.get<number[]>('include'),
          exclude: r.get<number[]>('exclude'),
          search: r.get<string | undefined>('search') || undefined,
          searchAllColumns: r.can('list_users'),
          roles: r.get<string[] | undefined>('roles'),
          anyRoleOf: holdingRoles(
            r.get('who') === 'authors' ? AUTHOR_ROLES : undefined,
            r.get<string[] | undefined>('capabilities'),
          ),
          // In the query, so that the total counts what is listed.
          slugs: r.get<string[] | undefined>('slug'),
          // who=authors replaces the published-posts limit (its permission check comes first).
          publishedOnly:
            (!r.can('list_users') && r.get('who') !== 'authors') ||
            Boolean(r.get('has_published_posts')),
          order: r.get('order'),
          orderby:
            orderby === 'registered_date'
              ? 'registered_date'
              : orderby === 'id'
                ? 'id'
                : orderby === 'include'
                  ? 'include'
                  : 'name',
          limit: perPage,
          // WP_User_Query: a given offset replaces the page's start.
          offset: r.get<number | undefined>('offset') ?? (page - 1) * perPage,
        });
        const data = items.map((a) => present(a, r.get<Context>('context')));
        const offset = r.get<number | undefined>('offset');
        if (!offset) {
          return collectionResponse(
            r,
            kit.urls,
            data,
            total,
            perPage,
            'rest_user_invalid_page_number',
          );
        }
        // WordPress counts the page from a given offset (ceil(offset / per_page) + 1) for its
        // prev/next links, and refuses no page past the end then.
        const response = collectionResponse(withPage(r, 1), kit.urls, data, total, perPage);
        delete response.headers.Link;
        const offsetPage = Math.ceil(offset / perPage + 1);
        const maxPages = Math.ceil(total / perPage);
        const links: string[] = [];
        if (offsetPage > 1) {
          links.push(`<${pageUrl(r, kit.urls, Math.min(offsetPage - 1, maxPages))}>; rel="prev"`);
        }
        if (maxPages > offsetPage) {
          links.push(`<${pageUrl(r, kit.urls, offsetPage + 1)}>; rel="next"`);
        }
        if (links.length > 0) response.headers.Link = links.join(', ');
        return response;
      },
    },
    { schema: () => USER_SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    '/users/(?P<id>[\\d]+)',
    {
      methods: READABLE,
      args: {
        id: { description: 'Unique identifier for the user.', type: 'integer' },
        context: contextArg(),
      },
      permission: async (r) => itemPermission(r, await accountOf(r)),
      callback: async (r) => present(await accountOf(r), r.get<Context>('context')),
    },
    { schema: () => USER_SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    '/users/me',
    {
      methods: READABLE,
      args: { context: contextArg() },
      // get_current_item has no permission callback (so Allow lists GET for anyone): it refuses
      // an anonymous caller itself.
      callback: async (r) => {
        if (!r.user)
          throw new RestError('rest_not_logged_in', 'You are not currently logged in.', 401);
        return present((await findSiteAccount(kit.db, r.user.id))!, r.get<Context>('context'));
      },
    },
    { schema: () => USER_SCHEMA },
  );
  registerUserWriteEndpoints(kit, USER_SCHEMA, present);
}
