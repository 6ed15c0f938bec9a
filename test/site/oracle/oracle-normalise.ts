import { createHash } from 'node:crypto';
import type { OracleAnswer } from './oracle-client.js';
import type { SeedIds } from './oracle-seed.js';

/**
 * What must differ between two sites with the same content, taken out of an answer: ids (as the
 * seed's references, `post:post-1`), hosts, the dates of "now" (seeded dates are kept: they are
 * fixed), guids' values, `_links` hrefs (a rel and its count are kept), rendered HTML (its keys
 * are kept: the renderers differ in whitespace, not in what they show), nonces and secrets.
 * Kept: status, error code, key sets per context, id order, totals, Link rels, Allow.
 */
export interface NormalisedAnswer {
  status: number;
  /** x-wp-total, x-wp-totalpages, allow (sorted), link (rel -> normalised query). */
  headers: Record<string, string>;
  body: unknown;
}

export class IdNames {
  private readonly posts = new Map<number, string>();
  private readonly terms = new Map<number, string>();
  private readonly users = new Map<number, string>();

  constructor(readonly ids: SeedIds) {
    for (const [ref, id] of ids.byRef) {
      const kind = ref.split(':')[0]!;
      if (kind === 'user') this.users.set(id, ref);
      else if (kind === 'category' || kind === 'tag' || kind === 'menu') this.terms.set(id, ref);
      else this.posts.set(id, ref);
    }
  }

  name(kind: 'post' | 'term' | 'user', id: number): string | number {
    if (id === 0) return 0;
    const map = kind === 'post' ? this.posts : kind === 'term' ? this.terms : this.users;
    return map.get(id) ?? '<new>';
  }

  /** `{post:post-1}` and friends in a path or query, as this site's ids. */
  resolve(text: string): string {
    return text.replace(
      /\{((?:post|page|block|menuitem|category|tag|menu|user|rev):[^}]+)\}/g,
      (_m, ref: string) => {
        const id = this.ids.byRef.get(decodeURIComponent(ref));
        if (id === undefined) return '0';
        return String(id);
      },
    );
  }

  /** A URL of either site as a path, its ids named. */
  url(href: string): string {
    let u: URL;
    try {
      u = new URL(href);
    } catch {
      return href;
    }
    let path = u.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      /* kept encoded */
    }
    path = path.replace(
      /\/wp\/v2\/(posts|pages|blocks|menu-items|media|categories|tags|menus|users)\/(\d+)/g,
      (_m, base: string, id: string) => `/wp/v2/${base}/${this.name(kindOfBase(base), Number(id))}`,
    );
    path = path.replace(
      /\/(revisions|autosaves)\/(\d+)/g,
      (_m, b: string, id: string) => `/${b}/${this.name('post', Number(id))}`,
    );
    // A post written by the replay is dated the day it runs, WordPress's the day its answers
    // were captured: the date of "now" in a permalink is taken out, as in a date field (seeded
    // posts keep theirs).
    path = path.replace(/\/(\d{4})\/\d\d\/\d\d\//g, (m, year: string) =>
      SEEDED_YEAR.test(`${year}-`) ? m : '/<now>/',
    );
    const params = [...u.searchParams.entries()]
      .map(([k, v]) => {
        const name = k.replace(/\[\d*\]$/, '');
        if (/^(include|exclude|parent|parent_exclude)$/.test(name) && /^\d+$/.test(v)) {
          return `${k}=${this.name('post', Number(v))}`;
        }
        if (/^(author|author_exclude)$/.test(name) && /^\d+$/.test(v)) {
          return `${k}=${this.name('user', Number(v))}`;
        }
        if (/^(categories|tags|menus)(_exclude)?$/.test(name) && /^\d+$/.test(v)) {
          return `${k}=${this.name('term', Number(v))}`;
        }
        if (/^(p|page_id|preview_id|post|parent|attachment_id)$/.test(k) && /^\d+$/.test(v)) {
          return `${k}=${this.name('post', Number(v))}`;
        }
        if (/^(cat|tag|tag_id|menus)$/.test(k) && /^\d+$/.test(v))
          return `${k}=${this.name('term', Number(v))}`;
        if (k === 'author' && /^\d+$/.test(v)) return `${k}=${this.name('user', Number(v))}`;
        if (k === '_wpnonce' || k === 'preview_nonce' || k === 'ver') return `${k}=<nonce>`;
        return `${k}=${v}`;
      })
      .sort();
    return `${path}${params.length ? `?${params.join('&')}` : ''}`;
  }
}

function kindOfBase(base: string): 'post' | 'term' | 'user' {
  if (base === 'categories' || base === 'tags' || base === 'menus') return 'term';
  if (base === 'users') return 'user';
  return 'post';
}

/**
 * What the spec asks for beyond WordPress 6.1 (docs/site-wordpress-fidelity.md lists each with
 * the version that added it): taken out of both answers, as 6.1 cannot have them. And the
 * comments, which are outside the spec (no /wp/v2/comments route): the `replies` link and embed.
 */
