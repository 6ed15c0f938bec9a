import type { DynamicBlockRenderer } from '../../../domain/content/block-render.js';
import { POST_TYPES } from '../../../domain/content/post-types.js';
import type { SiteKit, SiteModule } from '../site-kit.js';
import { registerAdminPages } from '../admin/admin-pages.js';
import { registerAppPasswordRoutes } from './app-passwords-controller.js';
import { registerCommentsRoutes } from './comments-controller.js';
import { registerContentPages } from './content-pages.js';
import { MenuItemAutosavesController } from './menu-item-autosaves.js';
import { MenuItemsController } from './menu-items-controller.js';
import { registerMenuLocationsRoutes } from './menu-locations-controller.js';
import { PostLinks, PostPresenter } from './post-presenter.js';
import { PostsController } from './posts-controller.js';
import { RevisionsController } from './revisions-controller.js';
import { registerSearchRoute } from './search-controller.js';
import { registerSettingsRoute } from './settings-controller.js';
import { registerSiteInfoRoutes } from './site-info-controllers.js';
import { TermsController } from './terms-controller.js';
import { registerUsersRoutes } from './users-controller.js';
import { REST_TAXONOMIES } from './wp-registry.js';

/** Server-rendered blocks other modules add (register_block_type with a render callback). */
export const dynamicBlocks = new Map<string, DynamicBlockRenderer>();

/**
 * Posts, pages, reusable blocks, menu items, their revisions and autosaves, terms, users,
 * application passwords, types, taxonomies, statuses, settings, menu locations, comments (none); the site's HTML pages and its sign-in and
 * application authorization pages.
 */
export const contentModule: SiteModule = {
  name: 'content',
  async register(kit: SiteKit) {
    // WordPress's install makes term 1, the default category: a site always has one.
    await kit.db.query(
      `INSERT INTO site_terms (taxonomy, name, slug)
       SELECT 'category', '未分类', 'uncategorized'
        WHERE NOT EXISTS (SELECT 1 FROM site_terms WHERE taxonomy = 'category')
       ON CONFLICT DO NOTHING`,
    );
    const links = new PostLinks(kit.db, kit.urls);
    const controllers = ['post', 'page', 'wp_block'].map((t) => {
      const type = POST_TYPES[t]!;
      return new PostsController(
        kit,
        type,
        (schema) =>
          new PostPresenter({ db: kit.db, urls: kit.urls, links, dynamicBlocks }, type, schema),
      );
    });
    for (const c of controllers) {
      c.register();
      new RevisionsController(kit, c).register();
    }
    const menuItems = new MenuItemsController(kit, links);
    menuItems.register();
    new MenuItemAutosavesController(kit, menuItems).register();
    registerMenuLocationsRoutes(kit);
    for (const tax of REST_TAXONOMIES) new TermsController(kit, tax).register();
    registerUsersRoutes(kit);
    registerAppPasswordRoutes(kit);
    registerSiteInfoRoutes(kit);
    registerSettingsRoute(kit);
    registerCommentsRoutes(kit);
    registerSearchRoute(kit, links);
    registerAdminPages(kit);
    registerContentPages(
      kit,
      { post: controllers[0]!.presenter, page: controllers[1]!.presenter },
      links,
    );
  },
};
