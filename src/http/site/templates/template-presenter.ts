import { gmtDate, localDate } from '../../../domain/content/site-dates.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import type { BlockTemplate } from '../../../domain/templates/block-templates.js';
import { CURIES, filterByContext, resourceSchema, type Context } from '../rest/rest-helpers.js';
import type { SchemaType } from '../rest/arg-schema.js';
import type { SiteUrls } from '../site-urls.js';

const ALL = ['view', 'edit', 'embed'];
const EDIT = ['edit'];
/**
 * WordPress 6.1 types has_theme_file and is_custom as `bool`, which is no JSON Schema type; the
 * schema is shown as WordPress shows it. Both are read-only, so never validated against it.
 */
const PHP_BOOL = 'bool' as unknown as SchemaType;

/** WP_REST_Templates_Controller::get_item_schema, by context. */
export const TEMPLATE_SCHEMA = resourceSchema('wp_template', {
  id: { type: 'string', context: ALL, readonly: true },
  slug: { type: 'string', context: ALL, minLength: 1, pattern: '[a-zA-Z0-9_\\%-]+' },
  theme: { type: 'string', context: ALL },
  type: { type: 'string', context: ALL, readonly: true },
  source: { type: 'string', context: ALL, readonly: true },
  // (null for a theme's own file, but typed as WordPress types it, as are wp_id's.)
  origin: { type: 'string', context: ALL, readonly: true },
  content: {
    type: ['object', 'string'],
    context: ALL,
    properties: {
      raw: { type: 'string', context: EDIT },
      block_version: { type: 'integer', context: EDIT, readonly: true },
    },
  },
  title: {
    type: ['object', 'string'],
    context: ALL,
    properties: {
      raw: { type: 'string', context: ['view', 'edit', 'embed'] },
      rendered: { type: 'string', context: ALL, readonly: true },
    },
  },
  description: { type: 'string', context: ALL },
  status: {
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private', 'trash'],
    context: ALL,
  },
  wp_id: { type: 'integer', context: ALL, readonly: true },
  has_theme_file: { type: PHP_BOOL, context: ALL, readonly: true },
  author: { type: 'integer', context: ALL },
  modified: { type: ['string', 'null'], context: ['view', 'edit'], readonly: true },
  is_custom: { type: PHP_BOOL, context: ALL, readonly: true },
  author_text: { type: 'string', context: ALL, readonly: true },
  original_source: { type: 'string', context: ALL, readonly: true },
});

/** `theme//slug` in a URL: the slashes stay, the rest percent-encoded. */
export function templatePath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}

export function prepareTemplate(
  urls: SiteUrls,
  t: BlockTemplate,
  context: Context,
): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: t.id,
    theme: t.theme,
    content: { raw: t.content, block_version: t.content.includes('<!-- wp:') ? 1 : 0 },
    slug: t.slug,
    source: t.source,
    origin: t.origin,
    type: 'wp_template',
    description: t.description,
    title: { raw: t.title, rendered: t.title },
    status: t.status,
    wp_id: t.wpId,
    has_theme_file: t.hasThemeFile,
    author: t.author,
    modified: t.modified ? localDate(t.modified) : null,
    is_custom: t.isCustom,
    author_text: t.source === 'theme' ? t.theme : '',
    original_source: t.source === 'theme' || t.origin === 'theme' ? 'theme' : 'user',
  };
  const out = filterByContext(data, TEMPLATE_SCHEMA, context);
  out._links = {
    self: [{ href: urls.rest(`/wp/v2/templates/${templatePath(t.id)}`) }],
    collection: [{ href: urls.rest('/wp/v2/templates') }],
    about: [{ href: urls.rest('/wp/v2/types/wp_template') }],
    curies: CURIES,
  };
  return out;
}

/** A template's revision or autosave (WP_REST_Revisions_Controller for templates). */
export function prepareTemplateRevision(
  urls: SiteUrls,
  template: BlockTemplate,
  r: SitePost,
): Record<string, unknown> {
  const date = r.dateGmt ?? r.modifiedGmt;
  return {
    author: r.author,
    date: localDate(date),
    date_gmt: gmtDate(date),
    id: r.id,
    modified: localDate(r.modifiedGmt),
    modified_gmt: gmtDate(r.modifiedGmt),
    parent: template.wpId,
    slug: template.slug,
    title: { raw: r.title, rendered: r.title },
    content: { raw: r.content, block_version: r.content.includes('<!-- wp:') ? 1 : 0 },
    _links: {
      parent: [{ href: urls.rest(`/wp/v2/templates/${templatePath(template.id)}`) }],
    },
  };
}
