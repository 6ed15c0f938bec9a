import { listPosts, type PostListQuery, type PostOrderBy } from '../content/posts-store.js';
import type { Queryable } from '../../shared/db/db.js';
import { ATTACHMENT_TYPE, mediaItemOf, type MediaItem } from './media-item.js';

export type MediaOrderBy = Exclude<PostOrderBy, 'menu_order'>;

/**
 * A media list (GET /wp/v2/media): the posts filters that apply to attachments, plus media
 * type and mime type (PostListQuery's `mediaTypes`, `mimeTypes`).
 */
export type MediaListQuery = Pick<
  PostListQuery,
  | 'mediaTypes'
  | 'mimeTypes'
  | 'parents'
  | 'parentExclude'
  | 'search'
  | 'after'
  | 'before'
  | 'modifiedAfter'
  | 'modifiedBefore'
  | 'authors'
  | 'authorExclude'
  | 'include'
  | 'exclude'
  | 'slugs'
  | 'order'
  | 'limit'
  | 'offset'
> & { statuses: string[]; orderby: MediaOrderBy };

/** A media search looks at the title, caption, description and the file's name (as WordPress). */
const MEDIA_SEARCH_COLUMNS = ['post_title', 'post_content', 'post_excerpt', 'attachment_file'];

/** One page of media items and how many match in all: a posts list of attachments. */
export async function listMedia(
  db: Queryable,
  q: MediaListQuery,
): Promise<{ total: number; items: MediaItem[] }> {
  const { total, items } = await listPosts(db, {
    ...q,
    types: [ATTACHMENT_TYPE],
    searchColumns: MEDIA_SEARCH_COLUMNS,
  });
  return { total, items: items.map(mediaItemOf) };
}
