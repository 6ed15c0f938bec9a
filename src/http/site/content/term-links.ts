import { getTerm, type SiteTerm } from '../../../domain/content/terms-store.js';
import type { Queryable } from '../../../shared/db/db.js';
import type { SiteUrls } from '../site-urls.js';

/**
 * get_term_link with pretty permalinks: /category/<parents>/<slug>/, /tag/<slug>/; a taxonomy
 * without a permastruct (the pattern categories, menus) by its query variable. Shared by the
 * terms' `link` and the `url` of a menu item that points at a term.
 */
export async function termLinkOf(db: Queryable, urls: SiteUrls, term: SiteTerm): Promise<string> {
  const encode = (slug: string) => encodeURIComponent(slug).toLowerCase();
  if (term.taxonomy === 'post_tag') return urls.page(`/tag/${encode(term.slug)}/`);
  if (term.taxonomy === 'category') {
    const slugs = [encode(term.slug)];
    let parent = term.parent;
    for (let depth = 0; parent > 0 && depth < 10; depth++) {
      const p = await getTerm(db, parent);
      if (!p) break;
      slugs.unshift(encode(p.slug));
      parent = p.parent;
    }
    return urls.page(`/category/${slugs.join('/')}/`);
  }
  return urls.page(`/?${term.taxonomy}=${encode(term.slug)}`);
}
