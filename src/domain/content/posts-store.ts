import type { Queryable } from '../../shared/db/db.js';
import type { PostAccess } from './capabilities.js';
import { uniqueSlug } from './slugs.js';
import {
  FIELD_COLUMNS,
  SITE_POST_COLUMNS,
  sitePostOf,
  type SitePost,
  type SitePostFields,
  type SitePostRow,
} from './site-post.js';

/** A taxonomy filter of a list (categories, tags, menus). */
export interface TaxFilter {
  terms: number[];
  /** IN (any of the terms), AND (all of them), NOT IN (none). */
  operator: 'OR' | 'AND' | 'NOT';
}

export type PostOrderBy =
  | 'author'
  | 'date'
  | 'id'
  | 'include'
  | 'modified'
  | 'parent'
  | 'relevance'
  | 'slug'
  | 'include_slugs'
  | 'title'
  | 'menu_order';

export interface PostListQuery {
  types: string[];
  /** Statuses to include; undefined = every status. */
  statuses?: string[];
  search?: string;
  /**
   * post_title, post_content, post_excerpt; empty = all three. `attachment_file` (an
   * attachment's file name, as WordPress's media search adds) is for the media list only.
   */
  searchColumns?: string[];
  /** `exact`: the search is one phrase, not words. */
  searchExact?: boolean;
  after?: Date;
  before?: Date;
  modifiedAfter?: Date;
  modifiedBefore?: Date;
  authors?: number[];
  authorExclude?: number[];
  include?: number[];
  exclude?: number[];
  parents?: number[];
  parentExclude?: number[];
  slugs?: string[];
  /** Attachments: mime type families (`image`, the type's first part) and whole mime types. */
  mediaTypes?: string[];
  mimeTypes?: string[];
  menuOrder?: number;
  sticky?: boolean;
  formats?: string[];
  tax?: TaxFilter[];
  taxExclude?: TaxFilter[];
  taxRelation?: 'AND' | 'OR';
  /** Sticky posts first (ignore_sticky=false). */
  stickyFirst?: boolean;
  /** Only autosaves (true), never (false) or both (undefined); revisions only. */
  autosave?: boolean;
  /** Only the items the caller may list (rows and total alike); undefined = every item. */
  access?: PostAccess;
  /**
   * What a search may match in password-protected items (made by protectedSearchOf, the one
   * rule of every search: search-posts.ts). Undefined is `none`: a search that does not say who
   * asks never looks into protected items.
   */
  protectedSearch?: ProtectedSearch;
  orderby: PostOrderBy;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * What a search may match in password-protected items: `none` leaves them out of the search
 * (WordPress, logged out); per post type, an access lets their content and excerpt match only
 * in the items it allows (those the caller may edit), their title always.
 */
export type ProtectedSearch = 'none' | { readonly byType: Readonly<Record<string, PostAccess>> };

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, '\\$&');
}

const COLUMN_OF_SEARCH: Record<string, string> = {
  post_title: 'p.title',
  post_content: 'p.content',
  post_excerpt: 'p.excerpt',
};
const ATTACHMENT_FILE_COLUMN = `(p.extra #>> '{media_details,file}')`;
const ATTACHMENT_MIME_TYPE = `(p.extra ->> 'mime_type')`;

/** The rows an access allows: by the item's status (a trashed item's former one) and owner. */
function accessSql(a: PostAccess, p: (v: unknown) => string): string {
  const allowed = (statuses: string[], trashed: string[]) =>
    `(p.status = ANY(${p(statuses)}::text[]) OR (p.status = 'trash' AND coalesce(p.trashed_from, 'draft') = ANY(${p(trashed)}::text[])))`;
  return `(CASE WHEN p.author = ${p(a.userId)}::bigint THEN ${allowed(a.own, a.ownTrashed)} ELSE ${allowed(a.others, a.othersTrashed)} END)`;
}

