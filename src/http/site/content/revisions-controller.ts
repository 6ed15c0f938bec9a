import { canDeletePost, canEditPost } from '../../../domain/content/capabilities.js';
import {
  deletePost,
  getPost,
  listAutosaves,
  listPosts,
  saveAutosave,
  updatePost,
  type PostOrderBy,
} from '../../../domain/content/posts-store.js';
import { gmtDate, localDate } from '../../../domain/content/site-dates.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import { texturize } from '../../../domain/content/texturize.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { CREATABLE, DELETABLE, READABLE } from '../rest/route-registry.js';
import { RestController } from '../rest/rest-controller.js';
import type { SiteKit } from '../site-kit.js';
import { POST_GUID, writeArgs } from './post-schema.js';
import type { PostsController } from './posts-controller.js';
import {
  collectionArgs,
  collectionResponse,
  type Context,
  contextArg,
  denied,
  refuseUnchangedAutosave,
  filterByContext,
  resourceSchema,
  type ResourceSchema,
  userIdOf,
} from '../rest/rest-helpers.js';

const VEE = ['view', 'edit', 'embed'] as const;
const VE = ['view', 'edit'] as const;

/**
 * WP_REST_Revisions_Controller::get_item_schema: its own properties, and `title`, `content`,
 * `excerpt` as the parent type's schema has them (a block's title and content with `raw` in the
 * view context and no `rendered`, no excerpt); the autosaves controller adds `preview_link`.
 * `guid` is a post's (POST_GUID) unless given (a type whose schema has none to lend it).
 */
export function revisionSchema(
  parent: ResourceSchema,
  typeName: string,
  autosave: boolean,
  guid: ArgSchema = POST_GUID,
): ResourceSchema {
  const props: Record<string, ArgSchema> = {
    author: {
      description: 'The ID for the author of the revision.',
      type: 'integer',
      context: VEE,
    },
    date: {
      description: "The date the revision was published, in the site's timezone.",
      type: 'string',
      format: 'date-time',
      context: VEE,
    },
    date_gmt: {
      description: 'The date the revision was published, as GMT.',
      type: 'string',
      format: 'date-time',
      context: VE,
    },
    guid,
    id: { description: 'Unique identifier for the revision.', type: 'integer', context: VEE },
    modified: {
      description: "The date the revision was last modified, in the site's timezone.",
      type: 'string',
      format: 'date-time',
      context: VE,
    },
    modified_gmt: {
      description: 'The date the revision was last modified, as GMT.',
      type: 'string',
      format: 'date-time',
      context: VE,
    },
    parent: {
      description: 'The ID for the parent of the revision.',
      type: 'integer',
      context: VEE,
    },
    slug: {
      description: 'An alphanumeric identifier for the revision unique to its type.',
      type: 'string',
      context: VEE,
    },
  };
  for (const key of ['title', 'content', 'excerpt'] as const) {
    const fromParent = parent.properties[key];
    if (fromParent) props[key] = fromParent;
  }
  if (autosave) {
    props.preview_link = {
      description: 'Preview link for the post.',
      type: 'string',
      format: 'uri',
      context: ['edit'],
      readonly: true,
    };
  }
  // The autosaves controller shows the revisions controller's schema title.
  return resourceSchema(`${typeName}-revision`, props);
}

/**
 * What the revisions and autosaves controllers share: the item a route names, of the type whose
 * revisions they serve, and a revision or autosave of that item.
 */
export abstract class ItemRevisionsController extends RestController {
  /** The type of the items whose revisions (and autosaves) the routes serve. */
  protected abstract readonly parentType: string;

  /** The item named by `param` (a URL parameter, else an argument), or 404. */
  protected async parentOf(request: RestRequest, param: string): Promise<SitePost> {
    const parent = await getPost(
      this.kit.db,
      Number(request.urlParams[param] ?? request.get(param)),
    );
    if (!parent || parent.type !== this.parentType) {
      throw new RestError('rest_post_invalid_parent', 'Invalid post parent ID.', 404);
    }
    return parent;
  }

