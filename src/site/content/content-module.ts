import type { DynamicBlockRenderer } from '../../content/block-render.js';
import { POST_TYPES } from '../../content/post-types.js';
import type { SiteKit, SiteModule } from '../site-kit.js';
import { registerContentPages } from './content-pages.js';
import { PostLinks, PostPresenter } from './post-presenter.js';
import { PostsController } from './posts-controller.js';

/** Server-rendered blocks other modules add (register_block_type with a render callback). */
export const dynamicBlocks = new Map<string, DynamicBlockRenderer>();

/**
 * Posts, pages, reusable blocks, menu items, their revisions and autosaves, terms, users,
 * application passwords, types, taxonomies, statuses; and the site's HTML pages.
 */
export const contentModule: SiteModule = {
  name: 'content',
  register(kit: SiteKit) {
    const links = new PostLinks(kit.db, kit.urls);
    const presenterFor =
      (type: (typeof POST_TYPES)[string]) =>
      (schema: ConstructorParameters<typeof PostPresenter>[2]) =>
        new PostPresenter({ db: kit.db, urls: kit.urls, links, dynamicBlocks }, type, schema);
    const controllers = ['post', 'page', 'wp_block'].map(
      (t) => new PostsController(kit, POST_TYPES[t]!, presenterFor(POST_TYPES[t]!)),
    );
    for (const c of controllers) c.register();
    registerContentPages(
      kit,
      { post: controllers[0]!.presenter, page: controllers[1]!.presenter },
      links,
    );
  },
};