/** The WHERE of a list query and its parameters. */
function whereOf(q: PostListQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where: string[] = [`p.type = ANY(${p(q.types)}::text[])`];
  if (q.statuses) where.push(`p.status = ANY(${p(q.statuses)}::text[])`);
  if (q.access) where.push(accessSql(q.access, p));
  if (q.search) {
    const names = q.searchColumns?.length ? q.searchColumns : Object.keys(COLUMN_OF_SEARCH);
    // A password guards an item's content and excerpt: a search must not find them by it.
    const rule = q.protectedSearch ?? 'none';
    const guarded =
      rule === 'none'
        ? undefined
        : `(p.password = ''${Object.entries(rule.byType)
            .map(([type, access]) => ` OR (p.type = ${p(type)} AND ${accessSql(access, p)})`)
            .join('')})`;
    const columns = names.map((c) => ({
      sql: c === 'attachment_file' ? ATTACHMENT_FILE_COLUMN : COLUMN_OF_SEARCH[c]!,
      guarded: guarded !== undefined && (c === 'post_content' || c === 'post_excerpt'),
    }));
    const match = (c: { sql: string; guarded: boolean }, pattern: string) =>
      c.guarded ? `(${guarded} AND ${c.sql} ILIKE ${pattern})` : `${c.sql} ILIKE ${pattern}`;
    const words = q.searchExact ? [q.search] : q.search.split(/\s+/).filter((w) => w !== '');
    for (const word of words) {
      const negate = !q.searchExact && word.startsWith('-') && word.length > 1;
      const pattern = p(`%${escapeLike(negate ? word.slice(1) : word)}%`);
      const any = columns.map((c) => match(c, pattern)).join(' OR ');
      where.push(negate ? `NOT (${any})` : `(${any})`);
    }
    if (rule === 'none') where.push(`p.password = ''`);
  }
  const date = `coalesce(p.date_gmt, p.modified_gmt)`;
  if (q.after) where.push(`${date} > ${p(q.after)}`);
  if (q.before) where.push(`${date} < ${p(q.before)}`);
  if (q.modifiedAfter) where.push(`p.modified_gmt > ${p(q.modifiedAfter)}`);
  if (q.modifiedBefore) where.push(`p.modified_gmt < ${p(q.modifiedBefore)}`);
  if (q.authors?.length) where.push(`coalesce(p.author, 0) = ANY(${p(q.authors)}::bigint[])`);
  if (q.authorExclude?.length)
    where.push(`NOT (coalesce(p.author, 0) = ANY(${p(q.authorExclude)}::bigint[]))`);
  if (q.include?.length) where.push(`p.id = ANY(${p(q.include)}::bigint[])`);
  if (q.exclude?.length) where.push(`NOT (p.id = ANY(${p(q.exclude)}::bigint[]))`);
  if (q.parents?.length) where.push(`p.parent = ANY(${p(q.parents)}::bigint[])`);
  if (q.parentExclude?.length) where.push(`NOT (p.parent = ANY(${p(q.parentExclude)}::bigint[]))`);
  if (q.slugs?.length) where.push(`p.slug = ANY(${p(q.slugs)}::text[])`);
  if (q.mediaTypes?.length) {
    where.push(`split_part(${ATTACHMENT_MIME_TYPE}, '/', 1) = ANY(${p(q.mediaTypes)}::text[])`);
  }
  if (q.mimeTypes?.length) where.push(`${ATTACHMENT_MIME_TYPE} = ANY(${p(q.mimeTypes)}::text[])`);
  if (q.menuOrder !== undefined) where.push(`p.menu_order = ${p(q.menuOrder)}`);
  if (q.sticky !== undefined) where.push(q.sticky ? 'p.sticky' : 'NOT p.sticky');
  if (q.formats?.length) where.push(`p.format = ANY(${p(q.formats)}::text[])`);
  if (q.autosave !== undefined) where.push(q.autosave ? 'p.is_autosave' : 'NOT p.is_autosave');
  const taxSql = (f: TaxFilter): string => {
    const ids = p(f.terms);
    if (f.operator === 'AND') {
      return `(SELECT count(DISTINCT r.term_id) FROM site_term_relationships r WHERE r.post_id = p.id AND r.term_id = ANY(${ids}::bigint[])) = cardinality(${ids}::bigint[])`;
    }
    const exists = `EXISTS (SELECT 1 FROM site_term_relationships r WHERE r.post_id = p.id AND r.term_id = ANY(${ids}::bigint[]))`;
    return f.operator === 'NOT' ? `NOT ${exists}` : exists;
  };
  const included = (q.tax ?? []).filter((f) => f.terms.length > 0).map(taxSql);
  if (included.length > 0)
    where.push(`(${included.join(q.taxRelation === 'OR' ? ' OR ' : ' AND ')})`);
  for (const f of q.taxExclude ?? [])
    if (f.terms.length > 0) where.push(taxSql({ ...f, operator: 'NOT' }));
  return { sql: where.join(' AND '), params };
}

