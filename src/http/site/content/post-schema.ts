import type { ArgSchema } from '../rest/arg-schema.js';
import { WRITABLE_STATUSES, type PostTypeInfo } from '../../../domain/content/post-types.js';
import { resourceSchema, type ResourceSchema } from '../rest/rest-helpers.js';
import { taxonomyRestBase } from './wp-registry.js';

const VEE = ['view', 'edit', 'embed'] as const;
const VE = ['view', 'edit'] as const;
const E = ['edit'] as const;

export const POST_FORMATS = [
  'standard',
  'aside',
  'chat',
  'gallery',
  'link',
  'image',
  'quote',
  'status',
  'video',
  'audio',
];

/**
 * The `orderby` values of get_collection_params for posts (and attachments, whose controller
 * extends it); hierarchical types add `menu_order`.
 */
export const POST_ORDERBY = [
  'author',
  'date',
  'id',
  'include',
  'modified',
  'parent',
  'relevance',
  'slug',
  'include_slugs',
  'title',
] as const;

/** A post's `guid`, raw and rendered: the posts schema's and its revisions' (revisionSchema). */
export const POST_GUID: ArgSchema = {
  description: 'The globally unique identifier for the post.',
  type: 'object',
  context: VE,
  readonly: true,
  properties: {
    raw: {
      description: 'GUID for the post, as it exists in the database.',
      type: 'string',
      context: E,
      readonly: true,
    },
    rendered: {
      description: 'GUID for the post, transformed for display.',
      type: 'string',
      context: VE,
      readonly: true,
    },
  },
};

/** The item schema of a post type (WP_REST_Posts_Controller::get_item_schema, per type). */
export function postSchema(type: PostTypeInfo): ResourceSchema {
  const s = type.supports;
  const p: Record<string, ArgSchema> = {
    date: {
      description: "The date the post was published, in the site's timezone.",
      type: ['string', 'null'],
      format: 'date-time',
      context: VEE,
    },
    date_gmt: {
      description: 'The date the post was published, as GMT.',
      type: ['string', 'null'],
      format: 'date-time',
      context: VE,
    },
    guid: POST_GUID,
    id: {
      description: 'Unique identifier for the post.',
      type: 'integer',
      context: VEE,
      readonly: true,
    },
    link: {
      description: 'URL to the post.',
      type: 'string',
      format: 'uri',
      context: VEE,
      readonly: true,
    },
    modified: {
      description: "The date the post was last modified, in the site's timezone.",
      type: 'string',
      format: 'date-time',
      context: VE,
      readonly: true,
    },
    modified_gmt: {
      description: 'The date the post was last modified, as GMT.',
      type: 'string',
      format: 'date-time',
      context: VE,
      readonly: true,
    },
    slug: {
      description: 'An alphanumeric identifier for the post unique to its type.',
      type: 'string',
      context: VEE,
    },
    status: {
      description: 'A named status for the post.',
      type: 'string',
      enum: WRITABLE_STATUSES,
      context: VE,
    },
    type: { description: 'Type of post.', type: 'string', context: VEE, readonly: true },
    password: {
      description: 'A password to protect access to the content and excerpt.',
      type: 'string',
      context: E,
    },
    permalink_template: {
      description: 'Permalink template for the post.',
      type: 'string',
      context: E,
      readonly: true,
    },
    generated_slug: {
      description: 'Slug automatically generated from the post title.',
      type: 'string',
      context: E,
      readonly: true,
    },
  };
  if (type.hierarchical) {
    p.parent = { description: 'The ID for the parent of the post.', type: 'integer', context: VE };
  }
  if (s.title) {
    p.title = {
      description: 'The title for the post.',
      type: 'object',
      context: VEE,
      properties: {
        raw: {
          description: 'Title for the post, as it exists in the database.',
          type: 'string',
          context: E,
        },
        rendered: {
          description: 'HTML title for the post, transformed for display.',
          type: 'string',
          context: VEE,
          readonly: true,
        },
      },
    };
  }
  if (s.editor) {
    p.content = {
      description: 'The content for the post.',
      type: 'object',
      context: VE,
      properties: {
        raw: {
          description: 'Content for the post, as it exists in the database.',
          type: 'string',
          context: E,
        },
        rendered: {
          description: 'HTML content for the post, transformed for display.',
          type: 'string',
          context: VE,
          readonly: true,
        },
        block_version: {
          description: 'Version of the content block format used by the post.',
          type: 'integer',
          context: E,
          readonly: true,
        },
        protected: {
          description: 'Whether the content is protected with a password.',
          type: 'boolean',
          context: VEE,
          readonly: true,
        },
      },
    };
  }
  if (s.author)
    p.author = { description: 'The ID for the author of the post.', type: 'integer', context: VEE };
  if (s.excerpt) {
    p.excerpt = {
      description: 'The excerpt for the post.',
      type: 'object',
      context: VEE,
      properties: {
        raw: {
          description: 'Excerpt for the post, as it exists in the database.',
          type: 'string',
          context: E,
        },
        rendered: {
          description: 'HTML excerpt for the post, transformed for display.',
          type: 'string',
          context: VEE,
          readonly: true,
        },
        protected: {
          description: 'Whether the excerpt is protected with a password.',
          type: 'boolean',
          context: VEE,
          readonly: true,
        },
      },
    };
  }
  if (s.thumbnail)
    p.featured_media = {
      description: 'The ID of the featured media for the post.',
      type: 'integer',
      context: VEE,
    };
  if (s.comments) {
    p.comment_status = {
      description: 'Whether or not comments are open on the post.',
      type: 'string',
      enum: ['open', 'closed'],
      context: VE,
    };
    p.ping_status = {
      description: 'Whether or not the post can be pinged.',
      type: 'string',
      enum: ['open', 'closed'],
      context: VE,
    };
  }
  if (type.hierarchical)
    p.menu_order = {
      description: 'The order of the post in relation to other posts.',
      type: 'integer',
      context: VE,
    };
  if (s['post-formats'])
    p.format = {
      description: 'The format for the post.',
      type: 'string',
      enum: POST_FORMATS,
      context: VE,
    };
  const metaProps: Record<string, ArgSchema> =
    type.type === 'wp_block'
      ? {
          wp_pattern_sync_status: {
            type: 'string',
            description: 'Whether the pattern is synced.',
            default: '',
            enum: ['partial', 'unsynced', ''],
          },
          footnotes: { type: 'string', description: '', default: '' },
        }
      : {
          _wp_changed: { type: 'boolean', description: '', default: false },
          ...(type.type === 'post'
            ? { footnotes: { type: 'string', description: '', default: '' } }
            : {}),
        };
  p.meta = { description: 'Meta fields.', type: 'object', context: VE, properties: metaProps };
  if (type.type === 'post')
    p.sticky = {
      description: 'Whether or not the post should be treated as sticky.',
      type: 'boolean',
      context: VE,
    };
  p.template = {
    description: 'The theme file to use to display the post.',
    type: 'string',
    context: VE,
  };
  for (const taxonomy of type.taxonomies) {
    p[taxonomyRestBase(taxonomy)] = {
      description: `The terms assigned to the post in the ${taxonomy} taxonomy.`,
      type: 'array',
      items: { type: 'integer' },
      context: VE,
    };
  }
  if (type.type === 'wp_block') {
    // Reusable blocks carry raw content and title in every context; clients render them.
    const title = p.title!.properties!;
    title.raw = { ...title.raw!, context: VE };
    delete title.rendered;
    const content = p.content!.properties!;
    content.raw = { ...content.raw!, context: VE };
    delete content.rendered;
    delete p.excerpt;
  }
  // Only for types one can view (is_post_type_viewable): not reusable blocks.
  if (!type.viewable) {
    delete p.permalink_template;
    delete p.generated_slug;
  }
  return Object.assign(resourceSchema(type.type, p), { links: schemaLinks(type) });
}

