import { PAGE_SUPPORTS, POST_SUPPORTS } from '../../../domain/content/post-types.js';
import {
  FLAT_TAXONOMY_LABELS,
  FLAT_TYPE_LABELS,
  HIERARCHICAL_TAXONOMY_LABELS,
  HIERARCHICAL_TYPE_LABELS,
  TAXONOMY_LABELS,
  TYPE_LABELS,
  type Labels,
} from './wp-labels.js';

/**
 * The post types and taxonomies as WordPress 6.1 registers them for the REST API
 * (/wp/v2/types, /wp/v2/taxonomies): what block editors read on start. Every type WordPress
 * shows is here, the attachment, template, template part and navigation types too, so a client
 * sees the same registry as on WordPress. The site's own behaviour per type (statuses, trash,
 * revisions) is in src/domain/content/post-types.ts; this is its description to clients.
 */
export interface RestPostType {
  slug: string;
  description: string;
  hierarchical: boolean;
  hasArchive: boolean;
  icon: string | null;
  restBase: string;
  taxonomies: string[];
  /** get_all_post_type_supports as WordPress 6.1 reports it. */
  supports: Record<string, true>;
  viewable: boolean;
  visibility: { show_in_nav_menus: boolean; show_ui: boolean };
  /** The type's `cap` object: meta and primitive capability names, as WordPress maps them. */
  capabilities: Record<string, string>;
  labels: Labels;
}

export interface RestTaxonomy {
  slug: string;
  description: string;
  hierarchical: boolean;
  restBase: string;
  types: string[];
  showCloud: boolean;
  visibility: {
    public: boolean;
    publicly_queryable: boolean;
    show_admin_column: boolean;
    show_in_nav_menus: boolean;
    show_in_quick_edit: boolean;
    show_ui: boolean;
  };
  capabilities: Record<string, string>;
  /**
   * The primitive capability behind `manage_terms`, which creating, editing and deleting terms
   * take (map_meta_cap: manage_post_tags is manage_categories).
   */
  manageCap: string;
  /**
   * The primitive capability behind `assign_terms` (map_meta_cap: assign_categories and
   * assign_post_tags need edit_posts; the menus' assign_terms is edit_theme_options itself).
   */
  assignCap: string;
  labels: Labels;
}