function orderOf(q: PostListQuery, params: unknown[]): string {
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let by: string;
  switch (q.orderby) {
    case 'author':
      by = `coalesce(p.author, 0) ${dir}`;
      break;
    case 'id':
      by = `p.id ${dir}`;
      break;
    case 'include':
      by = q.include?.length
        ? // WP_Query's post__in order ignores `order`.
          `array_position(${p(q.include)}::bigint[], p.id) ASC`
        : `p.id ${dir}`;
      break;
    case 'include_slugs':
      by = q.slugs?.length ? `array_position(${p(q.slugs)}::text[], p.slug) ASC` : `p.id ${dir}`;
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
      by = `lower(p.title) ${dir}`;
      break;
    case 'menu_order':
      by = `p.menu_order ${dir}`;
      break;
    case 'relevance':
      // WordPress: whole phrase in the title first, then every word in the title, then the rest.
      by = q.search
        ? `(p.title ILIKE ${p(`%${escapeLike(q.search)}%`)}) DESC, coalesce(p.date_gmt, p.modified_gmt) DESC`
        : `coalesce(p.date_gmt, p.modified_gmt) ${dir}`;
      break;
    default:
      by = `coalesce(p.date_gmt, p.modified_gmt) ${dir}`;
  }
  const sticky = q.stickyFirst ? 'p.sticky DESC, ' : '';
  return `${sticky}${by}, p.id ${dir}`;
}

/** One page of items and how many match in all. */
export async function listPosts(
  db: Queryable,
  q: PostListQuery,
): Promise<{ total: number; items: SitePost[] }> {
  const { sql, params } = whereOf(q);
  const countParams = [...params];
  const order = orderOf(q, params);
  params.push(q.limit, q.offset);
  // One round trip: the page with the total alongside; a count of its own only past the end.
  const rows = await db.query<SitePostRow & { total: string | number }>(
    `SELECT ${SITE_POST_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ')}, count(*) OVER () AS total
       FROM site_posts p WHERE ${sql} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  let total = rows.rows[0] ? Number(rows.rows[0].total) : 0;
  if (rows.rows.length === 0 && q.offset > 0) {
    const count = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM site_posts p WHERE ${sql}`,
      countParams,
    );
    total = Number(count.rows[0]!.n);
  }
  return { total, items: rows.rows.map(sitePostOf) };
}

export async function getPost(db: Queryable, id: number): Promise<SitePost | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const r = await db.query<SitePostRow>(
    `SELECT ${SITE_POST_COLUMNS} FROM site_posts WHERE id = $1`,
    [id],
  );
  return r.rows[0] ? sitePostOf(r.rows[0]) : undefined;
}

export async function getPosts(
  db: Queryable,
  ids: readonly number[],
): Promise<Map<number, SitePost>> {
  const out = new Map<number, SitePost>();
  if (ids.length === 0) return out;
  const r = await db.query<SitePostRow>(
    `SELECT ${SITE_POST_COLUMNS} FROM site_posts WHERE id = ANY($1::bigint[])`,
    [[...new Set(ids)]],
  );
  for (const row of r.rows) out.set(Number(row.id), sitePostOf(row));
  return out;
}

export async function findPostBySlug(
  db: Queryable,
  type: string,
  slug: string,
): Promise<SitePost | undefined> {
  const r = await db.query<SitePostRow>(
    `SELECT ${SITE_POST_COLUMNS} FROM site_posts WHERE type = $1 AND slug = $2`,
    [type, slug],
  );
  return r.rows[0] ? sitePostOf(r.rows[0]) : undefined;
}

