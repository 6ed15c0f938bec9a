import { POST_TYPES } from '../../../domain/content/post-types.js';
import {
  deletePost,
  getPost,
  getPosts,
  insertPost,
  listPosts,
  updatePost,
  type TaxFilter,
} from '../../../domain/content/posts-store.js';
import type { SitePost, SitePostFields } from '../../../domain/content/site-post.js';
import { getTerm, setPostTerms, termsOfPosts } from '../../../domain/content/terms-store.js';
import { texturize } from '../../../domain/content/texturize.js';
import { ksesPost, ksesTitle, safeUrl, sanitizeHtmlClass } from '../../../domain/content/kses.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';
import { RestResponse } from '../rest/rest-response.js';
import { RestController } from '../rest/rest-controller.js';
import type { SiteKit } from '../site-kit.js';
import { MENU_ITEM_FIELDS, MENU_ITEM_SCHEMA, menuItemWriteArgs } from './menu-item-schema.js';
import { menuItemUrl } from './menu-navigation.js';
import { termLinkOf } from './term-links.js';
import { taxonomyRestBase } from './wp-registry.js';
import type { PostLinks } from './post-presenter.js';
import { postCollectionArgs } from './posts-controller.js';
import { CURIES, denied, type Context, deletedAnswer } from '../rest/rest-helpers.js';

const TYPE = POST_TYPES.nav_menu_item!;

const TYPE_LABELS: Record<string, string> = {
  custom: 'Custom Link',
  post_type: 'Post',
  taxonomy: 'Category',
  post_type_archive: 'Archive',
};

/** wp_setup_nav_menu_item's type_label: the object type's singular name (Page, Category...). */
function typeLabel(item: SitePost): string {
  const kind = String(item.extra.type ?? 'custom');
  const object = String(item.extra.object ?? '');
  if (kind === 'post_type' && POST_TYPES[object]) return POST_TYPES[object].singular;
  if (kind === 'taxonomy' && object === 'post_tag') return 'Tag';
  return TYPE_LABELS[kind] ?? 'Custom Link';
}

/** WP_REST_Menu_Items_Controller: items of navigation menus (edit_theme_options for everything). */
export class MenuItemsController extends RestController {
  readonly schema = MENU_ITEM_SCHEMA;

  constructor(
    kit: SiteKit,
    private readonly links: PostLinks,
  ) {
    super(kit);
  }

