import { POST_STATUSES, POST_TYPES } from '../../content/post-types.js';
import { RestError } from '../rest/rest-error.js';
import { READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import {
  contextArg,
  CURIES,
  denied,
  filterByContext,
  resourceSchema,
  type Context,
} from './rest-helpers.js';
import { TAXONOMIES } from './terms-controller.js';

const VEE = ['view', 'edit', 'embed'] as const;
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
  visibility: { type: 'object', context: E, readonly: true },
});

const STATUS_SCHEMA = resourceSchema('status', {
  name: { type: 'string', context: VEE, readonly: true },
  private: { type: 'boolean', context: E, readonly: true },
  protected: { type: 'boolean', context: E, readonly: true },
  public: { type: 'boolean', context: VEE, readonly: true },
  queryable: { type: 'boolean', context: VEE, readonly: true },
  show_in_list: { type: 'boolean', context: E, readonly: true },
  slug: { type: 'string', context: VEE, readonly: true },
  date_floating: { type: 'boolean', context: VEE, readonly: true },
});

/** /wp/v2/types, /wp/v2/taxonomies and /wp/v2/statuses: what block editors read on start. */
export function registerSiteInfoRoutes(kit: SiteKit): void {
  const { urls } = kit;
  const editContext = (
    r: import('../rest/rest-request.js').RestRequest,
    cap: string,
    what: string,
  ) => {
    if (r.get('context') === 'edit' && !r.can(cap)) {
      throw denied(r, 'rest_forbidden_context', `Sorry, you are not allowed to manage ${what}.`);
    }
    return true;
  };
  const typeData = (key: string, context: Context) => {
    const t = POST_TYPES[key]!;
    const data = filterByContext(
      {
        capabilities: t.caps,
        description: t.description,
        hierarchical: t.hierarchical,
        viewable: t.viewable,
        labels: { name: t.name, singular_name: t.singular },
        name: t.name,
        slug: t.type,
        supports: t.supports,
        has_archive: false,
        taxonomies: t.taxonomies,
        rest_base: t.restBase,
        rest_namespace: 'wp/v2',
        visibility: { show_in_nav_menus: t.viewable, show_ui: true },
        icon: null,
      },
      TYPE_SCHEMA,
      context,
    );
    data._links = {
      collection: [{ href: urls.rest('/wp/v2/types') }],
      'wp:items': [{ href: urls.rest(`/wp/v2/${t.restBase}`) }],
      curies: CURIES,
    };
    return data;
  };
  kit.rest.register(
    'wp/v2',
    '/types',
    {
      methods: READABLE,
      args: { context: contextArg() },
      permission: (r) => editContext(r, 'edit_posts', 'post types'),
      callback: (r) =>
        Object.fromEntries(
          Object.keys(POST_TYPES).map((k) => [k, typeData(k, r.get<Context>('context'))]),
        ),
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
      permission: (r) => editContext(r, 'edit_posts', 'post types'),
      callback: (r) => {
        const key = r.get<string>('type');
        if (!POST_TYPES[key]) throw new RestError('rest_type_invalid', 'Invalid post type.', 404);
        return typeData(key, r.get<Context>('context'));
      },
    },
    { schema: () => TYPE_SCHEMA },
  );

  const taxonomyData = (taxonomy: string, context: Context) => {
    const t = TAXONOMIES.find((x) => x.taxonomy === taxonomy)!;
    const data = filterByContext(
      {
        capabilities: {
          manage_terms: t.manageCap,
          edit_terms: t.manageCap,
          delete_terms: t.manageCap,
          assign_terms: 'edit_posts',
        },
        description: t.description,
        hierarchical: t.hierarchical,
        labels: { name: t.name, singular_name: t.singular },
        name: t.name,
        slug: t.taxonomy,
        show_cloud: t.taxonomy === 'post_tag',
        types: t.types,
        rest_base: t.restBase,
        rest_namespace: 'wp/v2',
        visibility: { public: t.readCap === null, show_ui: true },
      },
      TAXONOMY_SCHEMA,
      context,
    );
    data._links = {
      collection: [{ href: urls.rest('/wp/v2/taxonomies') }],
      'wp:items': [{ href: urls.rest(`/wp/v2/${t.restBase}`) }],
      curies: CURIES,
    };
    return data;
  };
  const visibleTaxonomies = (r: import('../rest/rest-request.js').RestRequest) =>
    TAXONOMIES.filter((t) => t.readCap === null || r.can(t.readCap));
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
      permission: (r) => editContext(r, 'edit_posts', 'terms in this taxonomy'),
      callback: (r) =>
        Object.fromEntries(
          visibleTaxonomies(r)
            .filter((t) => !r.has('type') || t.types.includes(r.get<string>('type')))
            .map((t) => [t.taxonomy, taxonomyData(t.taxonomy, r.get<Context>('context'))]),
        ),
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
      permission: (r) => editContext(r, 'edit_posts', 'terms in this taxonomy'),
      callback: (r) => {
        const t = visibleTaxonomies(r).find((x) => x.taxonomy === r.get('taxonomy'));
        if (!t) throw new RestError('rest_taxonomy_invalid', 'Invalid taxonomy.', 404);
        return taxonomyData(t.taxonomy, r.get<Context>('context'));
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
  const visibleStatuses = (r: import('../rest/rest-request.js').RestRequest) =>
    Object.keys(POST_STATUSES).filter((s) => s === 'publish' || r.can('edit_posts'));
  kit.rest.register(
    'wp/v2',
    '/statuses',
    {
      methods: READABLE,
      args: { context: contextArg() },
      callback: (r) =>
        Object.fromEntries(
          visibleStatuses(r).map((s) => [s, statusData(s, r.get<Context>('context'))]),
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
      callback: (r) => {
        const status = r.get<string>('status');
        if (!POST_STATUSES[status])
          throw new RestError('rest_status_invalid', 'Invalid status.', 404);
        if (!visibleStatuses(r).includes(status))
          throw denied(r, 'rest_cannot_read_status', 'Cannot view status.');
        return statusData(status, r.get<Context>('context'));
      },
    },
    { schema: () => STATUS_SCHEMA },
  );
}