/** The slug, made unique among items of the type (`-2`, `-3`, ...) other than `exceptId`. */
export async function uniquePostSlug(
  db: Queryable,
  type: string,
  slug: string,
  exceptId = 0,
): Promise<string> {
  if (slug === '') return '';
  return uniqueSlug(slug, async (candidate) => {
    const r = await db.query(
      'SELECT 1 FROM site_posts WHERE type = $1 AND slug = $2 AND id <> $3',
      [type, candidate, exceptId],
    );
    return r.rowCount > 0;
  });
}

function columnsAndValues(fields: SitePostFields): { columns: string[]; values: unknown[] } {
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(fields) as [keyof SitePostFields, unknown][]) {
    if (value === undefined) continue;
    columns.push(FIELD_COLUMNS[key]);
    if (key === 'author') values.push(value === 0 ? null : value);
    else if (key === 'meta' || key === 'extra') values.push(JSON.stringify(value));
    else values.push(value);
  }
  return { columns, values };
}

const UNIQUE_VIOLATION = '23505';
function isSlugConflict(err: unknown): boolean {
  return (err as { code?: string }).code === UNIQUE_VIOLATION;
}

/** Inserts an item; its slug is made unique per type (retried if another writer took it meanwhile). */
export async function insertPost(
  db: Queryable,
  fields: SitePostFields & { type: string },
): Promise<SitePost> {
  for (let attempt = 0; ; attempt++) {
    const slug =
      fields.slug && fields.type !== 'revision'
        ? await uniquePostSlug(db, fields.type, fields.slug)
        : fields.slug;
    const { columns, values } = columnsAndValues({ ...fields, slug });
    try {
      const r = await db.query<SitePostRow>(
        `INSERT INTO site_posts (${columns.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
         RETURNING ${SITE_POST_COLUMNS}`,
        values,
      );
      return sitePostOf(r.rows[0]!);
    } catch (err) {
      if (attempt < 5 && isSlugConflict(err)) continue;
      throw err;
    }
  }
}

/** Updates the given fields (and modified_gmt); the slug, if given, is made unique. */
export async function updatePost(
  db: Queryable,
  id: number,
  fields: SitePostFields,
  now: Date = new Date(),
): Promise<SitePost | undefined> {
  for (let attempt = 0; ; attempt++) {
    const current = await getPost(db, id);
    if (!current) return undefined;
    const slug =
      fields.slug !== undefined && current.type !== 'revision'
        ? await uniquePostSlug(db, current.type, fields.slug, id)
        : undefined;
    const { columns, values } = columnsAndValues({ modifiedGmt: now, ...fields, slug });
    try {
      const r = await db.query<SitePostRow>(
        `UPDATE site_posts SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1
         RETURNING ${SITE_POST_COLUMNS}`,
        [id, ...values],
      );
      return r.rows[0] ? sitePostOf(r.rows[0]) : undefined;
    } catch (err) {
      if (attempt < 5 && isSlugConflict(err)) continue;
      throw err;
    }
  }
}

/** Deletes an item for good, with its revisions and autosaves. */
export async function deletePost(db: Queryable, id: number): Promise<boolean> {
  await db.query(`DELETE FROM site_posts WHERE parent = $1 AND type = 'revision'`, [id]);
  const r = await db.query('DELETE FROM site_posts WHERE id = $1', [id]);
  return r.rowCount > 0;
}

/** Revision counts and the latest (non-autosave) revision id of each parent. */
export async function revisionSummary(
  db: Queryable,
  parentIds: readonly number[],
): Promise<Map<number, { count: number; latest: number }>> {
  const out = new Map<number, { count: number; latest: number }>();
  if (parentIds.length === 0) return out;
  const r = await db.query<{
    parent: string | number;
    n: string | number;
    latest: string | number;
  }>(
    `SELECT parent, count(*) AS n, max(id) AS latest FROM site_posts
      WHERE type = 'revision' AND NOT is_autosave AND parent = ANY($1::bigint[]) GROUP BY parent`,
    [[...new Set(parentIds)]],
  );
  for (const row of r.rows)
    out.set(Number(row.parent), { count: Number(row.n), latest: Number(row.latest) });
  return out;
}