/**
 * get_schema_links: the wp:action-* relations an item may carry in the edit context, each with
 * the field it unlocks (the block editor reads them from OPTIONS).
 */
export function schemaLinks(
  type: Pick<PostTypeInfo, 'type' | 'restBase' | 'supports' | 'taxonomies'>,
): Array<Record<string, unknown>> {
  // Relative: the schema is built without the site address (WordPress writes rest_url()).
  const href = `/wp-json/wp/v2/${type.restBase}/{id}`;
  const link = (action: string, title: string, properties: Record<string, unknown>) => ({
    rel: `https://api.w.org/action-${action}`,
    title,
    href,
    targetSchema: { type: 'object', properties },
  });
  const links = [
    link('publish', 'The current user can publish this post.', {
      status: { type: 'string', enum: ['publish', 'future'] },
    }),
    link('unfiltered-html', 'The current user can post unfiltered HTML markup and JavaScript.', {
      content: { raw: { type: 'string' } },
    }),
  ];
  if (type.type === 'post') {
    links.push(
      link('sticky', 'The current user can sticky this post.', { sticky: { type: 'boolean' } }),
    );
  }
  if (type.supports.author) {
    links.push(
      link('assign-author', 'The current user can change the author on this post.', {
        author: { type: 'integer' },
      }),
    );
  }
  for (const taxonomy of type.taxonomies) {
    const base = taxonomyRestBase(taxonomy);
    const list = { [base]: { type: 'array', items: { type: 'integer' } } };
    links.push(
      link(
        `assign-${base}`,
        `The current user can assign terms in the ${taxonomy} taxonomy.`,
        list,
      ),
      link(
        `create-${base}`,
        `The current user can create terms in the ${taxonomy} taxonomy.`,
        list,
      ),
    );
  }
  return links;
}

/** The properties that are not read-only, each without its `context`. */
export function writableProperties(
  properties: Record<string, ArgSchema>,
): Record<string, ArgSchema> {
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, prop]) => !prop.readonly)
      .map(([key, { context: _context, ...arg }]) => [key, arg]),
  );
}

/**
 * The write args of an item schema (get_endpoint_args_for_item_schema): every property that is
 * not read-only; `title`, `content` and `excerpt` also accept a plain string.
 */
export function writeArgs(schema: ResourceSchema, creating: boolean): Record<string, ArgSchema> {
  const args = writableProperties(schema.properties);
  for (const [key, arg] of Object.entries(args)) {
    if (arg.properties) {
      arg.properties = writableProperties(arg.properties);
      if (key === 'title' || key === 'content' || key === 'excerpt')
        arg.type = ['object', 'string'];
    }
    if (!creating) delete arg.default;
  }
  return args;
}
