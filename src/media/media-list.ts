import { SITE_POST_COLUMNS, sitePostOf, type SitePostRow } from '../content/site-post.js';
import type { Queryable } from '../db/db.js';
import { ATTACHMENT_TYPE, mediaItemOf, type MediaItem } from './media-item.js';

export type MediaOrderBy =
  | 'author'
  | 'date'
  | 'id'
  | 'include'
  | 'modified'
  | 'parent'
  | 'relevance'
  | 'slug'
  | 'include_slugs'
  | 'title';

/** A media list (GET /wp/v2/media): the posts filters plus media type, mime type and parent. */
export interface MediaListQuery {
  statuses: string[];
  /** Families: image, video, audio, text, application (the mime type's first part). */
  mediaTypes?: string[];
  mimeTypes?: string[];
  parents?: number[];
  parentExclude?: number[];
  search?: string;
  after?: Date;
  before?: Date;
  modifiedAfter?: Date;
  modifiedBefore?: Date;
  authors?: number[];
  authorExclude?: number[];
  include?: number[];
  exclude?: number[];
  slugs?: string[];
  orderby: MediaOrderBy;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, '\\$&');
}

/** One page of media items and how many match in all. */
export async function listMedia(
  db: Queryable,
  q: MediaListQuery,
): Promise<{ total: number; items: MediaItem[] }> {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = [`p.type = '${ATTACHMENT_TYPE}'`, `p.status = ANY(${p(q.statuses)}::text[])`];
  const mime = `(p.extra ->> 'mime_type')`;
  if (q.mediaTypes?.length) {
    where.push(`split_part(${mime}, '/', 1) = ANY(${p(q.mediaTypes)}::text[])`);
  }
  if (q.mimeTypes?.length) where.push(`${mime} = ANY(${p(q.mimeTypes)}::text[])`);
  if (q.parents?.length) where.push(`p.parent = ANY(${p(q.parents)}::bigint[])`);
  if (q.parentExclude?.length) where.push(`NOT (p.parent = ANY(${p(q.parentExclude)}::bigint[]))`);
  if (q.search) {
    for (const word of q.search.split(/\s+/).filter((w) => w !== '')) {
      const pattern = p(`%${escapeLike(word)}%`);
      where.push(
        `(p.title ILIKE ${pattern} OR p.content ILIKE ${pattern} OR p.excerpt ILIKE ${pattern} OR (p.extra #>> '{media_details,file}') ILIKE ${pattern})`,
      );
    }
  }
  const date = 'coalesce(p.date_gmt, p.modified_gmt)';
  if (q.after) where.push(`${date} > ${p(q.after)}`);
  if (q.before) where.push(`${date} < ${p(q.before)}`);
  if (q.modifiedAfter) where.push(`p.modified_gmt > ${p(q.modifiedAfter)}`);
  if (q.modifiedBefore) where.push(`p.modified_gmt < ${p(q.modifiedBefore)}`);
  if (q.authors?.length) where.push(`coalesce(p.author, 0) = ANY(${p(q.authors)}::bigint[])`);
  if (q.authorExclude?.length) {
    where.push(`NOT (coalesce(p.author, 0) = ANY(${p(q.authorExclude)}::bigint[]))`);
  }
  if (q.include?.length) where.push(`p.id = ANY(${p(q.include)}::bigint[])`);
  if (q.exclude?.length) where.push(`NOT (p.id = ANY(${p(q.exclude)}::bigint[]))`);
  if (q.slugs?.length) where.push(`p.slug = ANY(${p(q.slugs)}::text[])`);
  const countParams = [...params];
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  let by: string;
  switch (q.orderby) {
    case 'author':
      by = `p.author ${dir}`;
      break;
    case 'id':
      by = `p.id ${dir}`;
      break;
    case 'include':
      by = q.include?.length ? `array_position(${p(q.include)}::bigint[], p.id)` : `p.id ${dir}`;
      break;
    case 'include_slugs':
      by = q.slugs?.length ? `array_position(${p(q.slugs)}::text[], p.slug)` : `p.id ${dir}`;
      break;
    case 'modified':
      by = `p.modified_gmt ${dir}`;
      break;
    case 'parent':
      by = `p.parent ${dir}`;
      break;
    case 'slug':
      by = `p.slug ${dir}`;
      break;
    case 'title':
      by = `p.title ${dir}`;
      break;
    default:
      by = `${date} ${dir}`;
  }
  const sql = where.join(' AND ');
  params.push(q.limit, q.offset);
  const [count, rows] = await Promise.all([
    db.query<{ n: string }>(`SELECT count(*) AS n FROM site_posts p WHERE ${sql}`, countParams),
    db.query<SitePostRow>(
      `SELECT ${SITE_POST_COLUMNS.split(', ')
        .map((c) => `p.${c}`)
        .join(', ')} FROM site_posts p WHERE ${sql}
        ORDER BY ${by}, p.id ${dir} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    ),
  ]);
  return {
    total: Number(count.rows[0]!.n),
    items: rows.rows.map((r) => mediaItemOf(sitePostOf(r))),
  };
}
