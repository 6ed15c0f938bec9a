import {
  defaultTermId,
  deleteTerm,
  findTermByName,
  getTerm,
  insertTerm,
  listTerms,
  updateTerm,
  type SiteTerm,
} from '../../../domain/content/terms-store.js';
import { canReadPost } from '../../../domain/content/capabilities.js';
import { POST_TYPES } from '../../../domain/content/post-types.js';
import { getPost } from '../../../domain/content/posts-store.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { RestController } from '../rest/rest-controller.js';
import type { SiteKit } from '../site-kit.js';
import {
  collectionArgs,
  type Context,
  CURIES,
  denied,
  resourceSchema,
  type ResourceSchema,
  deletedAnswer,
} from '../rest/rest-helpers.js';
import { writeArgs } from './post-schema.js';
import { termLinkOf } from './term-links.js';
import type { RestTaxonomy } from './wp-registry.js';

const VEE = ['view', 'embed', 'edit'] as const;
const VE = ['view', 'edit'] as const;

function termSchema(tax: RestTaxonomy): ResourceSchema {
  const p: Record<string, ArgSchema> = {
    id: {
      description: 'Unique identifier for the term.',
      type: 'integer',
      context: VEE,
      readonly: true,
    },
    count: {
      description: 'Number of published posts for the term.',
      type: 'integer',
      context: VE,
      readonly: true,
    },
    description: { description: 'HTML description of the term.', type: 'string', context: VE },
    link: {
      description: 'URL of the term.',
      type: 'string',
      format: 'uri',
      context: VEE,
      readonly: true,
    },
    name: { description: 'HTML title for the term.', type: 'string', context: VEE, required: true },
    slug: {
      description: 'An alphanumeric identifier for the term unique to its type.',
      type: 'string',
      context: VEE,
    },
    taxonomy: {
      description: 'Type attribution for the term.',
      type: 'string',
      enum: [tax.slug],
      context: VEE,
      readonly: true,
    },
  };
  if (tax.hierarchical)
    p.parent = { description: 'The parent term ID.', type: 'integer', context: VE };
  p.meta = { description: 'Meta fields.', type: 'object', context: VE, properties: {} };
  if (tax.slug === 'nav_menu') {
    delete p.count;
    delete p.link;
    delete p.taxonomy;
    p.locations = {
      description: 'The locations assigned to the menu.',
      type: 'array',
      items: { type: 'string' },
      context: VE,
    };
    p.auto_add = {
      description: 'Whether to automatically add top level pages to this menu.',
      type: 'boolean',
      context: VE,
    };
  }
  // WP_REST_Terms_Controller titles post_tag's schema "tag".
  return resourceSchema(tax.slug === 'post_tag' ? 'tag' : tax.slug, p);
}

/** WP_REST_Terms_Controller (and the menus controller) for one taxonomy. */
export class TermsController extends RestController {
  readonly schema: ResourceSchema;

  constructor(
    kit: SiteKit,
    readonly tax: RestTaxonomy,
  ) {
    super(kit);
    this.schema = termSchema(tax);
  }

  register(): void {
    const { offset, order, ...common } = collectionArgs({ order: 'asc' });
    const list: Record<string, ArgSchema> = {
      ...common,
      // Only flat taxonomies take an offset (WP_REST_Terms_Controller::get_collection_params);
      // categories ignore one, as any unregistered parameter.
      ...(this.tax.hierarchical ? {} : { offset }),
      order: order!,
      orderby: {
        description: 'Sort collection by term attribute.',
        type: 'string',
        default: 'name',
        enum: [
          'id',
          'include',
          'name',
          'slug',
          'include_slugs',
          'term_group',
          'description',
          'count',
        ],
      },
      hide_empty: {
        description: 'Whether to hide terms not assigned to any posts.',
        type: 'boolean',
        default: false,
      },
      post: {
        description: 'Limit result set to terms assigned to a specific post.',
        type: 'integer',
        default: null as unknown as undefined,
      },
      slug: {
        description: 'Limit result set to terms with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
      },
    };
    if (this.tax.hierarchical)
      list.parent = {
        description: 'Limit result set to terms assigned to a specific parent.',
        type: 'integer',
      };
    const writable = writeArgs(this.schema, true);
    const updateArgs = Object.fromEntries(
      Object.entries(writable).map(([k, v]) => [k, { ...v, required: false }]),
    );
    this.resourceRoutes(`/${this.tax.restBase}`, {
      id: { description: 'Unique identifier for the term.', type: 'integer' },
      forceDescription: 'Required to be true, as terms do not support trashing.',
      list: {
        args: list,
        permission: (r) => this.listPermission(r),
        callback: (r) => this.list(r),
      },
      create: {
        args: writable,
        // Tags may be created by whoever may assign them (assign_terms: edit_posts), as
        // WordPress 6.1 does; the other taxonomies need their edit_terms capability.
        permission: (r) =>
          this.managePermission(
            r,
            'rest_cannot_create',
            'Sorry, you are not allowed to create terms in this taxonomy.',
            this.tax.slug === 'post_tag' ? this.tax.assignCap : this.tax.manageCap,
          ),
        callback: (r) => this.create(r),
      },
      read: {
        permission: (r) => this.readItemPermission(r),
        callback: async (r) => await this.present(await this.termOf(r), r.get<Context>('context')),
      },
      update: {
        args: updateArgs,
        permission: (r) =>
          this.itemManagePermission(
            r,
            'rest_cannot_update',
            'Sorry, you are not allowed to edit this term.',
          ),
        callback: (r) => this.update(r),
      },
      remove: { permission: (r) => this.deletePermission(r), callback: (r) => this.remove(r) },
    });
  }

