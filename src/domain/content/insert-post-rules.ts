import type { SitePost, SitePostFields } from './site-post.js';
import { parseSiteDate } from './site-dates.js';
import { sanitizeSlug } from './slugs.js';

/**
 * wp_insert_post's rules for what a create or update stores, on plain data: the status and
 * date rules, the slug a published item gets, a new item's defaults, and the trash's slug
 * suffix. Slug uniqueness is the store's (insertPost and updatePost make a slug unique per type);
 * how a status shows (the "Private: " title prefix) is the presenter's.
 */

const PUBLIC_STATUSES = ['publish', 'future', 'private'];

/** publish, future or private: the statuses that need the publish capability and have a date. */
export function isPublicStatus(status: string): boolean {
  return PUBLIC_STATUSES.includes(status);
}

/**
 * The date a write asks for (undefined: none asked): `date_gmt` wins over `date` (the site's
 * local time); an empty one is not given; null clears the date (a draft floats again). Throws
 * InvalidSiteDateError naming the field.
 */
export function askedDateGmt(
  date: string | null | undefined,
  dateGmt: string | null | undefined,
): Date | null | undefined {
  if (dateGmt) return parseSiteDate(dateGmt, 'date_gmt', true);
  if (date) return parseSiteDate(date, 'date', false);
  if (date === null || dateGmt === null) return null;
  return undefined;
}

/**
 * Whether the write publishes (needs the type's publish capability): it asks for a public status
 * the item did not have, or names one again (but keeping an item's own status needs none).
 */
export function writePublishes(f: SitePostFields, existing: SitePost | undefined): boolean {
  const status = f.status ?? existing?.status ?? 'draft';
  if (!isPublicStatus(status)) return false;
  const wasPublic = existing ? isPublicStatus(existing.status) : false;
  if (wasPublic && f.status === undefined) return false;
  return !(existing && existing.status === status);
}

/**
 * The status, date and slug rules of wp_insert_post (the fields returned, `f` untouched):
 * publish with a future date becomes future and future with a past date publish; a public item
 * without a date takes `now`; a public item without a slug gets one from its title (else its id);
 * a new pending item of a caller who may not publish has no slug ("Don't allow contributors to
 * set the post slug for pending review posts").
 */
export function settlePostFields(
  f: SitePostFields,
  existing: SitePost | undefined,
  now: Date,
  options: { canPublish: boolean },
): SitePostFields {
  const out: SitePostFields = { ...f };
  const status = f.status ?? existing?.status ?? 'draft';
  let date = f.dateGmt !== undefined ? f.dateGmt : (existing?.dateGmt ?? null);
  let settled = status;
  if (settled === 'publish' && date && date.getTime() > now.getTime()) settled = 'future';
  else if (settled === 'future' && (!date || date.getTime() <= now.getTime())) settled = 'publish';
  if (isPublicStatus(settled) && date === null) date = now;
  if (settled !== status || f.status !== undefined) out.status = settled;
  if (date !== (existing?.dateGmt ?? null)) out.dateGmt = date;
  const title = f.title ?? existing?.title ?? '';
  const slug = f.slug ?? existing?.slug ?? '';
  if (slug === '' && isPublicStatus(settled)) {
    out.slug = sanitizeSlug(title) || (existing ? String(existing.id) : '');
  }
  if (!existing && out.status === 'pending' && !options.canPublish) out.slug = '';
  return out;
}

/**
 * A new item's stored fields beyond what was asked: its modified date is its date when it has
 * one; comments and pings open for posts, closed for other types (get_default_comment_status
 * with a new site's "open" defaults).
 */
export function newPostFields(
  f: SitePostFields,
  type: string,
  now: Date,
): SitePostFields & { type: string } {
  const open = type === 'post' ? 'open' : 'closed';
  return {
    ...f,
    type,
    modifiedGmt: f.dateGmt ?? now,
    commentStatus: f.commentStatus ?? open,
    pingStatus: f.pingStatus ?? open,
  };
}

/** The slug a public item inserted without one takes once it has an id; undefined: none. */
export function slugAfterInsert(post: SitePost): string | undefined {
  return !post.slug && isPublicStatus(post.status) ? String(post.id) : undefined;
}

/**
 * Out of the trash: the slug the item had before it (wp_insert_post's _wp_desired_post_slug),
 * unless the write names one. The fields returned, `f` untouched.
 */
export function untrashFields(f: SitePostFields, existing: SitePost): SitePostFields {
  const desiredSlug = existing.extra.desiredSlug;
  if (
    existing.status !== 'trash' ||
    f.status === undefined ||
    f.status === 'trash' ||
    typeof desiredSlug !== 'string'
  ) {
    return f;
  }
  const { desiredSlug: _restored, ...extra } = existing.extra;
  void _restored;
  return { ...f, slug: f.slug ?? desiredSlug, extra: { ...extra, ...(f.extra ?? {}) } };
}

/**
 * wp_trash_post's update: status trash (the one it had kept to restore it), the slug takes
 * `__trashed` and frees the name for others, the name kept to restore it
 * (wp_add_trashed_suffix_to_post_name_for_post).
 */
export function trashFields(post: SitePost): SitePostFields {
  const keepsSlug = post.slug === '' || post.slug.endsWith('__trashed');
  return {
    status: 'trash',
    trashedFrom: post.status,
    ...(keepsSlug
      ? {}
      : { slug: `${post.slug}__trashed`, extra: { ...post.extra, desiredSlug: post.slug } }),
  };
}
