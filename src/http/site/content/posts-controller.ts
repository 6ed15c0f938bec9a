import {
  canDeletePost,
  canEditPost,
  canReadPost,
  listAccess,
  postPasswordMatches,
} from '../../../domain/content/capabilities.js';
import {
  INTERNAL_STATUSES,
  WRITABLE_STATUSES,
  type PostTypeInfo,
} from '../../../domain/content/post-types.js';
import {
  deletePost,
  getPost,
  insertPost,
  listPosts,
  saveRevision,
  updatePost,
  type PostListQuery,
  type PostOrderBy,
  type TaxFilter,
} from '../../../domain/content/posts-store.js';
import {
  askedDateGmt,
  newPostFields,
  settlePostFields,
  slugAfterInsert,
  trashFields,
  untrashFields,
  writePublishes,
} from '../../../domain/content/insert-post-rules.js';
import { InvalidSiteDateError, parseSiteDate } from '../../../domain/content/site-dates.js';
import type { SitePost, SitePostFields } from '../../../domain/content/site-post.js';
import { findSiteAccount } from '../../../domain/content/site-users.js';
import { protectedSearchOf } from '../../../domain/content/search-posts.js';
import { ksesPostFields } from '../../../domain/content/kses.js';
import { sanitizeSlug } from '../../../domain/content/slugs.js';
import {
  defaultTermId,
  missingTerms,
  setPostTerms,
  withDescendants,
} from '../../../domain/content/terms-store.js';
import type { Db } from '../../../shared/db/db.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { RestController } from '../rest/rest-controller.js';
import type { SiteKit } from '../site-kit.js';
import { POST_FORMATS, POST_ORDERBY, postSchema, writeArgs } from './post-schema.js';
import { PostPresenter } from './post-presenter.js';
import { taxonomyRestBase } from './wp-registry.js';
import {
  collectionArgs,
  type Context,
  contextArg,
  denied,
  ID_LIST,
  idsWithin,
  integerWithin,
  signedOffset,
  type ResourceSchema,
  userIdOf,
  deletedAnswer,
} from '../rest/rest-helpers.js';

const LIST_STATUSES = [...WRITABLE_STATUSES, 'trash', ...INTERNAL_STATUSES, 'any'];

const TAX_ARG: ArgSchema = {
  type: ['object', 'array'],
  oneOf: [
    { title: 'Term ID List', type: 'array', items: { type: 'integer' } },
    {
      title: 'Term ID Taxonomy Query',
      type: 'object',
      properties: {
        terms: { type: 'array', items: { type: 'integer' }, default: [] },
        include_children: { type: 'boolean', default: false },
        operator: { type: 'string', enum: ['AND', 'OR'], default: 'OR' },
      },
      additionalProperties: false,
    },
  ],
  default: [],
};

/** A taxonomy filter's term ids (a list, or the object form's `terms`) within what ids can be. */
function termIdsWithin(value: unknown): unknown {
  idsWithin(Array.isArray(value) ? value : (value as { terms?: unknown } | undefined)?.terms);
  return value;
}

