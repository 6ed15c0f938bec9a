import type { Queryable } from '../../shared/db/db.js';
import { sanitizeSlug, uniqueSlug } from './slugs.js';

/** A term of a taxonomy (category, post_tag, nav_menu, ...) with its count of published items. */
export interface SiteTerm {
  id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  count: number;
  meta: Record<string, unknown>;
  extra: Record<string, unknown>;
}

interface Row {
  id: string | number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: string | number;
  count: string | number;
  meta: Record<string, unknown> | string;
  extra: Record<string, unknown> | string;
}

// Counted as WordPress does: published items (menus: every item).
const SELECT = `SELECT t.id, t.taxonomy, t.name, t.slug, t.description, t.parent, t.meta, t.extra,
  (SELECT count(*) FROM site_term_relationships r JOIN site_posts p ON p.id = r.post_id
    WHERE r.term_id = t.id AND (p.status = 'publish' OR t.taxonomy = 'nav_menu')) AS count
  FROM site_terms t`;

const json = (v: Record<string, unknown> | string) =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : v;

function toTerm(r: Row): SiteTerm {
  return {
    id: Number(r.id),
    taxonomy: r.taxonomy,
    name: r.name,
    slug: r.slug,
    description: r.description,
    parent: Number(r.parent),
    count: Number(r.count),
    meta: json(r.meta),
    extra: json(r.extra),
  };
}

export interface TermListQuery {
  taxonomy: string;
  include?: number[];
  exclude?: number[];
  search?: string;
  slugs?: string[];
  parent?: number;
  post?: number;
  hideEmpty?: boolean;
  orderby:
    'id' | 'include' | 'name' | 'slug' | 'include_slugs' | 'term_group' | 'description' | 'count';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export async function listTerms(
  db: Queryable,
  q: TermListQuery,
): Promise<{ total: number; items: SiteTerm[] }> {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = [`t.taxonomy = ${p(q.taxonomy)}`];
  if (q.include?.length) where.push(`t.id = ANY(${p(q.include)}::bigint[])`);
  if (q.exclude?.length) where.push(`NOT (t.id = ANY(${p(q.exclude)}::bigint[]))`);
  if (q.search) {
    const like = p(`%${q.search.replace(/[\\%_]/g, '\\$&')}%`);
    where.push(`(t.name ILIKE ${like} OR t.slug ILIKE ${like})`);
  }
  if (q.slugs?.length) where.push(`t.slug = ANY(${p(q.slugs)}::text[])`);
  if (q.parent !== undefined) where.push(`t.parent = ${p(q.parent)}`);
  if (q.post !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM site_term_relationships r WHERE r.term_id = t.id AND r.post_id = ${p(q.post)})`,
    );
  }
  const base = `SELECT * FROM (${SELECT} WHERE ${where.join(' AND ')}) AS x${q.hideEmpty ? ' WHERE x.count > 0' : ''}`;
  const countParams = [...params];
  const dir = q.order === 'desc' ? 'DESC' : 'ASC';
  const order =
    q.orderby === 'id'
      ? 'x.id'
      : q.orderby === 'include' && q.include?.length
        ? `array_position(${p(q.include)}::bigint[], x.id)`
        : q.orderby === 'include_slugs' && q.slugs?.length
          ? `array_position(${p(q.slugs)}::text[], x.slug)`
          : q.orderby === 'slug'
            ? 'x.slug'
            : q.orderby === 'description'
              ? 'x.description'
              : q.orderby === 'count'
                ? 'x.count'
                : 'lower(x.name)';
  // Ties in the order MySQL gives WordPress's ORDER BY of one column: by id, ascending.
  // One round trip: the page with the total alongside; a count of its own only past the end.
  const withTotal = base.replace(/^SELECT \*/, 'SELECT x.*, count(*) OVER () AS total');
  const rows = await db.query<Row & { total: string | number }>(
    `${withTotal} ORDER BY ${order} ${dir}, x.id ASC LIMIT ${p(q.limit)} OFFSET ${p(q.offset)}`,
    params,
  );
  let total = rows.rows[0] ? Number(rows.rows[0].total) : 0;
  if (rows.rows.length === 0 && q.offset > 0) {
    const c = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM (${base}) AS c`,
      countParams,
    );
    total = Number(c.rows[0]!.n);
  }
  return { total, items: rows.rows.map(toTerm) };
}

