import { getPosts } from '../../../domain/content/posts-store.js';
import type { SitePost } from '../../../domain/content/site-post.js';
import type { Db } from '../../../shared/db/db.js';
import type { NavLink } from '../theme/site-theme.js';
import type { PostLinks } from './post-presenter.js';
import {
  sitePostOf,
  SITE_POST_COLUMNS,
  type SitePostRow,
} from '../../../domain/content/site-post.js';

/** The menu shown as the site's navigation: the one at location `primary`, else the first. */
async function primaryMenuId(db: Db): Promise<number | undefined> {
  const r = await db.query<{ id: string | number }>(
    `SELECT id FROM site_terms WHERE taxonomy = 'nav_menu'
      ORDER BY (extra->'locations') ? 'primary' DESC, id LIMIT 1`,
  );
  return r.rows[0] ? Number(r.rows[0].id) : undefined;
}

/** The URL a menu item points at: its own (custom) or its object's link. */
export async function menuItemUrl(
  item: SitePost,
  objects: Map<number, SitePost>,
  links: PostLinks,
): Promise<string> {
  const kind = item.extra.type as string | undefined;
  if (kind === 'post_type') {
    const object = objects.get(Number(item.extra.object_id));
    if (object) return links.linkOf(object);
  }
  return String(item.extra.url ?? '');
}

/** The primary menu's published items as a tree (menu_order within each level). */
export async function primaryMenuLinks(db: Db, links: PostLinks): Promise<NavLink[]> {
  const menu = await primaryMenuId(db);
  if (menu === undefined) return [];
  const r = await db.query<SitePostRow>(
    `SELECT ${SITE_POST_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')}
       FROM site_posts p JOIN site_term_relationships r ON r.post_id = p.id
      WHERE r.term_id = $1 AND p.type = 'nav_menu_item' AND p.status = 'publish'
      ORDER BY p.menu_order, p.id`,
    [menu],
  );
  const items = r.rows.map(sitePostOf);
  const objects = await getPosts(
    db,
    items.filter((i) => i.extra.type === 'post_type').map((i) => Number(i.extra.object_id)),
  );
  const byId = new Map<number, NavLink>();
  const roots: NavLink[] = [];
  for (const item of items) {
    const object = objects.get(Number(item.extra.object_id));
    if (item.extra.type === 'post_type' && (!object || object.status !== 'publish')) continue;
    const title = item.title || object?.title || '';
    byId.set(item.id, { title, url: await menuItemUrl(item, objects, links), children: [] });
  }
  for (const item of items) {
    const link = byId.get(item.id);
    if (!link) continue;
    const parent = item.parent > 0 ? byId.get(item.parent) : undefined;
    (parent ? parent.children : roots).push(link);
  }
  return roots;
}
