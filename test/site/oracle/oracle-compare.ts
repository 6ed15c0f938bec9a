import type { CorpusRequest } from './oracle-corpus.js';
import type { NormalisedAnswer } from './oracle-normalise.js';

/**
 * Compare-time rules: applied to BOTH normalised answers (WordPress's golden one and ours) just
 * before they are compared, so the golden files stay as captured. Each rule is documented, with
 * the number of requests it touches, in docs/site-wordpress-fidelity.md ("What is normalised").
 */

/**
 * The route shapes of the spec's endpoint table (docs-site-content-api.md, `{cms}` = `wp`), a
 * route's parameters written as `{name}`. The spec gives shapes, not patterns: a template id's
 * pattern (WordPress 6.1 `[\/\w-]+`, the spec's later one with `%` and a slash part) is not
 * compared, its name is.
 */
const POST_LIKE = ['posts', 'pages', 'blocks'].flatMap((base) => [
  `/wp/v2/${base}`,
  `/wp/v2/${base}/{id}`,
  `/wp/v2/${base}/{parent}/revisions`,
  `/wp/v2/${base}/{parent}/revisions/{id}`,
  `/wp/v2/${base}/{id}/autosaves`,
  `/wp/v2/${base}/{parent}/autosaves/{id}`,
]);
export const SPEC_ROUTE_SHAPES: ReadonlySet<string> = new Set([
  '/',
  '/batch/v1',
  '/oembed/1.0',
  '/oembed/1.0/embed',
  '/oembed/1.0/proxy',
  '/wp/v2',
  ...POST_LIKE,
  '/wp/v2/media',
  '/wp/v2/media/{id}',
  '/wp/v2/media/{id}/post-process',
  '/wp/v2/media/{id}/edit',
  '/wp/v2/menu-items',
  '/wp/v2/menu-items/{id}',
  '/wp/v2/menu-items/{id}/autosaves',
  '/wp/v2/menu-items/{parent}/autosaves/{id}',
  '/wp/v2/templates',
  '/wp/v2/templates/lookup',
  '/wp/v2/templates/{parent}/revisions',
  '/wp/v2/templates/{parent}/revisions/{id}',
  '/wp/v2/templates/{id}/autosaves',
  '/wp/v2/templates/{parent}/autosaves/{id}',
]);

/**
 * The namespaces whose routes the spec describes. It also names `wp-site-health/v1`,
 * `wp-block-editor/v1` and `wp-abilities/v1` (the last after 6.1), but none of their routes.
 */
export const SPEC_NAMESPACES: ReadonlySet<string> = new Set(['oembed/1.0', 'wp/v2']);

/** The index's site facts the spec asks for and WordPress 6.1's index does not have. */
const INDEX_FIELDS_BEYOND_6_1 = ['page_for_posts', 'page_on_front', 'show_on_front'];

/** Index links to routes the spec does not cover (`wp:active-theme`: /wp/v2/themes). */
const INDEX_RELS_OUTSIDE_SPEC = new Set(['wp:active-theme']);

/** `/wp/v2/posts/(?P<id>[\d]+)` -> `/wp/v2/posts/{id}`: each named group as its name. */
export function routeShape(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    if (!pattern.startsWith('(?P<', i)) {
      out += pattern[i++];
      continue;
    }
    const nameEnd = pattern.indexOf('>', i);
    out += `{${pattern.slice(i + 4, nameEnd)}}`;
    // Skip to the group's closing parenthesis (escapes and character classes read as such).
    let depth = 1;
    let inClass = false;
    i = nameEnd + 1;
    while (i < pattern.length && depth > 0) {
      const c = pattern[i]!;
      if (c === '\\') i++;
      else if (inClass) inClass = c !== ']';
      else if (c === '[') inClass = true;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
      i++;
    }
  }
  return out;
}

/**
 * The index (`/`, `/wp/v2`): the routes and namespaces the spec covers, compared as sets of
 * shapes; the site facts added after 6.1 and the links to routes outside the spec left out
 * (`curies` with them when no `wp:` link is left).
 */
