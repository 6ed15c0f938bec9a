import type { Queryable } from '../../shared/db/db.js';
import { listAccess } from './capabilities.js';
import { POST_TYPES, type PostTypeInfo } from './post-types.js';
import { listPosts, type ProtectedSearch } from './posts-store.js';
import type { SitePost } from './site-post.js';
import type { SiteUser } from './site-user.js';

/**
 * The one rule of every search of post content (the REST search endpoint, the `/?s=` page, the
 * posts and pages lists' `search`): a password guards an item's content and excerpt, so a
 * search matches them only in the items the caller may edit (otherwise successive prefixes
 * would read the text out one character at a time). Signed out, protected items are left out of
 * a search altogether, as WordPress's WP_Query does for a visitor; signed in, they are still
 * found by their title.
 */
export function protectedSearchOf(
  viewer: SiteUser | null,
  types: readonly PostTypeInfo[],
): ProtectedSearch {
  if (!viewer) return 'none';
  return { byType: Object.fromEntries(types.map((t) => [t.type, listAccess(viewer, t, 'edit')])) };
}

export interface PostSearch {
  /** Post types to search. */
  types: string[];
  /** Words that must all appear (title, excerpt or content); absent = every published item. */
  search?: string;
  include?: number[];
  exclude?: number[];
  limit: number;
  offset: number;
}

/**
 * What WordPress's search (the `/?s=` page and the REST post search handler) finds: published
 * items only, titles containing the whole phrase first, then the newest; password-protected
 * items by protectedSearchOf's rule for `viewer` (null: signed out).
 */
export async function searchPublishedPosts(
  db: Queryable,
  viewer: SiteUser | null,
  q: PostSearch,
): Promise<{ total: number; items: SitePost[] }> {
  return listPosts(db, {
    types: q.types,
    statuses: ['publish'],
    search: q.search,
    protectedSearch: protectedSearchOf(
      viewer,
      q.types.flatMap((t) => (POST_TYPES[t] ? [POST_TYPES[t]] : [])),
    ),
    include: q.include,
    exclude: q.exclude,
    orderby: q.search ? 'relevance' : 'date',
    order: 'desc',
    limit: q.limit,
    offset: q.offset,
  });
}