  private readPermission(request: RestRequest): boolean {
    if (request.get('context') === 'edit' && !request.can(this.tax.manageCap)) {
      throw denied(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit terms in this taxonomy.',
      );
    }
    // WP_REST_Menus_Controller: the terms' check first, then check_has_read_only_access
    // (whoever may edit posts reads menus: the block editor's navigation block needs them).
    if (
      this.tax.slug === 'nav_menu' &&
      !request.can('edit_theme_options') &&
      !request.can('edit_posts')
    ) {
      throw denied(request, 'rest_cannot_view', 'Sorry, you are not allowed to view menus.');
    }
    return true;
  }

  /**
   * get_items_permissions_check: with `post`, the terms of that post only for whoever may read
   * it (check_read_terms_permission_for_post, WordPress 6.0.3): a draft's or a private post's
   * categories are not anyone's to list.
   */
  private async listPermission(request: RestRequest): Promise<boolean> {
    this.readPermission(request);
    const postId = request.get<number | null | undefined>('post');
    if (!postId) return true;
    const post = await getPost(this.kit.db, postId);
    if (!post) throw new RestError('rest_post_invalid_id', 'Invalid post ID.', 400);
    const type = POST_TYPES[post.type];
    if (!type || !this.tax.types.includes(post.type) || !canReadPost(request.user, post, type)) {
      throw denied(
        request,
        'rest_forbidden_context',
        'Sorry, you are not allowed to view terms for this post.',
      );
    }
    return true;
  }

  private async readItemPermission(request: RestRequest): Promise<boolean> {
    await this.termOf(request);
    return this.readPermission(request);
  }

  /** Refuses with `code` whoever lacks the taxonomy's manage capability (or `cap`, if given). */
  private managePermission(
    request: RestRequest,
    code: string,
    message: string,
    cap = this.tax.manageCap,
  ): boolean {
    if (!request.can(cap)) throw denied(request, code, message);
    return true;
  }

  private async itemManagePermission(
    request: RestRequest,
    code: string,
    message: string,
  ): Promise<boolean> {
    await this.termOf(request);
    return this.managePermission(request, code, message);
  }

  /**
   * delete_term: the taxonomy's manage capability, and never the default category (WordPress
   * maps delete_term on it to do_not_allow, for administrators too).
   */
  private async deletePermission(request: RestRequest): Promise<boolean> {
    const message = 'Sorry, you are not allowed to delete this term.';
    const term = await this.termOf(request);
    this.managePermission(request, 'rest_cannot_delete', message);
    if (term.id === (await defaultTermId(this.kit.db, term.taxonomy))) {
      throw denied(request, 'rest_cannot_delete', message);
    }
    return true;
  }

  async termOf(request: RestRequest): Promise<SiteTerm> {
    const term = await getTerm(this.kit.db, Number(request.get('id')), this.tax.slug);
    if (!term) throw new RestError('rest_term_invalid', 'Term does not exist.', 404);
    return term;
  }

  async present(term: SiteTerm, context: Context): Promise<Record<string, unknown>> {
    const { urls } = this.kit;
    // WP_REST_Menus_Controller removes count, link and taxonomy from menus.
    const data: Record<string, unknown> =
      this.tax.slug === 'nav_menu'
        ? { id: term.id, description: term.description, name: term.name, slug: term.slug }
        : {
            id: term.id,
            count: term.count,
            description: term.description,
            link: await termLinkOf(this.kit.db, urls, term),
            name: term.name,
            slug: term.slug,
            taxonomy: term.taxonomy,
          };
    if (this.tax.hierarchical) data.parent = term.parent;
    data.meta = {};
    if (this.tax.slug === 'nav_menu') {
      data.locations = (term.extra.locations as string[] | undefined) ?? [];
      data.auto_add = Boolean(term.extra.auto_add);
    }
    const out = this.filterByContext(data, context);
    const base = `/wp/v2/${this.tax.restBase}`;
    const links: Record<string, unknown[]> = {
      self: [{ href: urls.rest(`${base}/${term.id}`) }],
      collection: [{ href: urls.rest(base) }],
      about: [{ href: urls.rest(`/wp/v2/taxonomies/${this.tax.slug}`) }],
    };
    if (term.parent > 0)
      links.up = [{ embeddable: true, href: urls.rest(`${base}/${term.parent}`) }];
    links['wp:post_type'] = this.tax.types.map((t) => ({
      href: urls.rest(`/wp/v2/${POST_TYPES[t]!.restBase}`, { [this.tax.restBase]: term.id }),
    }));
    links.curies = CURIES;
    out._links = links;
    return out;
  }

