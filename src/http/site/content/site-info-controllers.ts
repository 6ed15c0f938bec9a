import { POST_STATUSES } from '../../../domain/content/post-types.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import {
  contextArg,
  CURIES,
  denied,
  filterByContext,
  resourceSchema,
  type Context,
} from '../rest/rest-helpers.js';
import {
  REST_POST_TYPES,
  REST_TAXONOMIES,
  type RestPostType,
  type RestTaxonomy,
} from './wp-registry.js';

const VEE = ['view', 'edit', 'embed'] as const;
const VE = ['view', 'edit'] as const;
const E = ['edit'] as const;

const TYPE_SCHEMA = resourceSchema('type', {
  capabilities: { type: 'object', context: E, readonly: true },
  description: { type: 'string', context: ['view', 'edit'], readonly: true },
  hierarchical: { type: 'boolean', context: ['view', 'edit'], readonly: true },
  viewable: { type: 'boolean', context: E, readonly: true },
  labels: { type: 'object', context: E, readonly: true },
  name: { type: 'string', context: VEE, readonly: true },
  slug: { type: 'string', context: VEE, readonly: true },
  supports: { type: 'object', context: E, readonly: true },
  has_archive: { type: ['string', 'boolean'], context: ['view', 'edit'], readonly: true },
  taxonomies: {
    type: 'array',
    items: { type: 'string' },
    context: ['view', 'edit'],
    readonly: true,
  },
  rest_base: { type: 'string', context: VEE, readonly: true },
  rest_namespace: { type: 'string', context: VEE, readonly: true },
  visibility: {
    type: 'object',
    context: E,
    readonly: true,
    properties: {
      show_in_nav_menus: { type: 'boolean' },
      show_ui: { type: 'boolean' },
    },
  },
  icon: { type: ['string', 'null'], context: VEE, readonly: true },
});

const TAXONOMY_SCHEMA = resourceSchema('taxonomy', {
  capabilities: { type: 'object', context: E, readonly: true },
  description: { type: 'string', context: ['view', 'edit'], readonly: true },
  hierarchical: { type: 'boolean', context: ['view', 'edit'], readonly: true },
  labels: { type: 'object', context: E, readonly: true },
  name: { type: 'string', context: VEE, readonly: true },
  slug: { type: 'string', context: VEE, readonly: true },
  show_cloud: { type: 'boolean', context: E, readonly: true },
  types: { type: 'array', items: { type: 'string' }, context: ['view', 'edit'], readonly: true },
  rest_base: { type: 'string', context: VEE, readonly: true },
  rest_namespace: { type: 'string', context: VEE, readonly: true },
  visibility: {
    type: 'object',
    context: E,
    readonly: true,
    properties: {
      public: { type: 'boolean' },
      publicly_queryable: { type: 'boolean' },
      show_ui: { type: 'boolean' },
      show_admin_column: { type: 'boolean' },
      show_in_nav_menus: { type: 'boolean' },
      show_in_quick_edit: { type: 'boolean' },
    },
  },
});

const STATUS_SCHEMA = resourceSchema('status', {
  name: { type: 'string', context: VEE, readonly: true },
  private: { type: 'boolean', context: E, readonly: true },
  protected: { type: 'boolean', context: E, readonly: true },
  public: { type: 'boolean', context: VE, readonly: true },
  queryable: { type: 'boolean', context: VE, readonly: true },
  show_in_list: { type: 'boolean', context: E, readonly: true },
  slug: { type: 'string', context: VEE, readonly: true },
  date_floating: { type: 'boolean', context: VE, readonly: true },
});

/** Whether the caller may edit items of any type the REST API shows (WordPress's loop over them). */
function editsAnyType(r: RestRequest): boolean {
  return REST_POST_TYPES.some((t) => r.can(t.capabilities.edit_posts!));
}

