import type { Queryable } from '../../shared/db/db.js';
import { listPosts } from './posts-store.js';
import type { SitePost } from './site-post.js';

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
 * items are found by their title and listed like the others.
 */
export async function searchPublishedPosts(
  db: Queryable,
  q: PostSearch,
): Promise<{ total: number; items: SitePost[] }> {
  return listPosts(db, {
    types: q.types,
    statuses: ['publish'],
    search: q.search,
    include: q.include,
    exclude: q.exclude,
    orderby: q.search ? 'relevance' : 'date',
    order: 'desc',
    limit: q.limit,
    offset: q.offset,
  });
}