export async function getTerm(
  db: Queryable,
  id: number,
  taxonomy?: string,
): Promise<SiteTerm | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const r = await db.query<Row>(
    `${SELECT} WHERE t.id = $1${taxonomy ? ' AND t.taxonomy = $2' : ''}`,
    taxonomy ? [id, taxonomy] : [id],
  );
  return r.rows[0] ? toTerm(r.rows[0]) : undefined;
}

export async function findTermByName(
  db: Queryable,
  taxonomy: string,
  name: string,
  parent: number,
): Promise<SiteTerm | undefined> {
  const r = await db.query<Row>(
    `${SELECT} WHERE t.taxonomy = $1 AND lower(t.name) = lower($2) AND t.parent = $3`,
    [taxonomy, name, parent],
  );
  return r.rows[0] ? toTerm(r.rows[0]) : undefined;
}

async function termSlug(
  db: Queryable,
  taxonomy: string,
  slug: string,
  exceptId: number,
): Promise<string> {
  return uniqueSlug(slug, async (candidate) => {
    const r = await db.query(
      'SELECT 1 FROM site_terms WHERE taxonomy = $1 AND slug = $2 AND id <> $3',
      [taxonomy, candidate, exceptId],
    );
    return r.rowCount > 0;
  });
}

export interface TermFields {
  name?: string;
  slug?: string;
  description?: string;
  parent?: number;
  meta?: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

export async function insertTerm(
  db: Queryable,
  taxonomy: string,
  f: TermFields & { name: string },
): Promise<SiteTerm> {
  const slug = await termSlug(
    db,
    taxonomy,
    f.slug ? sanitizeSlug(f.slug) : sanitizeSlug(f.name) || 'term',
    0,
  );
  const r = await db.query<{ id: string | number }>(
    `INSERT INTO site_terms (taxonomy, name, slug, description, parent, meta, extra) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [
      taxonomy,
      f.name,
      slug,
      f.description ?? '',
      f.parent ?? 0,
      JSON.stringify(f.meta ?? {}),
      JSON.stringify(f.extra ?? {}),
    ],
  );
  return (await getTerm(db, Number(r.rows[0]!.id)))!;
}

export async function updateTerm(db: Queryable, term: SiteTerm, f: TermFields): Promise<SiteTerm> {
  const slug =
    f.slug !== undefined
      ? await termSlug(db, term.taxonomy, sanitizeSlug(f.slug), term.id)
      : term.slug;
  await db.query(
    `UPDATE site_terms SET name = $2, slug = $3, description = $4, parent = $5, meta = $6, extra = $7 WHERE id = $1`,
    [
      term.id,
      f.name ?? term.name,
      slug,
      f.description ?? term.description,
      f.parent ?? term.parent,
      JSON.stringify(f.meta ?? term.meta),
      JSON.stringify(f.extra ?? term.extra),
    ],
  );
  return (await getTerm(db, term.id))!;
}

/**
 * The term a taxonomy falls back to, which WordPress never lets anyone delete: for categories,
 * the `default_category` site option when it names one, else the site's first category (what
 * WordPress's install makes as term 1, "Uncategorized", and its option points at). Other
 * taxonomies have none.
 */
export async function defaultTermId(db: Queryable, taxonomy: string): Promise<number | undefined> {
  if (taxonomy !== 'category') return undefined;
  const option = await db.query<{ value: unknown }>(
    `SELECT value FROM site_options WHERE name = 'default_category'`,
  );
  const chosen = Number(option.rows[0]?.value);
  if (Number.isSafeInteger(chosen) && chosen > 0) return chosen;
  const first = await db.query<{ id: string | number | null }>(
    `SELECT min(id) AS id FROM site_terms WHERE taxonomy = 'category'`,
  );
  const id = first.rows[0]?.id;
  return id === null || id === undefined ? undefined : Number(id);
}

/**
 * Deletes a term; its children move up to its parent, and an item left without a term of the
 * taxonomy gets the taxonomy's default term (a post whose only category goes is filed under the
 * default category), as wp_delete_term does.
 */
export async function deleteTerm(db: Queryable, term: SiteTerm): Promise<void> {
  const fallback = await defaultTermId(db, term.taxonomy);
  if (fallback !== undefined && fallback !== term.id) {
    await db.query(
      `INSERT INTO site_term_relationships (post_id, term_id)
       SELECT r.post_id, $2 FROM site_term_relationships r
        WHERE r.term_id = $1
          AND NOT EXISTS (SELECT 1 FROM site_term_relationships o JOIN site_terms t ON t.id = o.term_id
                           WHERE o.post_id = r.post_id AND t.taxonomy = $3 AND o.term_id <> $1)
       ON CONFLICT DO NOTHING`,
      [term.id, fallback, term.taxonomy],
    );
  }
  await db.query('UPDATE site_terms SET parent = $2 WHERE parent = $1', [term.id, term.parent]);
  await db.query('DELETE FROM site_terms WHERE id = $1', [term.id]);
}

/** The term ids and their descendants (include_children). */
export async function withDescendants(db: Queryable, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const r = await db.query<{ id: string | number }>(
    `WITH RECURSIVE tree AS (
       SELECT id FROM site_terms WHERE id = ANY($1::bigint[])
       UNION SELECT t.id FROM site_terms t JOIN tree ON t.parent = tree.id)
     SELECT id FROM tree`,
    [ids],
  );
  return r.rows.map((x) => Number(x.id));
}

/** The terms of each item, by taxonomy, by name as wp_get_object_terms orders them. */
export async function termsOfPosts(
  db: Queryable,
  postIds: readonly number[],
): Promise<Map<number, Map<string, number[]>>> {
  const out = new Map<number, Map<string, number[]>>();
  if (postIds.length === 0) return out;
  const r = await db.query<{
    post_id: string | number;
    term_id: string | number;
    taxonomy: string;
  }>(
    `SELECT r.post_id, r.term_id, t.taxonomy FROM site_term_relationships r JOIN site_terms t ON t.id = r.term_id
      WHERE r.post_id = ANY($1::bigint[]) ORDER BY lower(t.name), r.term_id`,
    [[...new Set(postIds)]],
  );
  for (const row of r.rows) {
    const postId = Number(row.post_id);
    let byTax = out.get(postId);
    if (!byTax) out.set(postId, (byTax = new Map()));
    const list = byTax.get(row.taxonomy) ?? [];
    list.push(Number(row.term_id));
    byTax.set(row.taxonomy, list);
  }
  return out;
}

/** Sets an item's terms of one taxonomy (the others stay). */
export async function setPostTerms(
  db: Queryable,
  postId: number,
  taxonomy: string,
  termIds: readonly number[],
): Promise<void> {
  await db.query(
    `DELETE FROM site_term_relationships r USING site_terms t WHERE r.term_id = t.id AND r.post_id = $1 AND t.taxonomy = $2`,
    [postId, taxonomy],
  );
  if (termIds.length > 0) {
    await db.query(
      `INSERT INTO site_term_relationships (post_id, term_id)
       SELECT $1, id FROM site_terms WHERE taxonomy = $2 AND id = ANY($3::bigint[]) ON CONFLICT DO NOTHING`,
      [postId, taxonomy, [...new Set(termIds)]],
    );
  }
}

/** The ids among `ids` that are not terms of the taxonomy. */
export async function missingTerms(
  db: Queryable,
  taxonomy: string,
  ids: readonly number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const r = await db.query<{ id: string | number }>(
    `SELECT id FROM site_terms WHERE taxonomy = $1 AND id = ANY($2::bigint[])`,
    [taxonomy, [...new Set(ids)]],
  );
  const found = new Set(r.rows.map((x) => Number(x.id)));
  return ids.filter((id) => !found.has(id));
}