function indexAsTheSpecCoversIt(body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  if (Array.isArray(out.routes)) {
    out.routes = [
      ...new Set((out.routes as string[]).map(routeShape).filter((s) => SPEC_ROUTE_SHAPES.has(s))),
    ].sort();
  }
  if (Array.isArray(out.namespaces)) {
    out.namespaces = (out.namespaces as string[]).filter((n) => SPEC_NAMESPACES.has(n)).sort();
  }
  for (const field of INDEX_FIELDS_BEYOND_6_1) delete out[field];
  if (out._links && typeof out._links === 'object') {
    const links = Object.fromEntries(
      Object.entries(out._links).filter(([rel]) => !INDEX_RELS_OUTSIDE_SPEC.has(rel)),
    );
    if (!Object.keys(links).some((rel) => rel.startsWith('wp:'))) delete links.curies;
    out._links = links;
  }
  return out;
}

/** Arguments of the blocks' routes from WordPress 6.3 on (the spec asks for them). */
const BLOCK_ARGS_BEYOND_6_1 = new Set(['meta', 'tax_relation', 'wp_pattern_category']);

/**
 * OPTIONS of the blocks' routes: what the spec's blocks have from WordPress 6.3 on, left out on
 * both sides (the normaliser already leaves out the `wp_pattern_category` field and list
 * filters): the writing endpoints' `meta` (wp_pattern_sync_status) and `wp_pattern_category`,
 * the list's `tax_relation` (blocks have a taxonomy only since then), the schema's `meta` and
 * its `action-assign/create-wp_pattern_category` links.
 */
function blockOptionsWithout63Args(body: Record<string, unknown>): Record<string, unknown> {
  const schema = body.schema as
    { title?: unknown; properties?: Record<string, unknown>; links?: string[] } | undefined;
  if (!Array.isArray(body.endpoints) || typeof schema?.title !== 'string') return body;
  if (!/^wp_block(-revision)?$/.test(schema.title)) return body;
  const properties = { ...schema.properties };
  delete properties.meta;
  return {
    ...body,
    endpoints: (body.endpoints as Array<{ args: string[] }>).map((e) => ({
      ...e,
      args: e.args.filter((a) => !BLOCK_ARGS_BEYOND_6_1.has(a)),
    })),
    schema: {
      ...schema,
      properties,
      ...(Array.isArray(schema.links)
        ? { links: schema.links.filter((l) => !l.endsWith('-wp_pattern_category')) }
        : {}),
    },
  };
}

/** Template fields from WordPress 6.3 (`modified`) and 6.5 (`author_text`, `original_source`). */
const TEMPLATE_FIELDS_BEYOND_6_1 = ['modified', 'author_text', 'original_source'];

/**
 * OPTIONS of the templates' routes: the fields the spec's templates have from WordPress 6.3 and
 * 6.5 on, left out of the schema on both sides (6.1 cannot have them).
 */
function templateOptionsWithoutLaterFields(body: Record<string, unknown>): Record<string, unknown> {
  const schema = body.schema as
    { title?: unknown; properties?: Record<string, unknown> } | undefined;
  if (schema?.title !== 'wp_template' || !schema.properties) return body;
  const properties = { ...schema.properties };
  for (const field of TEMPLATE_FIELDS_BEYOND_6_1) delete properties[field];
  return { ...body, schema: { ...schema, properties } };
}

/** The `orderby` values whose sort key posts may share (WordPress has no tie-breaker). */
const TIED_KEYS: Record<string, string> = {
  author: 'author',
  parent: 'parent',
  modified: 'modified',
};