/**
 * WordPress's normalize_whitespace, with which wp_save_post_revision compares: trimmed, CR as
 * LF, runs of LF as one, runs of spaces and tabs as one space.
 */
export function normalizeWhitespace(text: string): string {
  // PHP's trim() strips these six only (JavaScript's trim() also strips no-break spaces).
  return (
    text
      // eslint-disable-next-line no-control-regex -- NUL and vertical tab are among them
      .replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '')
      .replace(/\r/g, '\n')
      .replace(/\n+/g, '\n')
      .replace(/[ \t]+/g, ' ')
  );
}

/**
 * wp_save_post_revision: stores the item's title, content and excerpt as a revision when they
 * differ from its latest revision (or it has none), compared as WordPress compares them
 * (normalize_whitespace: a change of whitespace alone writes no revision; what is stored is the
 * text as it is). Returns the revision, or undefined.
 */
export async function saveRevision(
  db: Queryable,
  post: SitePost,
  author: number,
  now: Date,
): Promise<SitePost | undefined> {
  const last = await db.query<SitePostRow>(
    `SELECT ${SITE_POST_COLUMNS} FROM site_posts WHERE parent = $1 AND type = 'revision' AND NOT is_autosave
      ORDER BY id DESC LIMIT 1`,
    [post.id],
  );
  const prev = last.rows[0] ? sitePostOf(last.rows[0]) : undefined;
  const same = (a: string, b: string) => normalizeWhitespace(a) === normalizeWhitespace(b);
  if (
    prev &&
    same(prev.title, post.title) &&
    same(prev.content, post.content) &&
    same(prev.excerpt, post.excerpt)
  ) {
    return undefined;
  }
  return insertPost(db, {
    type: 'revision',
    status: 'inherit',
    parent: post.id,
    author,
    title: post.title,
    content: post.content,
    excerpt: post.excerpt,
    slug: `${post.id}-revision-v1`,
    dateGmt: now,
    modifiedGmt: now,
    meta: post.meta,
  });
}

/** An item's autosaves (one per user), newest first. */
export async function listAutosaves(
  db: Queryable,
  parentId: number,
  limit: number,
): Promise<SitePost[]> {
  const { items } = await listPosts(db, {
    types: ['revision'],
    parents: [parentId],
    autosave: true,
    orderby: 'date',
    order: 'desc',
    limit,
    offset: 0,
  });
  return items;
}

/** Deletes `author`'s latest autosave of an item, if there is one. */
export async function deleteLatestAutosave(
  db: Queryable,
  parentId: number,
  author: number,
): Promise<void> {
  const { items } = await listPosts(db, {
    types: ['revision'],
    parents: [parentId],
    autosave: true,
    authors: [author],
    orderby: 'id',
    order: 'desc',
    limit: 1,
    offset: 0,
  });
  if (items[0]) await deletePost(db, items[0].id);
}

/** One autosave per user and item: creates it or overwrites that user's previous one. */
export async function saveAutosave(
  db: Queryable,
  parent: SitePost,
  author: number,
  fields: {
    title: string;
    content: string;
    excerpt: string;
    meta?: Record<string, unknown>;
    /** The type's own fields (menu items: url, object, ...). */
    extra?: Record<string, unknown>;
  },
  now: Date,
): Promise<SitePost> {
  const existing = await db.query<{ id: string | number }>(
    `SELECT id FROM site_posts WHERE parent = $1 AND type = 'revision' AND is_autosave AND author = $2`,
    [parent.id, author],
  );
  const row = existing.rows[0];
  if (row) {
    const updated = await updatePost(db, Number(row.id), { ...fields, dateGmt: now }, now);
    if (updated) return updated;
  }
  return insertPost(db, {
    type: 'revision',
    status: 'inherit',
    isAutosave: true,
    parent: parent.id,
    author,
    slug: `${parent.id}-autosave-v1`,
    dateGmt: now,
    modifiedGmt: now,
    meta: fields.meta ?? {},
    extra: fields.extra ?? {},
    title: fields.title,
    content: fields.content,
    excerpt: fields.excerpt,
  });
}
