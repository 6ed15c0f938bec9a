import type { ArgSchema } from '../rest/arg-schema.js';
import { schemaLinks } from '../content/post-schema.js';
import { resourceSchema, type ResourceSchema } from '../rest/rest-helpers.js';

const ALL = ['view', 'edit', 'embed'];
const VIEW_EDIT = ['view', 'edit'];
const EDIT = ['edit'];

const rawRendered = (description: string, context = ALL): ArgSchema => ({
  description,
  type: 'object',
  context,
  properties: {
    raw: { type: 'string', context: EDIT },
    rendered: { type: 'string', context, readonly: true },
  },
});

/**
 * The attachment resource (WP_REST_Attachments_Controller::get_item_schema), by context; its
 * links are the posts' get_schema_links without `publish` (attachments are not published).
 */
const ATTACHMENT_PROPERTIES: Record<string, ArgSchema> = {
  date: { type: ['string', 'null'], format: 'date-time', context: ALL },
  date_gmt: { type: ['string', 'null'], format: 'date-time', context: VIEW_EDIT },
  guid: rawRendered('The globally unique identifier for the post.', VIEW_EDIT),
  id: { type: 'integer', context: ALL, readonly: true },
  link: { type: 'string', format: 'uri', context: ALL, readonly: true },
  modified: { type: 'string', format: 'date-time', context: VIEW_EDIT, readonly: true },
  modified_gmt: { type: 'string', format: 'date-time', context: VIEW_EDIT, readonly: true },
  slug: { type: 'string', context: ALL },
  status: {
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    context: VIEW_EDIT,
  },
  type: { type: 'string', context: ALL, readonly: true },
  permalink_template: { type: 'string', context: EDIT, readonly: true },
  generated_slug: { type: 'string', context: EDIT, readonly: true },
  title: rawRendered('The title for the post.'),
  author: { type: 'integer', context: ALL },
  comment_status: { type: 'string', enum: ['open', 'closed'], context: VIEW_EDIT },
  ping_status: { type: 'string', enum: ['open', 'closed'], context: VIEW_EDIT },
  meta: { type: 'object', context: VIEW_EDIT, properties: {} },
  template: { type: 'string', context: VIEW_EDIT },
  alt_text: { type: 'string', context: ALL },
  caption: rawRendered('The attachment caption.'),
  description: rawRendered('The attachment description.', VIEW_EDIT),
  media_type: { type: 'string', enum: ['image', 'file'], context: ALL, readonly: true },
  mime_type: { type: 'string', context: ALL, readonly: true },
  media_details: { type: 'object', context: ALL, readonly: true },
  post: { type: 'integer', context: VIEW_EDIT },
  source_url: { type: 'string', format: 'uri', context: ALL, readonly: true },
  missing_image_sizes: { type: 'array', items: { type: 'string' }, context: EDIT, readonly: true },
};

export const MEDIA_SCHEMA: ResourceSchema = Object.assign(
  resourceSchema('attachment', ATTACHMENT_PROPERTIES),
  {
    links: schemaLinks({
      type: 'attachment',
      restBase: 'media',
      supports: { author: true },
      taxonomies: [],
    }).filter((l) => l.rel !== 'https://api.w.org/action-publish'),
  },
);

/** What create and update accept (besides the file). */
export const MEDIA_WRITE_ARGS: Record<string, ArgSchema> = {
  date: { type: ['string', 'null'], format: 'date-time' },
  date_gmt: { type: ['string', 'null'], format: 'date-time' },
  slug: { type: 'string' },
  status: { type: 'string', enum: ['publish', 'future', 'draft', 'pending', 'private', 'inherit'] },
  title: { type: ['string', 'object'] },
  author: { type: 'integer' },
  comment_status: { type: 'string', enum: ['open', 'closed'] },
  ping_status: { type: 'string', enum: ['open', 'closed'] },
  meta: { type: 'object' },
  template: { type: 'string' },
  alt_text: { type: 'string' },
  caption: { type: ['string', 'object'] },
  description: { type: ['string', 'object'] },
  post: { type: 'integer' },
};

/** The media_type filter values (mime type families), as the list takes them. */
export const MEDIA_TYPE_FILTERS = ['image', 'video', 'text', 'application', 'audio'] as const;