/**
 * `orderby=author` / `parent` / `modified`: WordPress sorts by that key alone (`ORDER BY
 * post_author DESC`), so tied items come back in MySQL's order and which of them fill a page is
 * undefined (posts written in the same second, sorted by `post_modified` without an index, come
 * back in another order on each page: page 2 may repeat items of page 1).
 * Compared: the items by their sort key; within a tie, the set of items (sorted by id); a tie
 * the page cuts (items of it may sit on the next or previous page) by its key and size only.
 */
function tieInsensitive(answer: NormalisedAnswer, query: URLSearchParams): NormalisedAnswer {
  const key = TIED_KEYS[query.get('orderby') ?? ''];
  if (!key || !Array.isArray(answer.body)) return answer;
  const items = answer.body as Array<Record<string, unknown>>;
  const perPage = Number(query.get('per_page') ?? 10);
  const start = query.has('offset')
    ? Number(query.get('offset'))
    : (Number(query.get('page') ?? 1) - 1) * perPage;
  const total = Number(answer.headers.total ?? items.length);
  const groups: Array<Array<Record<string, unknown>>> = [];
  for (const item of items) {
    const last = groups[groups.length - 1];
    if (last && JSON.stringify(last[0]![key]) === JSON.stringify(item[key])) last.push(item);
    else groups.push([item]);
  }
  const body = groups.map((group, i) => {
    const cut = (i === 0 && start > 0) || (i === groups.length - 1 && start + items.length < total);
    if (cut) return { tie: group[0]![key] ?? null, size: group.length };
    return [...group].sort((a, b) => String(a.id).localeCompare(String(b.id)));
  });
  return { ...answer, body };
}

type Rule = (request: CorpusRequest, answer: NormalisedAnswer) => NormalisedAnswer;

/** A rule on an object body (an array or an error body passes through). */
function onObjectBody(
  when: (request: CorpusRequest) => boolean,
  rule: (body: Record<string, unknown>) => Record<string, unknown>,
): Rule {
  return (request, answer) => {
    const body = answer.body;
    if (!when(request) || !body || typeof body !== 'object' || Array.isArray(body)) return answer;
    return { ...answer, body: rule(body as Record<string, unknown>) };
  };
}

/** The compare-time rules by name (docs/site-wordpress-fidelity.md, `npm run oracle:table -- --rules`). */
export const COMPARE_RULES: ReadonlyArray<{ name: string; apply: Rule }> = [
  {
    name: 'orderby=author/parent/modified ties compared as sets',
    apply: (request, answer) => tieInsensitive(answer, new URLSearchParams(request.query)),
  },
  {
    name: 'the index as the spec covers it',
    apply: onObjectBody((r) => r.category === 'index', indexAsTheSpecCoversIt),
  },
  {
    name: "the blocks' 6.3 arguments, meta and links left out of OPTIONS",
    apply: onObjectBody((r) => r.method === 'OPTIONS', blockOptionsWithout63Args),
  },
  {
    name: "the templates' 6.3/6.5 fields left out of OPTIONS",
    apply: onObjectBody((r) => r.method === 'OPTIONS', templateOptionsWithoutLaterFields),
  },
];

/** One normalised answer as it is compared (every rule above, in order). */
export function comparable(request: CorpusRequest, answer: NormalisedAnswer): NormalisedAnswer {
  if (!answer) return answer;
  return COMPARE_RULES.reduce((out, rule) => rule.apply(request, out), answer);
}

/**
 * What WordPress 6.1 can judge of a request using a filter it ignores (CorpusRequest.beyond61):
 * the status (or error code), the Allow header and the fields each item has, not which items
 * come back, how many, or the Link queries.
 */
export function judgeableBy61(answer: NormalisedAnswer): unknown {
  const fieldsOf = (item: unknown) =>
    item && typeof item === 'object' ? Object.keys(item).sort().join(',') : typeof item;
  const body = answer.body;
  return {
    status: answer.status,
    allow: answer.headers.allow,
    body: Array.isArray(body)
      ? [...new Set(body.map(fieldsOf))].sort()
      : body && typeof body === 'object' && 'code' in body
        ? body
        : fieldsOf(body),
  };
}