export const BEYOND_6_1 = {
  /** meta keys: footnotes (WordPress 6.3), the spec's `_{ext}_changed`, the blocks' sync status. */
  meta: new Set(['footnotes', '_wp_changed', 'wp_pattern_sync_status']),
  /** List arguments added after 6.1 that the spec lists (search_columns, format, ...). */
  listArgs: new Set([
    'search_columns',
    'search_semantics',
    'format',
    'ignore_sticky',
    'excerpt_length',
    'wp_pattern_category',
    'wp_pattern_category_exclude',
  ]),
  /** Fields: the blocks' wp_pattern_category (6.3). */
  fields: new Set(['wp_pattern_category']),
  /** Links and embeds of routes outside the spec (comments), and of wp_pattern_category. */
  rels: new Set([
    'replies',
    'wp:action-create-wp_pattern_category',
    'wp:action-assign-wp_pattern_category',
  ]),
};

const SEEDED_YEAR = /^(2021|2031)-/;
const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
const HTML_FIELDS = new Set(['content', 'excerpt', 'description', 'caption']);
const POST_ID_KEYS = new Set(['parent', 'post', 'featured_media', 'object_id']);
const TERM_ARRAY_KEYS = new Set(['categories', 'tags', 'menus', 'wp_pattern_category']);

type Kind = 'post' | 'term' | 'user';

/** The kind of a REST object by its keys (a `_fields`-cut object falls back to the hint). */
function kindOf(obj: Record<string, unknown>, hint: Kind): Kind {
  if ('taxonomy' in obj || 'locations' in obj || 'auto_add' in obj || 'count' in obj) return 'term';
  if ('avatar_urls' in obj || 'roles' in obj || 'capabilities' in obj) return 'user';
  if ('type' in obj || 'guid' in obj || 'date' in obj || 'menu_order' in obj) return 'post';
  return hint;
}

export function hintOfPath(path: string): Kind {
  if (/^\/wp\/v2\/(categories|tags|menus)/.test(path)) return 'term';
  if (/^\/wp\/v2\/users(\/(\d+|me))?$/.test(path)) return 'user';
  return 'post';
}

function embedHint(rel: string): Kind {
  if (rel === 'author') return 'user';
  if (rel === 'wp:term') return 'term';
  return 'post';
}

export function normaliseValue(value: unknown, names: IdNames, hint: Kind, key = ''): unknown {
  if (Array.isArray(value)) {
    if (TERM_ARRAY_KEYS.has(key)) {
      return value.map((v) =>
        typeof v === 'number' ? names.name('term', v) : normaliseValue(v, names, hint),
      );
    }
    // A type's taxonomies name the spec's wp_pattern_category (6.3) on blocks.
    const kept = key === 'taxonomies' ? value.filter((v) => !BEYOND_6_1.fields.has(v)) : value;
    return kept.map((v) => normaliseValue(v, names, hint));
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    // PHP writes an empty map as []: one empty value either way.
    if (Object.keys(obj).length === 0) return [];
    const kind = kindOf(obj, hint);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj).sort()) {
      const v = obj[k];
      if (k === '_links' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(
          Object.entries(v as Record<string, unknown[]>)
            // A block's wp:term is the spec's wp_pattern_category (6.3).
            .filter(
              ([rel]) =>
                !BEYOND_6_1.rels.has(rel) && !(rel === 'wp:term' && obj.type === 'wp_block'),
            )
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([rel, list]) => [rel, Array.isArray(list) ? list.length : 1]),
        );
      } else if (k === '_embedded' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([rel]) => !BEYOND_6_1.rels.has(rel))
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([rel, list]) => [rel, normaliseValue(list, names, embedHint(rel))]),
        );
      } else if (k === 'guid') {
        out[k] = v && typeof v === 'object' ? Object.keys(v).sort() : typeof v;
      } else if (HTML_FIELDS.has(k) && v && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        out[k] = Object.fromEntries(
          Object.keys(o)
            .sort()
            .map((kk) => [kk, kk === 'protected' || kk === 'block_version' ? o[kk] : typeof o[kk]]),
        );
      } else if (BEYOND_6_1.fields.has(k) || (k === 'meta' && obj.type === 'wp_block')) {
        // (A block's meta is the spec's wp_pattern_sync_status, 6.3; 6.1's blocks have none.)
        continue;
      } else if (k === 'slug' && typeof v === 'string' && /^\d+-(revision|autosave)-v1$/.test(v)) {
        const [num, rest] = v.split(/-(.*)/s) as [string, string];
        out[k] = `${names.name('post', Number(num))}-${rest}`;
      } else if (k === 'meta') {
        // WordPress sends an empty PHP array (`[]`) for no registered meta: no keys either way.
        out[k] =
          v && typeof v === 'object'
            ? Object.keys(v)
                .filter((m) => !BEYOND_6_1.meta.has(m))
                .sort()
            : v;
      } else if (k === 'avatar_urls' || k === 'capabilities' || k === 'extra_capabilities') {
        out[k] = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).sort() : v;
      } else if (k === 'schema' && v && typeof v === 'object') {
        out[k] = normaliseSchema(v as Record<string, unknown>);
      } else if (k === 'endpoints' && Array.isArray(v)) {
        out[k] = (v as Array<Record<string, unknown>>).map((e) => ({
          methods: e.methods,
          args: Object.keys((e.args as object) ?? {})
            .filter((a) => !(BEYOND_6_1.listArgs.has(a) && (e.methods as string[]).includes('GET')))
            .sort(),
          ...(e.allow_batch ? { allow_batch: true } : {}),
        }));
      } else if (k === 'routes' && v && typeof v === 'object') {
        out[k] = Object.keys(v).sort();
      } else if (k === 'Link' && typeof v === 'string') {
        out[k] = normaliseLink(v, names); // an _envelope's headers
      } else if (typeof v === 'number' && k === 'menus') {
        out[k] = names.name('term', v);
      } else if (typeof v === 'number' && (k === 'id' || k === 'author' || POST_ID_KEYS.has(k))) {
        // A menu item's object_id names a term when the item links a taxonomy's term.
        const idKind: Kind =
          k === 'id'
            ? kind
            : k === 'author'
              ? 'user'
              : (kind === 'term' && k === 'parent') ||
                  (k === 'object_id' && obj.type === 'taxonomy')
                ? 'term'
                : 'post';
        out[k] = names.name(idKind, v);
      } else if (
        k === 'uuid' ||
        k === 'app_id' ||
        (k === 'password' && typeof v === 'string' && v.length >= 24)
      ) {
        out[k] = typeof v;
      } else {
        out[k] = normaliseValue(v, names, kind, k);
      }
    }
    return out;
  }
  if (typeof value === 'string') {
    if (DATE.test(value)) return SEEDED_YEAR.test(value) ? value.slice(0, 19) : '<now>';
    if (/^https?:\/\//.test(value)) return names.url(value);
    if (value.length > 200)
      return `<text ${createHash('sha1').update(value).digest('hex').slice(0, 8)}>`;
  }
  return value;
}