/** get_post_type_capabilities for a capability_type, with the type's own capabilities over it. */
function typeCaps(
  singular: string,
  plural: string,
  own: Record<string, string> = {},
): Record<string, string> {
  return {
    edit_post: `edit_${singular}`,
    read_post: `read_${singular}`,
    delete_post: `delete_${singular}`,
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    delete_posts: `delete_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
    read: 'read',
    delete_private_posts: `delete_private_${plural}`,
    delete_published_posts: `delete_published_${plural}`,
    delete_others_posts: `delete_others_${plural}`,
    edit_private_posts: `edit_private_${plural}`,
    edit_published_posts: `edit_published_${plural}`,
    create_posts: own.edit_posts ?? `edit_${plural}`,
    ...own,
  };
}

/** What the theme-owned types (menu items, templates, navigation) map every capability to. */
function themeOptions(keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, 'edit_theme_options']));
}

const THEME_CAPS = [
  'create_posts',
  'delete_posts',
  'delete_others_posts',
  'delete_private_posts',
  'delete_published_posts',
  'edit_posts',
  'edit_others_posts',
  'edit_private_posts',
  'edit_published_posts',
  'publish_posts',
  'read_private_posts',
];

const HIDDEN = { show_in_nav_menus: false, show_ui: false };

/** Templates' and template parts' own capabilities: edit_theme_options for each, reading too. */
const TEMPLATE_CAPS = { ...themeOptions(THEME_CAPS), read: 'edit_theme_options' };

const TEMPLATE_SUPPORTS: Record<string, true> = {
  title: true,
  slug: true,
  excerpt: true,
  editor: true,
  revisions: true,
  author: true,
};

function labelsOf(slug: string, hierarchical: boolean): Labels {
  return {
    ...(hierarchical ? HIERARCHICAL_TYPE_LABELS : FLAT_TYPE_LABELS),
    ...TYPE_LABELS[slug],
  };
}

type TypeSettings = Omit<RestPostType, 'labels' | 'description' | 'hasArchive' | 'hierarchical'> &
  Partial<Pick<RestPostType, 'description' | 'hierarchical'>>;

function postType(settings: TypeSettings): RestPostType {
  const hierarchical = settings.hierarchical ?? false;
  return {
    description: '',
    hasArchive: false,
    ...settings,
    hierarchical,
    labels: labelsOf(settings.slug, hierarchical),
  };
}

/** In WordPress's registration order (create_initial_post_types). */
export const REST_POST_TYPES: RestPostType[] = [
  postType({
    slug: 'post',
    icon: 'dashicons-admin-post',
    restBase: 'posts',
    taxonomies: ['category', 'post_tag'],
    supports: POST_SUPPORTS,
    viewable: true,
    visibility: { show_in_nav_menus: true, show_ui: true },
    capabilities: typeCaps('post', 'posts'),
  }),
  postType({
    slug: 'page',
    hierarchical: true,
    icon: 'dashicons-admin-page',
    restBase: 'pages',
    taxonomies: [],
    supports: PAGE_SUPPORTS,
    viewable: true,
    visibility: { show_in_nav_menus: true, show_ui: true },
    capabilities: typeCaps('page', 'pages'),
  }),
  postType({
    slug: 'attachment',
    icon: 'dashicons-admin-media',
    restBase: 'media',
    taxonomies: [],
    supports: { title: true, author: true, comments: true },
    viewable: true,
    visibility: { show_in_nav_menus: false, show_ui: true },
    capabilities: typeCaps('post', 'posts', { create_posts: 'upload_files' }),
  }),
  postType({
    slug: 'nav_menu_item',
    icon: null,
    restBase: 'menu-items',
    taxonomies: ['nav_menu'],
    supports: { title: true, editor: true },
    viewable: false,
    visibility: HIDDEN,
    capabilities: typeCaps('post', 'posts', themeOptions(THEME_CAPS)),
  }),
  postType({
    slug: 'wp_block',
    icon: null,
    restBase: 'blocks',
    // The spec's pattern categories (WordPress 6.3); 6.1's blocks have no taxonomy.
    taxonomies: ['wp_pattern_category'],
    supports: { title: true, editor: true, revisions: true },
    viewable: false,
    visibility: { show_in_nav_menus: false, show_ui: true },
    // "You need to be able to edit posts, in order to read blocks in their raw form", and to
    // publish posts to create them.
    capabilities: typeCaps('block', 'blocks', {
      read: 'edit_posts',
      create_posts: 'publish_posts',
      edit_posts: 'edit_posts',
      edit_published_posts: 'edit_published_posts',
      delete_published_posts: 'delete_published_posts',
      edit_others_posts: 'edit_others_posts',
      delete_others_posts: 'delete_others_posts',
    }),
  }),
  postType({
    slug: 'wp_template',
    description: 'Templates to include in your theme.',
    icon: null,
    restBase: 'templates',
    taxonomies: [],
    supports: TEMPLATE_SUPPORTS,
    viewable: false,
    visibility: HIDDEN,
    capabilities: typeCaps('template', 'templates', TEMPLATE_CAPS),
  }),
  postType({
    slug: 'wp_template_part',
    description: 'Template parts to include in your templates.',
    icon: null,
    restBase: 'template-parts',
    taxonomies: [],
    supports: TEMPLATE_SUPPORTS,
    viewable: false,
    visibility: HIDDEN,
    capabilities: typeCaps('template_part', 'template_parts', TEMPLATE_CAPS),
  }),
  postType({
    slug: 'wp_navigation',
    description: 'Navigation menus that can be inserted into your site.',
    icon: null,
    restBase: 'navigation',
    taxonomies: [],
    supports: { title: true, editor: true, revisions: true },
    viewable: false,
    visibility: { show_in_nav_menus: false, show_ui: true },
    capabilities: typeCaps('post', 'posts', themeOptions(THEME_CAPS)),
  }),
];

const SHOWN = {
  public: true,
  publicly_queryable: true,
  show_admin_column: true,
  show_in_nav_menus: true,
  show_in_quick_edit: true,
  show_ui: true,
};

/** The categories' capabilities, which the pattern categories take too. */
const CATEGORY_CAPS = {
  manage_terms: 'manage_categories',
  edit_terms: 'edit_categories',
  delete_terms: 'delete_categories',
  assign_terms: 'assign_categories',
};

function taxonomy(settings: Omit<RestTaxonomy, 'labels' | 'description'>): RestTaxonomy {
  return {
    description: '',
    ...settings,
    labels: {
      ...(settings.hierarchical ? HIERARCHICAL_TAXONOMY_LABELS : FLAT_TAXONOMY_LABELS),
      ...TAXONOMY_LABELS[settings.slug],
    },
  };
}

/** In WordPress's registration order (create_initial_taxonomies), the spec's pattern categories last. */
export const REST_TAXONOMIES: RestTaxonomy[] = [
  taxonomy({
    slug: 'category',
    hierarchical: true,
    restBase: 'categories',
    types: ['post'],
    showCloud: true,
    visibility: SHOWN,
    capabilities: CATEGORY_CAPS,
    manageCap: 'manage_categories',
    assignCap: 'edit_posts',
  }),
  taxonomy({
    slug: 'post_tag',
    hierarchical: false,
    restBase: 'tags',
    types: ['post'],
    showCloud: true,
    visibility: SHOWN,
    capabilities: {
      manage_terms: 'manage_post_tags',
      edit_terms: 'edit_post_tags',
      delete_terms: 'delete_post_tags',
      assign_terms: 'assign_post_tags',
    },
    manageCap: 'manage_categories',
    assignCap: 'edit_posts',
  }),
  taxonomy({
    slug: 'nav_menu',
    hierarchical: false,
    restBase: 'menus',
    types: ['nav_menu_item'],
    showCloud: false,
    visibility: {
      public: false,
      publicly_queryable: false,
      show_admin_column: false,
      show_in_nav_menus: false,
      show_in_quick_edit: false,
      show_ui: false,
    },
    capabilities: {
      manage_terms: 'edit_theme_options',
      edit_terms: 'edit_theme_options',
      delete_terms: 'edit_theme_options',
      assign_terms: 'edit_theme_options',
    },
    manageCap: 'edit_theme_options',
    assignCap: 'edit_theme_options',
  }),
  // The spec's pattern categories (WordPress 6.3's registration; 6.1 has none).
  taxonomy({
    slug: 'wp_pattern_category',
    hierarchical: false,
    restBase: 'wp_pattern_category',
    types: ['wp_block'],
    showCloud: false,
    visibility: {
      public: false,
      publicly_queryable: false,
      show_admin_column: true,
      show_in_nav_menus: false,
      show_in_quick_edit: true,
      show_ui: true,
    },
    capabilities: CATEGORY_CAPS,
    manageCap: 'manage_categories',
    assignCap: 'edit_posts',
  }),
];

/** A taxonomy's REST base (rest_get_route_for_term), which also names an item's terms of it. */
export function taxonomyRestBase(taxonomy: string): string {
  return REST_TAXONOMIES.find((t) => t.slug === taxonomy)?.restBase ?? taxonomy;
}