/** The collection params of a post type (get_collection_params). */
export function postCollectionArgs(type: PostTypeInfo): Record<string, ArgSchema> {
  const orderby: string[] = [...POST_ORDERBY];
  const args: Record<string, ArgSchema> = {
    ...collectionArgs({ order: 'desc', perPage: type.type === 'nav_menu_item' ? 100 : 10 }),
    offset: {
      description: 'Offset the result set by a specific number of items.',
      type: 'integer',
      sanitize: signedOffset,
    },
    after: {
      description: 'Limit response to posts published after a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    modified_after: {
      description: 'Limit response to posts modified after a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    // Only for types with authors (not reusable blocks), as get_collection_params.
    ...(type.supports.author
      ? {
          author: {
            description: 'Limit result set to posts assigned to specific authors.',
            ...ID_LIST,
          },
          author_exclude: {
            description: 'Ensure result set excludes posts assigned to specific authors.',
            ...ID_LIST,
          },
        }
      : {}),
    before: {
      description: 'Limit response to posts published before a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    modified_before: {
      description: 'Limit response to posts modified before a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    search_semantics: {
      description: 'How to interpret the search input.',
      type: 'string',
      enum: ['exact'],
    },
    orderby: {
      description: 'Sort collection by post attribute.',
      type: 'string',
      default: 'date',
      enum: orderby,
    },
    search_columns: {
      description: 'Array of column names to be searched.',
      type: 'array',
      items: { type: 'string', enum: ['post_title', 'post_content', 'post_excerpt'] },
      default: [],
    },
    slug: {
      description: 'Limit result set to posts with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
      // wp_parse_slug_list: each as sanitize_title stores it (高铁 -> %e9%ab%98%e9%93%81).
      sanitize: (value) =>
        Array.isArray(value) ? value.map((v) => sanitizeSlug(String(v))) : value,
    },
    status: {
      description: 'Limit result set to posts assigned one or more statuses.',
      type: 'array',
      items: { type: 'string', enum: LIST_STATUSES },
      default: 'publish',
      sanitize: (value, request) => {
        const list = value as string[];
        for (const status of list) {
          if (status === 'publish') continue;
          if (request.can(type.caps.edit)) continue;
          if (status === 'private' && request.can(type.caps.readPrivate)) continue;
          throw new RestError(
            'rest_forbidden_status',
            'Status is forbidden.',
            request.signedIn ? 403 : 401,
          );
        }
        return list;
      },
    },
  };
  if (type.hierarchical) {
    args.menu_order = {
      description: 'Limit result set to posts with a specific menu_order value.',
      type: 'integer',
      sanitize: integerWithin('menu_order', -2147483648, 2147483647),
    };
    args.parent = {
      description: 'Limit result set to items with particular parent IDs.',
      ...ID_LIST,
    };
    args.parent_exclude = {
      description: 'Limit result set to all items except those of a particular parent ID.',
      ...ID_LIST,
    };
    (args.orderby!.enum as string[]).push('menu_order');
  }
  if (type.taxonomies.length > 0) {
    args.tax_relation = {
      description: 'Limit result set based on relationship between multiple taxonomies.',
      type: 'string',
      enum: ['AND', 'OR'],
    };
    for (const taxonomy of type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      const include: ArgSchema = structuredClone({ ...TAX_ARG, sanitize: undefined });
      if (taxonomy !== 'category') {
        delete (include.oneOf![1]!.properties as Record<string, ArgSchema>).include_children;
      }
      args[base] = {
        description: `Limit result set to items with specific terms assigned in the ${base} taxonomy.`,
        ...include,
        sanitize: termIdsWithin,
      };
      const exclude: ArgSchema = structuredClone(include);
      if (taxonomy !== 'category')
        delete (exclude.oneOf![1]!.properties as Record<string, ArgSchema>).operator;
      args[`${base}_exclude`] = {
        description: `Limit result set to items except those with specific terms assigned in the ${base} taxonomy.`,
        ...exclude,
        sanitize: termIdsWithin,
      };
    }
  }
  if (type.type === 'post') {
    args.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
    args.ignore_sticky = {
      description: 'Whether to ignore sticky posts or not.',
      type: 'boolean',
      default: true,
    };
    args.format = {
      description: 'Limit result set to items assigned one or more given formats.',
      type: 'array',
      uniqueItems: true,
      items: { enum: POST_FORMATS, type: 'string' },
    };
  }
  return args;
}

/** The item a request named, kept between its permission check and its callback. */
const itemCache = new WeakMap<RestRequest, { key: string; post: SitePost }>();

type TaxParam =
  number[] | { terms?: number[]; include_children?: boolean; operator?: 'AND' | 'OR' };

/**
 * WP_REST_Posts_Controller for one post type: list, create, read, update (POST/PUT/PATCH),
 * delete (trash or force), with WordPress's capability checks and error codes.
 */
export class PostsController extends RestController {
  readonly schema: ResourceSchema;
  readonly presenter: PostPresenter;
  private readonly db: Db;

  constructor(
    kit: SiteKit,
    readonly type: PostTypeInfo,
    presenter: (schema: ResourceSchema) => PostPresenter,
  ) {
    super(kit);
    this.db = kit.db;
    this.schema = postSchema(type);
    this.presenter = presenter(this.schema);
  }

  register(): void {
    const excerptArgs: Record<string, ArgSchema> =
      this.type.supports.excerpt || this.type.supports.editor
        ? {
            excerpt_length: {
              description: 'Override the default excerpt length.',
              type: 'integer',
            },
            password: {
              description: 'The password for the post if it is password protected.',
              type: 'string',
            },
          }
        : {};
    this.resourceRoutes(`/${this.type.restBase}`, {
      id: { description: 'Unique identifier for the post.', type: 'integer' },
      forceDescription: 'Whether to bypass Trash and force deletion.',
      list: {
        args: postCollectionArgs(this.type),
        permission: (r) => this.listPermission(r),
        callback: (r) => this.list(r),
      },
      create: {
        args: writeArgs(this.schema, true),
        permission: (r) => this.createPermission(r),
        callback: (r) => this.create(r),
      },
      read: {
        args: { context: contextArg(), ...excerptArgs },
        permission: (r) => this.readPermission(r),
        callback: (r) => this.read(r),
      },
      update: {
        args: writeArgs(this.schema, false),
        permission: (r) => this.updatePermission(r),
        callback: (r) => this.update(r),
      },
      remove: { permission: (r) => this.deletePermission(r), callback: (r) => this.remove(r) },
    });
  }

  private plural(): string {
    return this.type.type === 'page' ? 'pages' : 'posts';
  }

  /** The item of this type named by the `id` URL parameter, or 404 rest_post_invalid_id. */
  async itemOf(request: RestRequest, param = 'id'): Promise<SitePost> {
    // The permission check and the callback read the same item: once per request.
    const key = `${this.type.type}:${String(request.get(param))}`;
    const cached = itemCache.get(request);
    if (cached?.key === key) return cached.post;
    const post = await getPost(this.db, Number(request.get(param)));
    if (!post || post.type !== this.type.type) {
      throw new RestError('rest_post_invalid_id', 'Invalid post ID.', 404);
    }
    itemCache.set(request, { key, post });
    return post;
  }

  private listPermission(request: RestRequest): boolean {
    if (request.get('context') === 'edit' && !request.can(this.type.caps.edit)) {
      throw denied(
        request,
        'rest_forbidden_context',
        `Sorry, you are not allowed to edit ${this.plural()} in this post type.`,
      );
    }
    return true;
  }

  /**
   * get_item_permissions_check: the edit context only for whoever may edit the post; a password,
   * when given, must be the post's whoever asks (an editor's wrong guess is as wrong as anyone's,
   * and a password given for an unprotected post is wrong too); then check_read_permission.
   */
  private async readPermission(request: RestRequest): Promise<boolean> {
    const post = await this.itemOf(request);
    if (request.get('context') === 'edit' && !canEditPost(request.user, post, this.type)) {
      throw denied(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit this post.',
      );
    }
    const password = request.get<string | undefined>('password');
    if (password !== undefined && password !== '' && !postPasswordMatches(post, password)) {
      throw new RestError('rest_post_incorrect_password', 'Incorrect post password.', 403);
    }
    return canReadPost(request.user, post, this.type);
  }

  private async createPermission(request: RestRequest): Promise<boolean> {
    if (request.body.id !== undefined) {
      throw new RestError('rest_post_exists', 'Cannot create existing post.', 400);
    }
    const caps = this.type.caps;
    // `! empty( $request['author'] )`: an empty list (a list's default, when Allow asks) is none.
    const author = request.get<unknown>('author');
    const authorGiven =
      author !== undefined && author !== 0 && !(Array.isArray(author) && author.length === 0);
    if (authorGiven && author !== userIdOf(request) && !request.can(caps.editOthers)) {
      throw denied(
        request,
        'rest_cannot_edit_others',
        'Sorry, you are not allowed to create posts as this user.',
      );
    }
    if (request.get('sticky') === true) this.checkSticky(request);
    if (!request.can(caps.create)) {
      throw denied(
        request,
        'rest_cannot_create',
        'Sorry, you are not allowed to create posts as this user.',
      );
    }
    this.checkAssignTerms(request);
    return true;
  }

  /** update_item_permissions_check (autosaves go through it too, as in WordPress). */
  async updatePermission(request: RestRequest): Promise<boolean> {
    const post = await this.itemOf(request);
    const caps = this.type.caps;
    if (!canEditPost(request.user, post, this.type)) {
      throw denied(request, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    }
    if (
      request.has('author') &&
      request.get('author') !== userIdOf(request) &&
      request.get('author') !== post.author &&
      !request.can(caps.editOthers)
    ) {
      throw denied(
        request,
        'rest_cannot_edit_others',
        'Sorry, you are not allowed to update posts as this user.',
      );
    }
    if (request.has('sticky') && request.get('sticky') !== post.sticky) this.checkSticky(request);
    this.checkAssignTerms(request);
    return true;
  }

  /** Setting `sticky` (to make a post sticky on create, or to change it) takes either capability. */
  private checkSticky(request: RestRequest): void {
    const caps = this.type.caps;
    if (!request.can(caps.editOthers) && !request.can(caps.publish)) {
      throw denied(
        request,
        'rest_cannot_assign_sticky',
        'Sorry, you are not allowed to make posts sticky.',
      );
    }
  }

  private checkAssignTerms(request: RestRequest): void {
    for (const taxonomy of this.type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      if (request.has(base) && !request.can('edit_posts')) {
        throw denied(
          request,
          'rest_cannot_assign_term',
          'Sorry, you are not allowed to assign the provided terms.',
        );
      }
    }
  }

  private async deletePermission(request: RestRequest): Promise<boolean> {
    const post = await this.itemOf(request);
    if (!canDeletePost(request.user, post, this.type)) {
      throw denied(
        request,
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete this post.',
      );
    }
    return true;
  }

  async list(request: RestRequest): Promise<RestResponse> {
    itemCache.delete(request);
    // Only the list's own args are read (get_items maps the registered ones): `sticky` or
    // `parent` sent to a type without them is ignored.
    const perPage = request.arg<number>('per_page');
    const page = request.arg<number>('page');
    const statuses = request.arg<string[]>('status');
    // WP_Query: a given offset replaces the page's start (the page still names the Link pages).
    const offsetGiven = request.arg('offset') !== undefined;
    // WP_Query's absint: offset=-1 lists from the second item.
    const offset = offsetGiven ? Math.abs(request.arg<number>('offset')) : (page - 1) * perPage;
    const include = request.arg<number[]>('include');
    const query: PostListQuery = {
      types: [this.type.type],
      statuses: statuses.includes('any') ? undefined : statuses,
      search: request.arg<string | undefined>('search') || undefined,
      searchColumns: request.arg<string[]>('search_columns'),
      searchExact: request.arg('search_semantics') === 'exact',
      after: this.dateParam(request, 'after'),
      before: this.dateParam(request, 'before'),
      modifiedAfter: this.dateParam(request, 'modified_after'),
      modifiedBefore: this.dateParam(request, 'modified_before'),
      authors: request.arg<number[]>('author'),
      authorExclude: request.arg<number[]>('author_exclude'),
      include,
      // WP_Query reads post__not_in only without post__in.
      exclude: include.length > 0 ? [] : request.arg<number[]>('exclude'),
      parents: request.arg<number[] | undefined>('parent'),
      parentExclude: request.arg<number[] | undefined>('parent_exclude'),
      slugs: request.arg<string[] | undefined>('slug'),
      menuOrder: request.arg<number | undefined>('menu_order'),
      sticky: request.arg<boolean | undefined>('sticky'),
      formats: request.arg<string[] | undefined>('format'),
      stickyFirst:
        this.type.type === 'post' &&
        request.arg('ignore_sticky') === false &&
        request.arg('sticky') === undefined,
      orderby: request.arg<PostOrderBy>('orderby'),
      order: request.arg<'asc' | 'desc'>('order'),
      limit: perPage,
      offset,
    };
    if (query.orderby === 'relevance' && !query.search) {
      throw new RestError(
        'rest_no_search_term_defined',
        'You need to define a search term to order by relevance.',
        400,
      );
    }
    if (query.orderby === 'include' && !query.include?.length) {
      throw new RestError(
        'rest_orderby_include_missing_include',
        'You need to define an include parameter to order by include.',
        400,
      );
    }
    const tax: TaxFilter[] = [];
    const taxExclude: TaxFilter[] = [];
    for (const taxonomy of this.type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      const inc = await this.taxFilter(request.arg<TaxParam | undefined>(base));
      if (inc) tax.push(inc);
      const exc = await this.taxFilter(request.arg<TaxParam | undefined>(`${base}_exclude`));
      if (exc) taxExclude.push(exc);
    }
    query.tax = tax;
    query.taxExclude = taxExclude;
    query.taxRelation = request.arg<'AND' | 'OR' | undefined>('tax_relation') ?? 'AND';
    const context = request.arg<Context>('context');
    // What the caller may read bounds the rows and the totals alike (a total counted before that
    // filter tells what the caller may not see). In the edit context the page then drops what
    // the caller may not edit, as WordPress's get_items does, and the total still counts those
    // readable rows, as WordPress's found_posts does: nothing the caller may not read is counted.
    query.access = listAccess(request.user, this.type, 'read');
    query.protectedSearch = protectedSearchOf(request.user, [this.type]);
    const listed = await listPosts(this.db, query);
    const items = listed.items;
    // WP_Query leaves found_posts at 0 when the page is empty (an offset past the end).
    const total = items.length === 0 && offsetGiven ? 0 : listed.total;
    const visible = items.filter((p) =>
      context === 'edit'
        ? canEditPost(request.user, p, this.type)
        : canReadPost(request.user, p, this.type),
    );
    const data = await this.presenter.prepareMany(visible, request, context);
    return this.collectionResponse(request, data, total, perPage);
  }

  private dateParam(request: RestRequest, name: string): Date | undefined {
    const v = request.get<string | undefined>(name);
    return v ? parseSiteDate(v, name, false) : undefined;
  }

  private async taxFilter(value: TaxParam | undefined): Promise<TaxFilter | undefined> {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value.length ? { terms: value, operator: 'OR' } : undefined;
    const terms = value.terms ?? [];
    if (terms.length === 0) return undefined;
    const ids = value.include_children ? await withDescendants(this.db, terms) : terms;
    return { terms: ids, operator: value.operator === 'AND' ? 'AND' : 'OR' };
  }

  async read(request: RestRequest): Promise<unknown> {
    const post = await this.itemOf(request);
    const data = await this.presenter.prepareOne(post, request, request.get<Context>('context'));
    if (!this.type.viewable) return data;
    // get_item: the HTML page of a viewable item as `Link: <...>; rel="alternate"`.
    const link = await this.presenter.links.linkOf(post);
    return new RestResponse(data, 200, { Link: `<${link}>; rel="alternate"; type="text/html"` });
  }

  /** prepare_item_for_database: the stored fields a create or update asks for. */
  async fieldsOf(request: RestRequest, existing?: SitePost): Promise<SitePostFields> {
    const f: SitePostFields = {};
    const text = (name: string): string | undefined => {
      if (!request.given(name) && !request.has(name)) return undefined;
      const v = request.get<unknown>(name);
      if (v === undefined) return undefined;
      if (typeof v === 'string') return v;
      if (v && typeof v === 'object' && typeof (v as { raw?: unknown }).raw === 'string')
        return (v as { raw: string }).raw;
      return undefined;
    };
    const given = (name: string) => request.given(name);
    if (given('title')) f.title = text('title');
    if (given('content')) f.content = text('content');
    if (given('excerpt')) f.excerpt = text('excerpt');
    if (given('password')) f.password = request.get<string>('password');
    if (given('slug')) f.slug = sanitizeSlug(request.get<string>('slug'));
    if (given('comment_status')) f.commentStatus = request.get<string>('comment_status');
    if (given('ping_status')) f.pingStatus = request.get<string>('ping_status');
    if (given('format')) f.format = request.get<string>('format');
    if (given('sticky')) f.sticky = request.get<boolean>('sticky');
    if (given('template')) f.template = request.get<string>('template');
    if (given('featured_media')) f.featuredMedia = request.get<number>('featured_media');
    if (given('menu_order')) f.menuOrder = request.get<number>('menu_order');
    if (given('meta'))
      f.meta = { ...(existing?.meta ?? {}), ...request.get<Record<string, unknown>>('meta') };
    if (given('parent')) {
      const parent = request.get<number>('parent');
      if (parent > 0) {
        const p = await getPost(this.db, parent);
        if (!p || p.type !== this.type.type || parent === existing?.id) {
          throw new RestError('rest_post_invalid_id', 'Invalid post parent ID.', 400);
        }
      }
      f.parent = parent;
    }
    if (given('author')) {
      const author = request.get<number>('author');
      if (author !== existing?.author && !(await findSiteAccount(this.db, author))) {
        throw new RestError('rest_invalid_author', 'Invalid author ID.', 400);
      }
      f.author = author;
    }
    try {
      const dateGmt = askedDateGmt(
        given('date') ? request.get<string | null>('date') : undefined,
        given('date_gmt') ? request.get<string | null>('date_gmt') : undefined,
      );
      if (dateGmt !== undefined) f.dateGmt = dateGmt;
    } catch (err) {
      if (err instanceof InvalidSiteDateError)
        throw new RestError('rest_invalid_date', 'Invalid date.', 400);
      throw err;
    }
    if (given('status')) f.status = request.get<string>('status');
    const password = f.password ?? existing?.password ?? '';
    const sticky = f.sticky ?? existing?.sticky ?? false;
    if (password !== '' && sticky) {
      throw new RestError(
        'rest_invalid_field',
        'A post can not be sticky and have a password.',
        400,
      );
    }
    // kses_init_filters: without unfiltered_html, HTML is filtered as it is saved (creates,
    // updates and the autosaves that take these fields).
    if (!request.can('unfiltered_html')) ksesPostFields(f);
    return f;
  }

  /** wp_insert_post's rules (insert-post-rules.ts), after the publish capability check. */
  private settle(
    request: RestRequest,
    f: SitePostFields,
    existing: SitePost | undefined,
    now: Date,
  ): SitePostFields {
    const canPublish = request.can(this.type.caps.publish);
    if (writePublishes(f, existing) && !canPublish) {
      throw denied(
        request,
        'rest_cannot_publish',
        'Sorry, you are not allowed to publish posts in this post type.',
      );
    }
    return settlePostFields(f, existing, now, { canPublish });
  }

  async create(request: RestRequest): Promise<RestResponse> {
    const now = new Date(this.kit.clock());
    const asked = await this.fieldsOf(request);
    asked.author ??= userIdOf(request);
    asked.status ??= 'draft';
    const f = this.settle(request, asked, undefined, now);
    await this.checkTerms(request);
    const post = await this.kit.db.transaction(async (tx) => {
      let created = await insertPost(tx, newPostFields(f, this.type.type, now));
      const slug = slugAfterInsert(created);
      if (slug) created = (await updatePost(tx, created.id, { slug }, now))!;
      await this.writeTerms(tx, request, created.id, true);
      // No revision on create: WordPress saves one on update only (wp_save_post_revision_on_insert
      // returns for a new post), so a new post's version-history count is 0.
      return created;
    });
    this.scheduled(post);
    const data = await this.presenter.prepareOne(post, request, 'edit');
    return new RestResponse(data, 201, {
      Location: this.kit.urls.rest(`/wp/v2/${this.type.restBase}/${post.id}`),
    });
  }

  async update(request: RestRequest): Promise<unknown> {
    const existing = await this.itemOf(request);
    const now = new Date(this.kit.clock());
    const asked = untrashFields(await this.fieldsOf(request, existing), existing);
    const f = this.settle(request, asked, existing, now);
    await this.checkTerms(request);
    const post = await this.kit.db.transaction(async (tx) => {
      const updated = (await updatePost(tx, existing.id, f, now))!;
      await this.writeTerms(tx, request, updated.id);
      if (this.type.revisions) await saveRevision(tx, updated, userIdOf(request), now);
      return updated;
    });
    this.scheduled(post);
    return this.presenter.prepareOne(post, request, 'edit');
  }

  /** Tells the scheduled publishing job of an item now scheduled. */
  private scheduled(post: SitePost): void {
    if (post.status === 'future') this.kit.publisher.scheduled(post.dateGmt?.getTime());
  }

  private async checkTerms(request: RestRequest): Promise<void> {
    for (const taxonomy of this.type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      if (!request.given(base)) continue;
      const missing = await missingTerms(this.db, taxonomy, request.get<number[]>(base));
      if (missing.length > 0) {
        throw new RestError('rest_invalid_param', `Invalid parameter(s): ${base}`, {
          status: 400,
          params: { [base]: `Invalid term ID: ${missing[0]}.` },
          details: {
            [base]: {
              code: 'rest_term_invalid',
              message: 'Term does not exist.',
              data: { status: 400 },
            },
          },
        });
      }
    }
  }

  private async writeTerms(
    tx: import('../../../shared/db/db.js').Queryable,
    request: RestRequest,
    postId: number,
    created = false,
  ): Promise<void> {
    for (const taxonomy of this.type.taxonomies) {
      const base = taxonomyRestBase(taxonomy);
      const given = request.given(base) ? request.get<number[]>(base) : undefined;
      if (taxonomy === 'category' && (given ? given.length === 0 : created)) {
        // wp_set_post_categories: a post without categories gets the default one.
        const fallback = await defaultTermId(tx, 'category');
        await setPostTerms(tx, postId, taxonomy, fallback ? [fallback] : []);
      } else if (given) await setPostTerms(tx, postId, taxonomy, given);
    }
  }

  async remove(request: RestRequest): Promise<unknown> {
    const post = await this.itemOf(request);
    const force = request.get<boolean>('force');
    const previous = await this.presenter.prepareOne(post, request, 'edit');
    if (force) {
      await deletePost(this.db, post.id);
      // The answer's Allow asks the permission callbacks again: of an item that is gone now
      // (WordPress sends none), not of the one read before.
      itemCache.delete(request);
      return deletedAnswer(previous);
    }
    if (!this.type.trash) {
      throw new RestError(
        'rest_trash_not_supported',
        "The post does not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    if (post.status === 'trash') {
      throw new RestError('rest_already_trashed', 'The post has already been deleted.', 410);
    }
    // wp_trash_post goes through wp_update_post, which saves a revision (wp_save_post_revision).
    const now = new Date(this.kit.clock());
    const trashed = await this.kit.db.transaction(async (tx) => {
      const updated = (await updatePost(tx, post.id, trashFields(post), now))!;
      if (this.type.revisions) await saveRevision(tx, updated, userIdOf(request), now);
      return updated;
    });
    itemCache.delete(request);
    return this.presenter.prepareOne(trashed, request, 'edit');
  }
}