  /** The revision (`autosave`: the autosave) named by `id` of the item named by `parent`. */
  protected async revisionOf(request: RestRequest, autosave: boolean): Promise<SitePost> {
    const parent = await this.parentOf(request, 'parent');
    const revision = await getPost(this.kit.db, Number(request.get('id')));
    if (!revision || revision.type !== 'revision' || revision.isAutosave !== autosave) {
      throw new RestError(
        'rest_post_invalid_id',
        autosave ? 'Invalid autosave ID.' : 'Invalid revision ID.',
        404,
      );
    }
    if (revision.parent !== parent.id) {
      throw new RestError(
        'rest_revision_parent_id_mismatch',
        `The revision does not belong to the specified parent with id of "${parent.id}"`,
        404,
      );
    }
    return revision;
  }

  /** The fields every revision and autosave shows first: the revisions controller's, the title. */
  protected revisionFields(post: SitePost): Record<string, unknown> {
    const date = post.dateGmt ?? post.modifiedGmt;
    return {
      author: post.author,
      date: localDate(date),
      date_gmt: gmtDate(date),
      // WP_REST_Revisions_Controller: {rendered, raw}, raw in the edit context only.
      guid: {
        rendered: this.kit.urls.page(`/?p=${post.id}`),
        raw: this.kit.urls.page(`/?p=${post.id}`),
      },
      id: post.id,
      modified: localDate(post.modifiedGmt),
      modified_gmt: gmtDate(post.modifiedGmt),
      parent: post.parent,
      slug: post.slug,
      title: { raw: post.title, rendered: texturize(post.title) },
    };
  }
}

/**
 * WP_REST_Revisions_Controller and WP_REST_Autosaves_Controller for one post type: revisions are
 * listed newest first and deleted only with force; an autosave by the author of a draft updates
 * the draft, any other autosave is stored once per user with `parent` = the item.
 */
export class RevisionsController extends ItemRevisionsController {
  /** The revisions' schema (the autosaves' routes show their own). */
  readonly schema: ResourceSchema;
  protected readonly parentType: string;
  private readonly revisionSchema: ResourceSchema;
  private readonly autosaveSchema: ResourceSchema;

  constructor(
    kit: SiteKit,
    private readonly posts: PostsController,
  ) {
    super(kit);
    this.parentType = posts.type.type;
    this.revisionSchema = revisionSchema(posts.schema, posts.type.type, false);
    this.schema = this.revisionSchema;
    this.autosaveSchema = revisionSchema(posts.schema, posts.type.type, true);
  }

  register(): void {
    const base = `/${this.posts.type.restBase}`;
    const parentArg: ArgSchema = {
      description: 'The ID for the parent of the revision.',
      type: 'integer',
    };
    if (this.posts.type.revisions) {
      this.route(
        `${base}/(?P<parent>[\\d]+)/revisions`,
        {
          methods: READABLE,
          args: {
            parent: parentArg,
            ...collectionArgs({ order: 'desc', perPage: null }),
            orderby: {
              description: 'Sort collection by object attribute.',
              type: 'string',
              default: 'date',
              enum: ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'],
            },
          },
          permission: (r) => this.readPermission(r, 'parent', 'revisions'),
          callback: (r) => this.listRevisions(r),
        },
        { schema: () => this.revisionSchema },
      );
      this.route(
        `${base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)`,
        [
          {
            methods: READABLE,
            args: {
              parent: parentArg,
              id: { description: 'Unique identifier for the revision.', type: 'integer' },
              context: contextArg(),
            },
            permission: (r) => this.readPermission(r, 'parent', 'revisions'),
            callback: async (r) =>
              this.present(await this.revisionOf(r, false), r, r.get<Context>('context'), false),
          },
          {
            methods: DELETABLE,
            args: {
              parent: parentArg,
              id: { description: 'Unique identifier for the revision.', type: 'integer' },
              force: {
                type: 'boolean',
                default: false,
                description: 'Required to be true, as revisions do not support trashing.',
              },
            },
            permission: (r) => this.deletePermission(r),
            callback: (r) => this.deleteRevision(r),
          },
        ],
        { schema: () => this.revisionSchema },
      );
    }
    if (this.posts.type.autosaves) {
      this.route(
        `${base}/(?P<id>[\\d]+)/autosaves`,
        [
          {
            methods: READABLE,
            args: { parent: parentArg, context: contextArg() },
            permission: (r) => this.readPermission(r, 'id', 'autosaves'),
            callback: (r) => this.listAutosaves(r),
          },
          {
            methods: CREATABLE,
            args: { parent: parentArg, ...writeArgs(this.posts.schema, false) },
            permission: (r) => this.autosavePermission(r),
            callback: (r) => this.createAutosave(r),
          },
        ],
        { schema: () => this.autosaveSchema },
      );
      this.route(
        `${base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)`,
        {
          methods: READABLE,
          args: {
            parent: parentArg,
            id: { description: 'The ID for the autosave.', type: 'integer' },
            context: contextArg(),
          },
          permission: (r) => this.readPermission(r, 'parent', 'autosaves'),
          callback: async (r) =>
            this.present(await this.revisionOf(r, true), r, r.get<Context>('context'), true),
        },
        { schema: () => this.autosaveSchema },
      );
    }
  }