  register(): void {
    const listArgs = postCollectionArgs(TYPE);
    listArgs.order = { ...listArgs.order!, default: 'asc' };
    listArgs.orderby = {
      ...listArgs.orderby!,
      default: 'menu_order',
      enum: [...(listArgs.orderby!.enum as string[]), 'menu_order'],
    };
    listArgs.menu_order = {
      description: 'Limit result set to posts with a specific menu_order value.',
      type: 'integer',
    };
    this.resourceRoutes('/menu-items', {
      id: { description: 'Unique identifier for the post.', type: 'integer' },
      forceDescription: 'Whether to bypass Trash and force deletion.',
      list: { args: listArgs, permission: (r) => this.canRead(r), callback: (r) => this.list(r) },
      create: {
        args: menuItemWriteArgs(true),
        permission: (r) =>
          this.can(
            r,
            'rest_cannot_create',
            'Sorry, you are not allowed to create menu items as this user.',
          ),
        callback: (r) => this.save(r),
      },
      read: {
        permission: async (r) => {
          await this.itemOf(r);
          return this.canRead(r);
        },
        callback: async (r) => this.present(await this.itemOf(r), r, r.get<Context>('context')),
      },
      update: {
        args: menuItemWriteArgs(false),
        permission: (r) =>
          this.itemCan(r, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.'),
        callback: (r) => this.save(r, true),
      },
      remove: {
        permission: (r) =>
          this.itemCan(r, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.'),
        callback: (r) => this.remove(r),
      },
    });
  }

  /**
   * Reading (WP_REST_Menu_Items_Controller 6.1): the edit context needs edit_theme_options
   * (the posts' check, rest_forbidden_context), then check_has_read_only_access: whoever may
   * edit posts reads menu items.
   */
  private canRead(r: RestRequest): boolean {
    if (r.get('context') === 'edit' && !r.can('edit_theme_options')) {
      throw denied(
        r,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
      );
    }
    if (!r.can('edit_theme_options') && !r.can('edit_posts')) {
      throw denied(r, 'rest_cannot_view', 'Sorry, you are not allowed to view menu items.');
    }
    return true;
  }

  private can(r: RestRequest, code: string, message: string): boolean {
    if (!r.can('edit_theme_options')) throw denied(r, code, message);
    return true;
  }

  private async itemCan(r: RestRequest, code: string, message: string): Promise<boolean> {
    await this.itemOf(r);
    return this.can(r, code, message);
  }

  async itemOf(r: RestRequest): Promise<SitePost> {
    const post = await getPost(this.kit.db, Number(r.get('id')));
    if (!post || post.type !== 'nav_menu_item')
      throw new RestError('rest_post_invalid_id', 'Invalid post ID.', 404);
    return post;
  }

  async present(
    item: SitePost,
    request: RestRequest,
    context: Context,
    menus?: number,
  ): Promise<Record<string, unknown>> {
    const kind = String(item.extra.type ?? 'custom');
    const objectId = Number(item.extra.object_id ?? 0);
    const objects = await getPosts(this.kit.db, kind === 'post_type' ? [objectId] : []);
    const object = objects.get(objectId);
    // wp_setup_nav_menu_item: a term's item takes the term's link (get_term_link).
    const term =
      kind === 'taxonomy'
        ? await getTerm(this.kit.db, objectId, String(item.extra.object ?? 'category'))
        : undefined;
    const menu =
      menus ?? (await termsOfPosts(this.kit.db, [item.id])).get(item.id)?.get('nav_menu')?.[0] ?? 0;
    const title = item.title || object?.title || term?.name || '';
    const data = this.filterByContext(
      {
        id: item.id,
        title: { raw: item.title, rendered: texturize(title) },
        status: item.status,
        url: term
          ? await termLinkOf(this.kit.db, this.kit.urls, term)
          : await menuItemUrl(item, objects, this.links),
        attr_title: item.extra.attr_title ?? '',
        description: item.extra.description ?? '',
        type: kind,
        type_label: typeLabel(item),
        object: item.extra.object ?? 'custom',
        // wp_setup_nav_menu_item: a custom link is its own object.
        object_id: kind === 'custom' ? item.id : objectId,
        parent: item.parent,
        menu_order: item.menuOrder,
        target: item.extra.target ?? '',
        classes: item.extra.classes ?? [''],
        xfn: item.extra.xfn ?? [''],
        invalid: (kind === 'post_type' && !object) || (kind === 'taxonomy' && !term),
        meta: {},
        menus: menu,
      },
      context,
    );
    const self = [{ href: this.kit.urls.rest(`/wp/v2/menu-items/${item.id}`) }];
    const links: Record<string, unknown[]> = {
      self,
      collection: [{ href: this.kit.urls.rest('/wp/v2/menu-items') }],
      about: [{ href: this.kit.urls.rest('/wp/v2/types/nav_menu_item') }],
      'wp:term': [
        {
          taxonomy: 'nav_menu',
          embeddable: true,
          href: this.kit.urls.rest('/wp/v2/menus', { post: item.id }),
        },
      ],
    };
    if (object) {
      links['wp:menu-item-object'] = [
        {
          post_type: object.type,
          embeddable: true,
          href: this.kit.urls.rest(
            `/wp/v2/${POST_TYPES[object.type]?.restBase ?? 'posts'}/${object.id}`,
          ),
        },
      ];
    } else if (term) {
      links['wp:menu-item-object'] = [
        {
          taxonomy: term.taxonomy,
          embeddable: true,
          href: this.kit.urls.rest(`/wp/v2/${taxonomyRestBase(term.taxonomy)}/${term.id}`),
        },
      ];
    }
    links.curies = CURIES;
    // get_available_actions in the edit context: nav_menu_item's and nav_menu's capabilities
    // are all edit_theme_options; no author, no sticky.
    if (context === 'edit' && request.can('edit_theme_options')) {
      links['wp:action-publish'] = self;
      if (request.can('unfiltered_html')) links['wp:action-unfiltered-html'] = self;
      links['wp:action-create-menus'] = self;
      links['wp:action-assign-menus'] = self;
    }
    data._links = links;
    return data;
  }

  private async list(r: RestRequest): Promise<RestResponse> {
    const perPage = r.get<number>('per_page');
    const page = r.get<number>('page');
    const tax: TaxFilter[] = [];
    const menus = r.get<number[] | { terms?: number[] } | undefined>('menus');
    const menuIds = Array.isArray(menus) ? menus : (menus?.terms ?? []);
    if (menuIds.length) tax.push({ terms: menuIds, operator: 'OR' });
    const excl = r.get<number[] | { terms?: number[] } | undefined>('menus_exclude');
    const exclIds = Array.isArray(excl) ? excl : (excl?.terms ?? []);
    const statuses = r.get<string[]>('status');
    const { total, items } = await listPosts(this.kit.db, {
      types: ['nav_menu_item'],
      statuses: statuses.includes('any') ? undefined : statuses,
      include: r.get<number[]>('include'),
      exclude: r.get<number[]>('exclude'),
      search: r.get<string | undefined>('search') || undefined,
      menuOrder: r.get<number | undefined>('menu_order'),
      tax,
      taxExclude: exclIds.length ? [{ terms: exclIds, operator: 'NOT' }] : [],
      orderby: r.get('orderby'),
      order: r.get('order'),
      limit: perPage,
      offset: (r.get<number | undefined>('offset') ?? 0) + (page - 1) * perPage,
    });
    const terms = await termsOfPosts(
      this.kit.db,
      items.map((i) => i.id),
    );
    const context = r.get<Context>('context');
    const data = [];
    for (const item of items)
      data.push(
        await this.present(item, r, context, terms.get(item.id)?.get('nav_menu')?.[0] ?? 0),
      );
    return this.collectionResponse(r, data, total, perPage);
  }

  private async save(r: RestRequest, updating = false): Promise<unknown> {
    const existing = updating ? await this.itemOf(r) : undefined;
    const extra: Record<string, unknown> = { ...(existing?.extra ?? {}) };
    for (const key of MENU_ITEM_FIELDS) if (r.has(key)) extra[key] = r.get(key);
    extra.type ??= 'custom';
    const f: SitePostFields = { extra };
    if (r.given('title')) {
      const t = r.get<unknown>('title');
      f.title = typeof t === 'string' ? t : String((t as { raw?: string }).raw ?? '');
    }
    filterMenuItemFields(f, extra, !r.can('unfiltered_html'));
    if (r.has('status')) f.status = r.get<string>('status');
    if (r.has('parent')) f.parent = r.get<number>('parent');
    if (r.has('menu_order')) f.menuOrder = r.get<number>('menu_order');
    if (extra.type === 'custom') {
      if (!extra.url)
        throw new RestError('rest_url_required', 'The URL is required for custom links.', 400);
      if (!(f.title ?? existing?.title))
        throw new RestError(
          'rest_title_required',
          'The title is required when using a custom menu item type.',
          400,
        );
    } else if (extra.type === 'post_type') {
      const object = await getPost(this.kit.db, Number(extra.object_id));
      if (!object || (extra.object && object.type !== extra.object)) {
        throw new RestError('rest_invalid_param', 'Invalid parameter(s): object_id', {
          status: 400,
          params: { object_id: 'Invalid object ID.' },
        });
      }
      extra.object ??= object.type;
    }
    if (f.parent && f.parent > 0) {
      const parent = await getPost(this.kit.db, f.parent);
      if (!parent || parent.type !== 'nav_menu_item')
        throw new RestError('invalid_menu_item_parent', 'Invalid menu item parent.', 400);
    }
    let menu: number | undefined;
    if (r.has('menus')) {
      menu = r.get<number>('menus');
      if (menu > 0 && !(await getTerm(this.kit.db, menu, 'nav_menu')))
        throw new RestError('invalid_menu_id', 'Invalid menu ID.', 400);
    }
    const now = new Date(this.kit.clock());
    const item = await this.kit.db.transaction(async (tx) => {
      const saved = existing
        ? (await updatePost(tx, existing.id, f, now))!
        : await insertPost(tx, {
            ...f,
            type: 'nav_menu_item',
            status: f.status ?? 'publish',
            menuOrder: f.menuOrder ?? 1,
            author: r.user?.id ?? 0,
            dateGmt: now,
            modifiedGmt: now,
          });
      if (menu !== undefined) await setPostTerms(tx, saved.id, 'nav_menu', menu > 0 ? [menu] : []);
      return saved;
    });
    const data = await this.present(item, r, 'edit');
    return existing
      ? data
      : new RestResponse(data, 201, {
          Location: this.kit.urls.rest(`/wp/v2/menu-items/${item.id}`),
        });
  }

  private async remove(r: RestRequest): Promise<unknown> {
    const item = await this.itemOf(r);
    if (!r.get<boolean>('force')) {
      throw new RestError(
        'rest_trash_not_supported',
        "The post does not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const previous = await this.present(item, r, 'edit');
    await deletePost(this.kit.db, item.id);
    return deletedAnswer(previous);
  }
}

/**
 * wp_update_nav_menu_item's sanitizing: class names and XFN always through sanitize_html_class;
 * for a user without unfiltered_html, the title (title_save_pre), the description and the title
 * attribute (content and excerpt of the item) through kses and the URL through esc_url_raw.
 */
function filterMenuItemFields(
  f: SitePostFields,
  extra: Record<string, unknown>,
  kses: boolean,
): void {
  for (const key of ['classes', 'xfn']) {
    if (Array.isArray(extra[key]))
      extra[key] = (extra[key] as unknown[])
        .flatMap((c) => String(c).split(/\s+/))
        .map(sanitizeHtmlClass)
        .filter((c) => c !== '');
  }
  if (!kses) return;
  if (f.title !== undefined) f.title = ksesTitle(f.title);
  for (const key of ['attr_title', 'description']) {
    if (typeof extra[key] === 'string') extra[key] = ksesPost(extra[key]);
  }
  if (typeof extra.url === 'string') extra.url = safeUrl(extra.url);
}