  private async list(request: RestRequest): Promise<RestResponse> {
    const perPage = request.get<number>('per_page');
    // get_items: a given offset (flat taxonomies) replaces the page's start, and the page the
    // Link rels count from is the one the offset falls in (ceil(offset / per_page) + 1).
    const offsetGiven = this.tax.hierarchical
      ? undefined
      : request.get<number | undefined>('offset');
    const offset = offsetGiven ? offsetGiven : (request.get<number>('page') - 1) * perPage;
    const { total, items } = await listTerms(this.kit.db, {
      taxonomy: this.tax.slug,
      include: request.get<number[]>('include'),
      exclude: request.get<number[]>('exclude'),
      search: request.get<string | undefined>('search') || undefined,
      slugs: request.get<string[] | undefined>('slug'),
      parent: request.get<number | undefined>('parent'),
      post: request.get<number | null | undefined>('post') ?? undefined,
      hideEmpty: request.get<boolean>('hide_empty'),
      orderby: request.get('orderby'),
      order: request.get('order'),
      limit: perPage,
      offset,
    });
    const context = request.get<Context>('context');
    return this.collectionResponse(
      request,
      await Promise.all(items.map((t) => this.present(t, context))),
      total,
      perPage,
      'rest_term_invalid_page_number',
      offsetGiven ? { page: Math.ceil(offset / perPage + 1) } : undefined,
    );
  }

  private async checkParent(request: RestRequest): Promise<number | undefined> {
    if (!this.tax.hierarchical || !request.given('parent')) return undefined;
    const parent = request.get<number>('parent');
    if (parent > 0 && !(await getTerm(this.kit.db, parent, this.tax.slug))) {
      throw new RestError('rest_term_invalid', 'Parent term does not exist.', 400);
    }
    return parent;
  }

  private extraOf(request: RestRequest, term?: SiteTerm): Record<string, unknown> | undefined {
    if (this.tax.slug !== 'nav_menu') return undefined;
    const extra = { ...(term?.extra ?? {}) };
    if (request.given('locations')) extra.locations = request.get('locations');
    if (request.given('auto_add')) extra.auto_add = request.get('auto_add');
    return extra;
  }

  private async create(request: RestRequest): Promise<RestResponse> {
    const name = request.get<string>('name').trim();
    if (name === '')
      throw new RestError('empty_term_name', 'A name is required for this term.', 400);
    const parent = (await this.checkParent(request)) ?? 0;
    const existing = await findTermByName(this.kit.db, this.tax.slug, name, parent);
    if (existing) {
      throw new RestError(
        'term_exists',
        'A term with the name provided already exists with this parent.',
        { status: 400, term_id: existing.id },
      );
    }
    const term = await insertTerm(this.kit.db, this.tax.slug, {
      name,
      slug: request.get<string | undefined>('slug'),
      description: request.get<string | undefined>('description'),
      parent,
      extra: this.extraOf(request),
    });
    return new RestResponse(await this.present(term, 'edit'), 201, {
      Location: this.kit.urls.rest(`/wp/v2/${this.tax.restBase}/${term.id}`),
    });
  }

  private async update(request: RestRequest): Promise<unknown> {
    const term = await this.termOf(request);
    const parent = await this.checkParent(request);
    if (parent === term.id)
      throw new RestError('rest_term_invalid', 'Parent term does not exist.', 400);
    const updated = await updateTerm(this.kit.db, term, {
      name: request.get<string | undefined>('name'),
      slug: request.get<string | undefined>('slug'),
      description: request.get<string | undefined>('description'),
      parent,
      extra: this.extraOf(request, term),
    });
    return await this.present(updated, 'edit');
  }

  private async remove(request: RestRequest): Promise<unknown> {
    const term = await this.termOf(request);
    if (!request.get<boolean>('force')) {
      throw new RestError(
        'rest_trash_not_supported',
        "Terms do not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const previous = await this.present(term, 'edit');
    await deleteTerm(this.kit.db, term);
    return deletedAnswer(previous);
  }
}