  /** get_items_permissions_check: edit_post on the item whose revisions or autosaves are read. */
  private async readPermission(
    request: RestRequest,
    param: string,
    what: 'revisions' | 'autosaves',
  ): Promise<boolean> {
    const parent = await this.parentOf(request, param);
    if (!canEditPost(request.user, parent, this.posts.type)) {
      const message = `Sorry, you are not allowed to view ${what} of this post.`;
      throw denied(request, 'rest_cannot_read', message);
    }
    return true;
  }

  /**
   * delete_item_permissions_check, in WordPress's order: the parent, delete_post on the parent,
   * the revision, read access to the revisions, then delete_post on the revision, which
   * WordPress's capability mapping never grants (do_not_allow): a revision is never deleted
   * through the API, by any role, with or without `force`.
   */
  private async deletePermission(request: RestRequest): Promise<boolean> {
    const parent = await this.parentOf(request, 'parent');
    if (!canDeletePost(request.user, parent, this.posts.type)) {
      throw denied(
        request,
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete revisions of this post.',
      );
    }
    const revision = await this.revisionOf(request, false);
    await this.readPermission(request, 'parent', 'revisions');
    if (!canDeletePost(request.user, revision, this.posts.type)) {
      throw denied(
        request,
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete this revision.',
      );
    }
    return true;
  }

  private async present(
    revision: SitePost,
    request: RestRequest,
    context: Context,
    autosave: boolean,
  ): Promise<Record<string, unknown>> {
    const rendered = await this.posts.presenter.renderedContent(revision);
    const parentLink = this.kit.urls.rest(`/wp/v2/${this.posts.type.restBase}/${revision.parent}`);
    const data: Record<string, unknown> = {
      ...this.revisionFields(revision),
      // WP_REST_Revisions_Controller 6.1: raw and rendered only (no protected, no block_version).
      content: { raw: revision.content, rendered },
    };
    // Only the schema's fields (get_fields_for_response): a block's revision has no excerpt.
    if ((autosave ? this.autosaveSchema : this.revisionSchema).properties.excerpt) {
      data.excerpt = {
        raw: revision.excerpt,
        rendered: revision.excerpt ? texturize(revision.excerpt) : '',
      };
    }
    if (autosave) {
      // get_preview_post_link: the parent's permalink (pretty when it has one) with the
      // preview arguments added (add_query_arg).
      const isRevision = revision.type === 'revision';
      const parent = isRevision ? await getPost(this.kit.db, revision.parent) : revision;
      const link = parent ? await this.posts.presenter.links.linkOf(parent) : this.kit.urls.site;
      const args = isRevision
        ? `preview_id=${revision.parent}&preview_nonce=${revision.id}&preview=true`
        : 'preview=true';
      data.preview_link = `${link}${link.includes('?') ? '&' : '?'}${args}`;
    }
    void request;
    const filtered = filterByContext(
      data,
      autosave ? this.autosaveSchema : this.revisionSchema,
      context,
    );
    filtered._links = { parent: [{ href: parentLink }] };
    return filtered;
  }