/** An OPTIONS schema: its title, and each property's type and contexts. */
function normaliseSchema(schema: Record<string, unknown>): unknown {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return {
    title: schema.title,
    properties: Object.fromEntries(
      Object.keys(props)
        .filter((name) => !BEYOND_6_1.fields.has(name))
        .sort()
        .map((name) => {
          const p = props[name]!;
          const sub =
            p.properties && typeof p.properties === 'object'
              ? Object.keys(p.properties)
                  .filter((m) => name !== 'meta' || !BEYOND_6_1.meta.has(m))
                  .sort()
              : undefined;
          return [
            name,
            {
              context: Array.isArray(p.context) ? [...(p.context as string[])].sort() : p.context,
              type: p.type,
              ...(sub && sub.length ? { properties: sub } : {}),
            },
          ];
        }),
    ),
    links: Array.isArray(schema.links)
      ? (schema.links as Array<{ rel: string }>).map((l) => l.rel).sort()
      : undefined,
  };
}

/** `<url>; rel="next", <url>; rel="prev"` as {next: query, prev: query}; the API root left out. */
function normaliseLink(header: string, names: IdNames): string {
  const parts: string[] = [];
  for (const m of header.matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) {
    const [, href, rel] = m;
    if (rel === 'https://api.w.org/') continue;
    parts.push(`${rel}=${names.url(href!)}`);
  }
  return parts.sort().join(' ');
}

export function normaliseAnswer(
  answer: OracleAnswer,
  names: IdNames,
  path: string,
): NormalisedAnswer {
  const headers: Record<string, string> = {};
  const h = answer.headers;
  if (h['x-wp-total'] !== undefined) headers.total = String(h['x-wp-total']);
  if (h['x-wp-totalpages'] !== undefined) headers.totalPages = String(h['x-wp-totalpages']);
  if (h.allow !== undefined) {
    headers.allow = String(h.allow)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .sort()
      .join(',');
  }
  if (h.link !== undefined) {
    const link = normaliseLink(String(h.link), names);
    if (link) headers.link = link;
  }
  let body: unknown = answer.body;
  const hint = hintOfPath(path);
  if (
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    'code' in body &&
    answer.status >= 400
  ) {
    const err = body as { code: unknown; data?: { status?: unknown; params?: object } };
    body = {
      code: err.code,
      status: err.data?.status,
      ...(err.data?.params ? { params: Object.keys(err.data.params).sort() } : {}),
    };
  } else if (Array.isArray(body) && path === '/batch/v1') {
    body = normaliseValue(body, names, hint);
  } else {
    body = normaliseValue(body, names, hint);
  }
  return { status: answer.status, headers, body };
}
