import { listAutosaves, saveAutosave, updatePost } from '../../../domain/content/posts-store.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import type { ArgSchema } from '../rest/arg-schema.js';
import type { RestRequest } from '../rest/rest-request.js';
import { CREATABLE, READABLE } from '../rest/route-registry.js';
import type { SiteKit } from '../site-kit.js';
import { MENU_ITEM_FIELDS, MENU_ITEM_SCHEMA, menuItemWriteArgs } from './menu-item-schema.js';
import type { MenuItemsController } from './menu-items-controller.js';
import { ItemRevisionsController, revisionSchema } from './revisions-controller.js';
import {
  type Context,
  contextArg,
  denied,
  refuseUnchangedAutosave,
  type ResourceSchema,
  userIdOf,
} from '../rest/rest-helpers.js';

const VE = ['view', 'edit'] as const;

/**
 * WP_REST_Autosaves_Controller's schema for menu items: the revisions controller's base
 * properties (its `guid` a plain string, as nav_menu_item's schema has none to lend), the menu
 * item's title, and the preview link; titled `nav_menu_item-revision`.
 */
export const MENU_ITEM_AUTOSAVE_SCHEMA: ResourceSchema = revisionSchema(
  MENU_ITEM_SCHEMA,
  'nav_menu_item',
  true,
  { description: 'GUID for the post, as it exists in the database.', type: 'string', context: VE },
);

/**
 * The menu items' autosaves (WordPress registers WP_REST_Autosaves_Controller for every type
 * shown in REST but attachments): listed and created by whoever may edit the item
 * (edit_theme_options); an autosave by the author of a draft item updates the item itself,
 * any other is stored once per user.
 */
export class MenuItemAutosavesController extends ItemRevisionsController {
  readonly schema = MENU_ITEM_AUTOSAVE_SCHEMA;
  protected readonly parentType = 'nav_menu_item';

  constructor(
    kit: SiteKit,
    private readonly items: MenuItemsController,
  ) {
    super(kit);
  }

  register(): void {
    const parentArg: ArgSchema = {
      description: 'The ID for the parent of the autosave.',
      type: 'integer',
    };
    this.route('/menu-items/(?P<id>[\\d]+)/autosaves', [
      {
        methods: READABLE,
        args: { parent: parentArg, context: contextArg() },
        permission: (r) => this.readPermission(r, 'id'),
        callback: (r) => this.list(r),
      },
      {
        methods: CREATABLE,
        args: { parent: parentArg, ...menuItemWriteArgs(false) },
        permission: async (r) => {
          await this.items.itemOf(r);
          if (!r.can('edit_theme_options'))
            throw denied(r, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
          return true;
        },
        callback: (r) => this.create(r),
      },
    ]);
    this.route('/menu-items/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)', {
      methods: READABLE,
      args: {
        parent: parentArg,
        id: { description: 'The ID for the autosave.', type: 'integer' },
        context: contextArg(),
      },
      permission: (r) => this.readPermission(r, 'parent'),
      callback: async (r) =>
        this.present(await this.revisionOf(r, true), r.get<Context>('context')),
    });
  }

  /** get_items_permissions_check: edit_post on the item (edit_theme_options for menu items). */
  private async readPermission(request: RestRequest, param: string): Promise<boolean> {
    await this.parentOf(request, param);
    if (!request.can('edit_theme_options')) {
      throw denied(
        request,
        'rest_cannot_read',
        'Sorry, you are not allowed to view autosaves of this post.',
      );
    }
    return true;
  }

  private present(post: SitePost, context: Context): Record<string, unknown> {
    const parentId = post.type === 'revision' ? post.parent : post.id;
    const data = this.filterByContext(
      {
        ...this.revisionFields(post),
        // get_preview_post_link: a type one cannot view has no preview.
        preview_link: '',
      },
      context,
    );
    data._links = {
      parent: [{ href: this.kit.urls.rest(`/wp/v2/menu-items/${parentId}`) }],
    };
    return data;
  }

  private async list(request: RestRequest): Promise<unknown> {
    const parent = await this.parentOf(request, 'id');
    const items = await listAutosaves(this.kit.db, parent.id, 1000);
    const context = request.get<Context>('context');
    return items.map((a) => this.present(a, context));
  }

  private async create(request: RestRequest): Promise<unknown> {
    const parent = await this.parentOf(request, 'id');
    const user = userIdOf(request);
    const now = new Date(this.kit.clock());
    let title = parent.title;
    if (request.given('title')) {
      const t = request.get<unknown>('title');
      title = typeof t === 'string' ? t : String((t as { raw?: string }).raw ?? '');
    }
    const extra: Record<string, unknown> = { ...parent.extra };
    for (const key of MENU_ITEM_FIELDS) if (request.given(key)) extra[key] = request.get(key);
    if ((parent.status === 'draft' || parent.status === 'auto-draft') && parent.author === user) {
      const updated = (await updatePost(this.kit.db, parent.id, { title, extra }, now))!;
      return this.present(updated, 'edit');
    }
    const changed =
      title !== parent.title ||
      MENU_ITEM_FIELDS.some((k) => JSON.stringify(extra[k]) !== JSON.stringify(parent.extra[k]));
    if (!changed) {
      await refuseUnchangedAutosave(this.kit.db, parent.id, user);
    }
    const autosave = await saveAutosave(
      this.kit.db,
      parent,
      user,
      { title, content: parent.content, excerpt: parent.excerpt, extra },
      now,
    );
    return this.present(autosave, 'edit');
  }
}