  private async listRevisions(request: RestRequest): Promise<RestResponse> {
    const parent = await this.parentOf(request, 'parent');
    const perPage = request.get<number | undefined>('per_page');
    const page = request.get<number>('page');
    const limit = perPage ?? 1000;
    const requestedOffset = request.get<number | undefined>('offset');
    // Without per_page WordPress's query is unpaged (posts_per_page -1): WP_Query then ignores
    // offset and page, and every revision comes back (the offset is still checked below).
    const offset = perPage === undefined ? 0 : (requestedOffset ?? (page - 1) * perPage);
    const { total, items } = await listPosts(this.kit.db, {
      types: ['revision'],
      parents: [parent.id],
      autosave: false,
      search: request.get<string | undefined>('search') || undefined,
      include: request.get<number[]>('include'),
      exclude: request.get<number[]>('exclude'),
      orderby: request.get<PostOrderBy>('orderby'),
      order: request.get<'asc' | 'desc'>('order'),
      limit,
      offset,
    });
    if (total > 0 && requestedOffset !== undefined && requestedOffset >= total) {
      throw new RestError(
        'rest_revision_invalid_offset_number',
        'The offset number requested is larger than or equal to the number of available revisions.',
        400,
      );
    }
    const context = request.get<Context>('context');
    const data = await Promise.all(items.map((r) => this.present(r, request, context, false)));
    return collectionResponse(
      request,
      this.kit.urls,
      data,
      total,
      perPage ?? Math.max(total, 1),
      'rest_revision_invalid_page_number',
    );
  }

  /**
   * WordPress's delete_item, kept as it is: the permission check above refuses every caller
   * today (delete_post on a revision is never granted), so this runs only if that mapping changes.
   */
  private async deleteRevision(request: RestRequest): Promise<unknown> {
    const revision = await this.revisionOf(request, false);
    if (!request.get<boolean>('force')) {
      throw new RestError(
        'rest_trash_not_supported',
        "Revisions do not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const previous = await this.present(revision, request, 'edit', false);
    await deletePost(this.kit.db, revision.id);
    return { deleted: true, previous };
  }

  private async listAutosaves(request: RestRequest): Promise<unknown> {
    const parent = await this.parentOf(request, 'id');
    const items = await listAutosaves(this.kit.db, parent.id, 1000);
    const context = request.get<Context>('context');
    return Promise.all(items.map((r) => this.present(r, request, context, true)));
  }

  /**
   * WordPress's autosaves controller asks the parent's update_item_permissions_check: an
   * autosave may set nothing (author, sticky, terms) that a direct update would refuse.
   */
  private async autosavePermission(request: RestRequest): Promise<boolean> {
    return this.posts.updatePermission(request);
  }

  private async createAutosave(request: RestRequest): Promise<unknown> {
    const parent = await this.parentOf(request, 'id');
    const now = new Date(this.kit.clock());
    const user = userIdOf(request);
    const f = await this.posts.fieldsOf(request, parent);
    if ((parent.status === 'draft' || parent.status === 'auto-draft') && parent.author === user) {
      // The author's own draft: the autosave is the draft itself (no revision). Its status and
      // stickiness stay: WordPress's autosave saves neither (sticky is no post field there).
      const { status: _status, sticky: _sticky, ...rest } = f;
      void _status;
      void _sticky;
      const updated = (await updatePost(this.kit.db, parent.id, rest, now))!;
      return this.present(updated, request, 'edit', true);
    }
    const fields = {
      title: f.title ?? parent.title,
      content: f.content ?? parent.content,
      excerpt: f.excerpt ?? parent.excerpt,
      meta: f.meta,
    };
    if (
      fields.title === parent.title &&
      fields.content === parent.content &&
      fields.excerpt === parent.excerpt
    ) {
      await refuseUnchangedAutosave(this.kit.db, parent.id, user);
    }
    const autosave = await saveAutosave(this.kit.db, parent, user, fields, now);
    return new RestResponse(await this.present(autosave, request, 'edit', true), 200);
  }
}