/** A list's permission: its edit context only for whoever edits some type (`message` if not). */
function editContextForEditors(message: string): (r: RestRequest) => boolean {
  return (r) => {
    if (r.get('context') === 'edit' && !editsAnyType(r)) {
      throw denied(r, 'rest_cannot_view', message);
    }
    return true;
  };
}

/**
 * /wp/v2/types, /wp/v2/taxonomies and /wp/v2/statuses: what block editors read on start, with
 * WordPress 6.1's permission rules (WP_REST_Post_Types_Controller, WP_REST_Taxonomies_Controller,
 * WP_REST_Post_Statuses_Controller): the edit context lists only the types a caller may edit and
 * the taxonomies whose terms they may assign; statuses other than `publish` only to editors.
 */
export function registerSiteInfoRoutes(kit: SiteKit): void {
  const { urls } = kit;
  /** A type's or a taxonomy's links: the list it is in, and its items' route. */
  const registryLinks = (collection: string, restBase: string) => ({
    collection: [{ href: urls.rest(collection) }],
    'wp:items': [{ href: urls.rest(`/wp/v2/${restBase}`) }],
    curies: CURIES,
  });
  const typeData = (t: RestPostType, context: Context) => {
    const data = filterByContext(
      {
        capabilities: t.capabilities,
        description: t.description,
        hierarchical: t.hierarchical,
        viewable: t.viewable,
        labels: t.labels,
        name: t.labels.name,
        slug: t.slug,
        supports: t.supports,
        has_archive: t.hasArchive,
        taxonomies: t.taxonomies,
        rest_base: t.restBase,
        rest_namespace: 'wp/v2',
        visibility: t.visibility,
        icon: t.icon,
      },
      TYPE_SCHEMA,
      context,
    );
    data._links = registryLinks('/wp/v2/types', t.restBase);
    return data;
  };
  kit.rest.register(
    'wp/v2',
    '/types',
    {
      methods: READABLE,
      args: { context: contextArg() },
      permission: editContextForEditors(
        'Sorry, you are not allowed to edit posts in this post type.',
      ),
      callback: (r) => {
        const context = r.get<Context>('context');
        return Object.fromEntries(
          REST_POST_TYPES.filter(
            (t) => context !== 'edit' || r.can(t.capabilities.edit_posts!),
          ).map((t) => [t.slug, typeData(t, context)]),
        );
      },
    },
    { schema: () => TYPE_SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    '/types/(?P<type>[\\w-]+)',
    {
      methods: READABLE,
      args: {
        type: { description: 'An alphanumeric identifier for the post type.', type: 'string' },
        context: contextArg(),
      },
      // No permission callback (WordPress has none): the edit context is refused by the item.
      callback: (r) => {
        const t = REST_POST_TYPES.find((x) => x.slug === r.get<string>('type'));
        if (!t) throw new RestError('rest_type_invalid', 'Invalid post type.', 404);
        const context = r.get<Context>('context');
        if (context === 'edit' && !r.can(t.capabilities.edit_posts!)) {
          throw denied(
            r,
            'rest_forbidden_context',
            'Sorry, you are not allowed to edit posts in this post type.',
          );
        }
        return typeData(t, context);
      },
    },
    { schema: () => TYPE_SCHEMA },
  );

  const taxonomyData = (t: RestTaxonomy, context: Context) => {
    const data = filterByContext(
      {
        capabilities: t.capabilities,
        description: t.description,
        hierarchical: t.hierarchical,
        labels: t.labels,
        name: t.labels.name,
        slug: t.slug,
        show_cloud: t.showCloud,
        types: t.types,
        rest_base: t.restBase,
        rest_namespace: 'wp/v2',
        visibility: t.visibility,
      },
      TAXONOMY_SCHEMA,
      context,
    );
    data._links = registryLinks('/wp/v2/taxonomies', t.restBase);
    return data;
  };
  /** get_object_taxonomies( type ) when a type is asked for, else every taxonomy. */
  const taxonomiesFor = (r: RestRequest) => {
    const type = r.get<string | undefined>('type');
    return type ? REST_TAXONOMIES.filter((t) => t.types.includes(type)) : REST_TAXONOMIES;
  };
  const forbiddenTerms = 'Sorry, you are not allowed to manage terms in this taxonomy.';
  kit.rest.register(
    'wp/v2',
    '/taxonomies',
    {
      methods: READABLE,
      args: {
        context: contextArg(),
        type: {
          description: 'Limit results to taxonomies associated with a specific post type.',
          type: 'string',
        },
      },
      permission: (r) => {
        if (r.get('context') === 'edit' && !taxonomiesFor(r).some((t) => r.can(t.assignCap))) {
          throw denied(r, 'rest_cannot_view', forbiddenTerms);
        }
        return true;
      },
      callback: (r) => {
        const context = r.get<Context>('context');
        return Object.fromEntries(
          taxonomiesFor(r)
            .filter((t) => context !== 'edit' || r.can(t.assignCap))
            .map((t) => [t.slug, taxonomyData(t, context)]),
        );
      },
    },
    { schema: () => TAXONOMY_SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    '/taxonomies/(?P<taxonomy>[\\w-]+)',
    {
      methods: READABLE,
      args: {
        taxonomy: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string' },
        context: contextArg(),
      },
      permission: (r) => {
        const t = REST_TAXONOMIES.find((x) => x.slug === r.get('taxonomy'));
        if (t && r.get('context') === 'edit' && !r.can(t.assignCap)) {
          throw denied(r, 'rest_forbidden_context', forbiddenTerms);
        }
        return true;
      },
      callback: (r) => {
        const t = REST_TAXONOMIES.find((x) => x.slug === r.get('taxonomy'));
        if (!t) throw new RestError('rest_taxonomy_invalid', 'Invalid taxonomy.', 404);
        return taxonomyData(t, r.get<Context>('context'));
      },
    },
    { schema: () => TAXONOMY_SCHEMA },
  );

  const statusData = (slug: string, context: Context) => {
    const s = POST_STATUSES[slug]!;
    const data = filterByContext(
      {
        name: s.name,
        private: s.private,
        protected: s.protected,
        public: s.public,
        queryable: s.queryable,
        show_in_list: s.showInList,
        slug,
        date_floating: s.dateFloating,
      },
      STATUS_SCHEMA,
      context,
    );
    data._links = { archives: [{ href: urls.rest('/wp/v2/posts', { status: slug }) }] };
    return data;
  };
  /** check_read_permission: public statuses for anyone, the others for whoever edits a type. */
  const mayReadStatus = (r: RestRequest, slug: string) =>
    POST_STATUSES[slug]!.public || editsAnyType(r);
  kit.rest.register(
    'wp/v2',
    '/statuses',
    {
      methods: READABLE,
      args: { context: contextArg() },
      permission: editContextForEditors('Sorry, you are not allowed to manage post statuses.'),
      callback: (r) =>
        Object.fromEntries(
          Object.keys(POST_STATUSES)
            .filter((s) => mayReadStatus(r, s))
            .map((s) => [s, statusData(s, r.get<Context>('context'))]),
        ),
    },
    { schema: () => STATUS_SCHEMA },
  );
  kit.rest.register(
    'wp/v2',
    '/statuses/(?P<status>[\\w-]+)',
    {
      methods: READABLE,
      args: {
        status: { description: 'An alphanumeric identifier for the status.', type: 'string' },
        context: contextArg(),
      },
      permission: (r) => {
        const status = r.get<string>('status');
        if (!POST_STATUSES[status])
          throw new RestError('rest_status_invalid', 'Invalid status.', 404);
        if (!mayReadStatus(r, status))
          throw denied(r, 'rest_cannot_read_status', 'Cannot view status.');
        return true;
      },
      callback: (r) => statusData(r.get<string>('status'), r.get<Context>('context')),
    },
    { schema: () => STATUS_SCHEMA },
  );
}
