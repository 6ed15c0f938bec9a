import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { DELETABLE, EDITABLE, READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import {
  collectionResponse,
  contextArg,
  denied,
  ID_LIST,
  PAGE_ARG,
  perPageArg,
  resourceSchema,
} from '../rest/rest-helpers.js';
import { avatarUrlsSchema } from './user-schema.js';

const VEE = ['view', 'edit', 'embed'] as const;
const VE = ['view', 'edit'] as const;
const EVE = ['embed', 'view', 'edit'] as const;

const CONTENT: ArgSchema = {
  description: 'The content for the comment.',
  type: 'object',
  properties: {
    raw: {
      description: 'Content for the comment, as it exists in the database.',
      type: 'string',
      context: ['edit'],
    },
    rendered: {
      description: 'HTML content for the comment, transformed for display.',
      type: 'string',
      context: VEE,
      readonly: true,
    },
  },
};

/** WP_REST_Comments_Controller's item schema. */
const COMMENT_SCHEMA = resourceSchema('comment', {
  id: {
    description: 'Unique identifier for the comment.',
    type: 'integer',
    context: VEE,
    readonly: true,
  },
  author: {
    description: 'The ID of the user object, if author was a user.',
    type: 'integer',
    context: VEE,
  },
  author_email: {
    description: 'Email address for the comment author.',
    type: 'string',
    format: 'email',
    context: ['edit'],
  },
  author_ip: {
    description: 'IP address for the comment author.',
    type: 'string',
    format: 'ip',
    context: ['edit'],
  },
  author_name: {
    description: 'Display name for the comment author.',
    type: 'string',
    context: VEE,
  },
  author_url: {
    description: 'URL for the comment author.',
    type: 'string',
    format: 'uri',
    context: VEE,
  },
  author_user_agent: {
    description: 'User agent for the comment author.',
    type: 'string',
    context: ['edit'],
  },
  content: { ...CONTENT, context: VEE },
  date: {
    description: "The date the comment was published, in the site's timezone.",
    type: 'string',
    format: 'date-time',
    context: VEE,
  },
  date_gmt: {
    description: 'The date the comment was published, as GMT.',
    type: 'string',
    format: 'date-time',
    context: VE,
  },
  link: {
    description: 'URL to the comment.',
    type: 'string',
    format: 'uri',
    context: VEE,
    readonly: true,
  },
  parent: {
    description: 'The ID for the parent of the comment.',
    type: 'integer',
    context: VEE,
    default: 0,
  },
  post: {
    description: 'The ID of the associated post object.',
    type: 'integer',
    context: VE,
    default: 0,
  },
  status: { description: 'State of the comment.', type: 'string', context: VE },
  type: { description: 'Type of the comment.', type: 'string', context: VEE, readonly: true },
  author_avatar_urls: avatarUrlsSchema('Avatar URLs for the comment author.', VEE, EVE),
  meta: { description: 'Meta fields.', type: 'object', context: VE, properties: {} },
});

/** The writing args of a comment: its schema's writable properties. */
function writeArgs(): Record<string, ArgSchema> {
  const out: Record<string, ArgSchema> = {};
  for (const [name, prop] of Object.entries(COMMENT_SCHEMA.properties)) {
    if (prop.readonly) continue;
    const { context: _context, default: _default, ...arg } = prop;
    void _context;
    void _default;
    out[name] = { ...arg, validateFirst: true };
  }
  if (out.content) out.content = { ...CONTENT, validateFirst: true };
  return out;
}

const LIST_ARGS: Record<string, ArgSchema> = {
  context: contextArg(),
  page: PAGE_ARG,
  per_page: perPageArg(10),
  search: {
    description: 'Limit results to those matching a string.',
    type: 'string',
    validateFirst: true,
  },
  after: {
    description: 'Limit response to comments published after a given ISO8601 compliant date.',
    type: 'string',
    format: 'date-time',
  },
  author: {
    description:
      'Limit result set to comments assigned to specific user IDs. Requires authorization.',
    type: 'array',
    items: { type: 'integer' },
  },
  author_exclude: {
    description:
      'Ensure result set excludes comments assigned to specific user IDs. Requires authorization.',
    type: 'array',
    items: { type: 'integer' },
  },
  author_email: {
    description: 'Limit result set to that from a specific author email. Requires authorization.',
    type: 'string',
    format: 'email',
  },
  before: {
    description: 'Limit response to comments published before a given ISO8601 compliant date.',
    type: 'string',
    format: 'date-time',
  },
  exclude: { description: 'Ensure result set excludes specific IDs.', ...ID_LIST },
  include: { description: 'Limit result set to specific IDs.', ...ID_LIST },
  offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
  order: {
    description: 'Order sort attribute ascending or descending.',
    type: 'string',
    default: 'desc',
    enum: ['asc', 'desc'],
  },
  orderby: {
    description: 'Sort collection by comment attribute.',
    type: 'string',
    default: 'date_gmt',
    enum: ['date', 'date_gmt', 'id', 'include', 'post', 'parent', 'type'],
  },
  parent: { description: 'Limit result set to comments of specific parent IDs.', ...ID_LIST },
  parent_exclude: { description: 'Ensure result set excludes specific parent IDs.', ...ID_LIST },
  post: { description: 'Limit result set to comments assigned to specific post IDs.', ...ID_LIST },
  status: {
    description: 'Limit result set to comments assigned a specific status. Requires authorization.',
    type: 'string',
    default: 'approve',
  },
  type: {
    description: 'Limit result set to comments assigned a specific type. Requires authorization.',
    type: 'string',
    default: 'comment',
  },
  password: {
    description: 'The password for the post if it is password protected.',
    type: 'string',
  },
};

/**
 * get_items_permissions_check: the edit context needs `moderate_comments`; filtering by author,
 * e-mail, type or another status needs `edit_posts`.
 */
function mayList(request: RestRequest): true {
  if (request.get('context') === 'edit' && !request.can('moderate_comments')) {
    throw denied(request, 'rest_forbidden_context', 'Sorry, you are not allowed to edit comments.');
  }
  if (!request.can('edit_posts')) {
    const forbidden = ['author', 'author_exclude', 'author_email', 'type', 'status'].filter(
      (name) => {
        const value = request.get(name);
        if (name === 'status') return value !== 'approve';
        if (name === 'type') return value !== 'comment';
        return Array.isArray(value) ? value.length > 0 : Boolean(value);
      },
    );
    if (forbidden.length > 0) {
      throw denied(
        request,
        'rest_forbidden_param',
        `Query parameter not permitted: ${forbidden.join(', ')}`,
      );
    }
  }
  return true;
}

/** get_comment: no comment has the id. */
function noSuchComment(): never {
  throw new RestError('rest_comment_invalid_id', 'Invalid comment ID.', 404);
}

/**
 * /wp/v2/comments and /wp/v2/comments/{id} (WP_REST_Comments_Controller) on a site that keeps
 * no comments: the collection is empty (X-WP-Total 0, X-WP-TotalPages 0) with WordPress's
 * permission checks, every comment id is `rest_comment_invalid_id` (404) whatever the method,
 * and OPTIONS shows the comment schema. No comment can be written, so the collection has no
 * POST.
 */
export function registerCommentsRoutes(kit: SiteKit): void {
  const schema = () => COMMENT_SCHEMA;
  kit.rest.register(
    'wp/v2',
    '/comments',
    {
      methods: READABLE,
      args: LIST_ARGS,
      permission: mayList,
      callback: (request) =>
        collectionResponse(request, kit.urls, [], 0, request.get<number>('per_page')),
    },
    { schema },
  );
  const id: ArgSchema = { description: 'Unique identifier for the comment.', type: 'integer' };
  const password: ArgSchema = {
    description:
      'The password for the parent post of the comment (if the post is password protected).',
    type: 'string',
  };
  kit.rest.register(
    'wp/v2',
    '/comments/(?P<id>[\\d]+)',
    [
      {
        methods: READABLE,
        args: { id, context: contextArg(), password },
        permission: noSuchComment,
        callback: noSuchComment,
      },
      {
        methods: EDITABLE,
        args: { id, ...writeArgs() },
        permission: noSuchComment,
        callback: noSuchComment,
      },
      {
        methods: DELETABLE,
        args: {
          id,
          force: {
            description: 'Whether to bypass Trash and force deletion.',
            type: 'boolean',
            default: false,
          },
          password,
        },
        permission: noSuchComment,
        callback: noSuchComment,
      },
    ],
    { schema },
  );
}
