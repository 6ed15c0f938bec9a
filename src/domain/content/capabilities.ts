import { timingSafeEqual } from 'node:crypto';
import {
  INTERNAL_STATUSES,
  WRITABLE_STATUSES,
  type PostTypeCaps,
  type PostTypeInfo,
} from './post-types.js';
import type { SitePost } from './site-post.js';
import { hasCap, type SiteUser } from './site-user.js';

const PUBLISHED = new Set(['publish', 'future']);

/** The status that decides capabilities (a trashed item keeps the one it had). */
function effectiveStatus(post: SitePost): string {
  return post.status === 'trash' ? (post.trashedFrom ?? 'draft') : post.status;
}

/** map_meta_cap's rule for edit_post and delete_post alike, each with its own capabilities. */
function hasPostCaps(
  user: SiteUser,
  post: SitePost,
  caps: PostTypeCaps,
  action: 'edit' | 'delete',
): boolean {
  const status = effectiveStatus(post);
  const published = caps[`${action}Published`];
  const needs: string[] = [];
  if (post.author === user.id) {
    needs.push(PUBLISHED.has(status) ? published : caps[action]);
  } else {
    needs.push(caps[`${action}Others`]);
    if (PUBLISHED.has(status)) needs.push(published);
    else if (status === 'private') needs.push(caps[`${action}Private`]);
  }
  return needs.every((c) => hasCap(user, c));
}

/** map_meta_cap('edit_post'): own or others', published or private, per the type's capabilities. */
export function canEditPost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  return user !== null && hasPostCaps(user, post, type.caps, 'edit');
}

/**
 * map_meta_cap('delete_post'). A revision is never deletable: WordPress maps delete_post on a
 * revision to do_not_allow, for every role.
 */
export function canDeletePost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  if (!user || post.type === 'revision') return false;
  return hasPostCaps(user, post, type.caps, 'delete');
}

/**
 * check_read_permission: published for all (blocks: for those who may edit posts, WordPress's
 * read_post on a wp_block); private for its author or read_private; anything else to whoever may
 * edit it.
 */
export function canReadPost(user: SiteUser | null, post: SitePost, type: PostTypeInfo): boolean {
  if (post.status === 'publish') return type.caps.read === 'read' || hasCap(user, type.caps.read);
  if (post.status === 'private') {
    return user !== null && (post.author === user.id || hasCap(user, type.caps.readPrivate));
  }
  return canEditPost(user, post, type);
}

/** Whether `given` is the post's password (hash_equals: compared in constant time). */
export function postPasswordMatches(post: SitePost, given: unknown): boolean {
  if (typeof given !== 'string' || post.password === '') return false;
  const a = Buffer.from(post.password);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Which items of a type a caller may list, as statuses (the status an item has, and for trashed
 * items the status it had): a list query restricts its rows, and so its totals, to these, the
 * way WP_Query restricts private and protected statuses to their author for readers without
 * read_private_posts. Derived from canReadPost/canEditPost, so the two never disagree.
 */
export interface PostAccess {
  /** The caller's id (0 anonymous: owns nothing). */
  userId: number;
  own: string[];
  others: string[];
  ownTrashed: string[];
  othersTrashed: string[];
}

/** Every status an item of the site's post types can have. */
const KNOWN_STATUSES = [...WRITABLE_STATUSES, ...INTERNAL_STATUSES];

/** The statuses `user` may list items of `type` in, to read them (`read`) or to edit them (`edit`). */
export function listAccess(
  user: SiteUser | null,
  type: PostTypeInfo,
  purpose: 'read' | 'edit',
): PostAccess {
  const allowed = purpose === 'read' ? canReadPost : canEditPost;
  const userId = user?.id ?? 0;
  const probe = (status: string, own: boolean, trashedFrom: string | null = null): boolean =>
    allowed(
      user,
      { type: type.type, status, trashedFrom, author: own ? userId : -1 } as SitePost,
      type,
    );
  const pick = (own: boolean) => KNOWN_STATUSES.filter((s) => probe(s, own));
  const pickTrashed = (own: boolean) => KNOWN_STATUSES.filter((s) => probe('trash', own, s));
  return {
    userId,
    own: user ? pick(true) : pick(false),
    others: pick(false),
    ownTrashed: user ? pickTrashed(true) : pickTrashed(false),
    othersTrashed: pickTrashed(false),
  };
}
