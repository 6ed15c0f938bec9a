import type { Queryable } from '../../shared/db/db.js';

/** A published page as the page tree knows it. */
export interface PageNode {
  id: number;
  parent: number;
  title: string;
  /** Its path below the site: the slugs of its ancestors and its own, e.g. `manual/api`. */
  path: string;
  children: PageNode[];
}

/** Where a page sits in its tree: what the manual's navigation shows around it. */
export interface PageNavigation {
  /** The tree's top page (the page itself when it has no parent). */
  root: PageNode;
  /** The page's ancestors, top first (empty for the top page). */
  ancestors: PageNode[];
  /** The page's own node (its children are its chapters). */
  node: PageNode;
  /** The pages before and after it when the tree is read top to bottom (depth first). */
  previous?: PageNode;
  next?: PageNode;
}

/** Published pages above this many are not given a tree (a site of pages is small). */
const MAX_PAGES = 2000;

/**
 * The published pages as trees (children in menu_order, then title, then id, as WordPress's
 * page lists order them), by id. A page whose parent is not published is a top page.
 */
export async function publishedPageTree(db: Queryable): Promise<Map<number, PageNode>> {
  const r = await db.query<{
    id: string | number;
    parent: string | number;
    slug: string;
    title: string;
  }>(
    `SELECT id, parent, slug, title FROM site_posts
      WHERE type = 'page' AND status = 'publish' AND password = ''
      ORDER BY menu_order, title, id LIMIT ${MAX_PAGES}`,
  );
  const nodes = new Map<number, PageNode & { slug: string }>();
  for (const row of r.rows) {
    nodes.set(Number(row.id), {
      id: Number(row.id),
      parent: Number(row.parent),
      slug: row.slug || String(row.id),
      title: row.title,
      path: '',
      children: [],
    });
  }
  for (const node of nodes.values()) {
    const parent = nodes.get(node.parent);
    if (parent && parent !== node) parent.children.push(node);
    else node.parent = 0;
  }
  const setPaths = (node: PageNode & { slug: string }, prefix: string, depth: number) => {
    node.path = prefix ? `${prefix}/${node.slug}` : node.slug;
    if (depth > 10) return;
    for (const child of node.children)
      setPaths(child as PageNode & { slug: string }, node.path, depth + 1);
  };
  for (const node of nodes.values()) if (node.parent === 0) setPaths(node, '', 0);
  return nodes;
}

/** The pages of a tree top to bottom, depth first. */
function flatten(root: PageNode): PageNode[] {
  const out: PageNode[] = [];
  const walk = (n: PageNode, depth: number) => {
    out.push(n);
    if (depth < 10) for (const c of n.children) walk(c, depth + 1);
  };
  walk(root, 0);
  return out;
}

/**
 * The navigation of a page that belongs to a tree (it has a parent or children); undefined for a
 * page on its own, or one that is not a published page.
 */
export function pageNavigation(
  tree: ReadonlyMap<number, PageNode>,
  pageId: number,
): PageNavigation | undefined {
  const node = tree.get(pageId);
  if (!node || (node.parent === 0 && node.children.length === 0)) return undefined;
  const ancestors: PageNode[] = [];
  let up = tree.get(node.parent);
  while (up && ancestors.length < 10) {
    ancestors.unshift(up);
    up = tree.get(up.parent);
  }
  const root = ancestors[0] ?? node;
  const order = flatten(root);
  const at = order.indexOf(node);
  return { root, ancestors, node, previous: order[at - 1], next: order[at + 1] };
}
