import type { PostTypeInfo } from './post-types.js';
import type { SitePost } from './site-post.js';
import { hasCap, type SiteUser } from './site-user.js';

const PUBLISHED = new Set(['publish', 'future']);

/** The status that decides capabilities (a trashed item keeps the one it had). */
function effectiveStatus(post: SitePost): string {
  return post.status === 'trash' ? (post.trashedFrom ?? 'draft') : post.status;
}

/** map_meta_cap('edit_post'): own or others', published or private, per the type's capabilities. */
export function canEditPost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  if (!user) return false;
  const status = effectiveStatus(post);
  const { caps } = type;
  const needs: string[] = [];
  if (post.author === user.id) {
    needs.push(PUBLISHED.has(status) ? caps.editPublished : caps.edit);
  } else {
    needs.push(caps.editOthers);
    if (PUBLISHED.has(status)) needs.push(caps.editPublished);
    else if (status === 'private') needs.push(caps.editPrivate);
  }
  return needs.every((c) => hasCap(user, c));
}

/** map_meta_cap('delete_post'). */
export function canDeletePost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  if (!user) return false;
  const status = effectiveStatus(post);
  const { caps } = type;
  const needs: string[] = [];
  if (post.author === user.id) {
    needs.push(PUBLISHED.has(status) ? caps.deletePublished : caps.delete);
  } else {
    needs.push(caps.deleteOthers);
    if (PUBLISHED.has(status)) needs.push(caps.deletePublished);
    else if (status === 'private') needs.push(caps.deletePrivate);
  }
  return needs.every((c) => hasCap(user, c));
}

/** map_meta_cap('read_post'): published for all; private for its author or read_private; else edit. */
export function canReadPost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  if (post.status === 'publish') return true;
  if (post.status === 'private') {
    return user !== null && (post.author === user.id || hasCap(user, type.caps.readPrivate));
  }
  return canEditPost(user, post, type);
}
