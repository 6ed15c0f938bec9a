import type { OracleCaller } from './oracle-client.js';
import { ORACLE_ROLES } from './oracle-client.js';

/**
 * The requests the differential harness replays on WordPress and on our site, generated
 * combinatorially (routes x callers x contexts x parameters) from WordPress's REST controller
 * tests (tests/phpunit/tests/rest-api/) and from what the clients send: api-fetch (OPTIONS for
 * `Allow`, `_embed`, `_fields`, per_page=100 pages), core-data (`context=edit`, `_fields`,
 * `include`/`orderby=include`, menus and menu items), wpapi (index discovery, Basic auth), the
 * block editor (action links, autosaves, revisions, users?who=authors).
 *
 * Paths name seeded objects by reference, `{post:post-1}`, resolved per site (see oracle-seed).
 * Reads come first; the writes category (which changes the sites) runs last, in order.
 */
export interface CorpusRequest {
  /** Stable and unique: golden files and the allow-list are keyed by it. */
  id: string;
  category: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  path: string;
  /** The query string, references allowed in values ('' for none). */
  query: string;
  body?: Record<string, unknown>;
  caller: OracleCaller;
  /**
   * Set when the request uses a list filter the spec asks for and WordPress 6.1 does not have:
   * 6.1 ignores it, so its answer cannot judge what the filter does. Such a request is compared
   * in full like any other; where it differs, the allow-list gives it a `beyond 6.1: ...` reason
   * and the table counts it in its own column; what 6.1 can judge (status, Allow, the items'
   * fields) must still match (oracle.test.ts).
   */
  beyond61?: string;
}

/** The list filters of the spec that WordPress 6.1 ignores, and what they do. */
export const FILTERS_BEYOND_6_1: Readonly<Record<string, string>> = {
  format: 'the `format` list filter (posts of these formats only)',
  ignore_sticky: 'the `ignore_sticky` list filter (false: sticky posts first)',
};

const CALLERS: OracleCaller[] = ['anonymous', ...ORACLE_ROLES];
const CONTEXTS = ['view', 'edit', 'embed'] as const;

export const CATEGORIES = [
  'index',
  'options',
  'posts',
  'pages',
  'blocks',
  'list-params',
  'revisions',
  'autosaves',
  'terms',
  'menus',
  'users',
  'app-passwords',
  'types',
  'embed-fields',
  'site-routes',
  'writes',
] as const;

function short(caller: OracleCaller): string {
  return caller === 'administrator' ? 'admin' : caller;
}

export function buildCorpus(): CorpusRequest[] {
  const out: CorpusRequest[] = [];
  const add = (
    category: string,
    method: CorpusRequest['method'],
    path: string,
    query: string,
    caller: OracleCaller,
    body?: Record<string, unknown>,
  ) => {
    const id = `${category}:${method} ${path}${query ? `?${query}` : ''}${
      body ? ` ${JSON.stringify(body)}` : ''
    } as ${short(caller)}`;
    const beyond = [...new URLSearchParams(query).keys()]
      .map((name) => FILTERS_BEYOND_6_1[name.replace(/\[.*$/, '')])
      .find(Boolean);
    out.push({
      id,
      category,
      method,
      path,
      query,
      caller,
      ...(body ? { body } : {}),
      ...(beyond ? { beyond61: beyond } : {}),
    });
  };

  // index: discovery as wpapi and the block editor do it.
  for (const caller of ['anonymous', 'administrator'] as const) {
    add('index', 'GET', '/', '', caller);
    add('index', 'GET', '/wp/v2', '', caller);
    add('index', 'GET', '/wp/v2', 'context=help', caller);
    add('index', 'GET', '/oembed/1.0', '', caller);
  }
  add('index', 'GET', '/wp/v2/nothing-here', '', 'anonymous');
  add('index', 'DELETE', '/wp/v2/posts', '', 'administrator');
  for (const caller of ['anonymous', 'administrator'] as const) {
    add('index', 'OPTIONS', '/wp/v2/nothing-here', '', caller);
  }

  // options: every route of the spec, as core-data and api-fetch ask (Allow, schema, args).
  const optionRoutes = [
    '/wp/v2/posts',
    '/wp/v2/posts/{post:post-1}',
    '/wp/v2/posts/{post:post-1}/revisions',
    '/wp/v2/posts/{post:post-1}/revisions/{rev:post:post-1:1}',
    '/wp/v2/posts/{post:post-1}/autosaves',
    '/wp/v2/pages',
    '/wp/v2/pages/{page:about}',
    '/wp/v2/pages/{page:about}/revisions',
    '/wp/v2/pages/{page:about}/autosaves',
    '/wp/v2/blocks',
    '/wp/v2/blocks/{block:notice-block}',
    '/wp/v2/blocks/{block:notice-block}/revisions',
    '/wp/v2/blocks/{block:notice-block}/autosaves',
    '/wp/v2/media',
    '/wp/v2/menu-items',
    '/wp/v2/menu-items/{menuitem:home}',
    '/wp/v2/menu-items/{menuitem:home}/autosaves',
    '/wp/v2/menus',
    '/wp/v2/menus/{menu:main}',
    '/wp/v2/categories',
    '/wp/v2/categories/{category:guides}',
    '/wp/v2/tags',
    '/wp/v2/tags/{tag:emu}',
    '/wp/v2/users',
    '/wp/v2/users/{user:author1}',
    '/wp/v2/users/me',
    '/wp/v2/users/me/application-passwords',
    '/wp/v2/types',
    '/wp/v2/types/post',
    '/wp/v2/taxonomies',
    '/wp/v2/taxonomies/category',
    '/wp/v2/statuses',
    '/wp/v2/templates',
    '/wp/v2/templates/lookup',
    '/batch/v1',
    '/oembed/1.0/embed',
  ];
  for (const path of optionRoutes) {
    for (const caller of ['anonymous', 'contributor', 'administrator'] as const) {
      add('options', 'OPTIONS', path, '', caller);
    }
  }

  // posts, pages, blocks: collections and items, every caller and context.
  const items: Record<'posts' | 'pages' | 'blocks', string[]> = {
    posts: [
      '{post:post-1}',
      '{post:post-7}',
      '{post:post-11}',
      '{post:post-13}',
      '{post:admin-draft}',
      '{post:contributor-draft}',
      '{post:author-post-1}',
      '{post:scheduled-post}',
      '999999',
    ],
    pages: ['{page:about}', '{page:about-team}', '{page:private-page}', '{page:draft-page}'],
    blocks: ['{block:notice-block}', '{block:author-block}'],
  };
  for (const type of ['posts', 'pages', 'blocks'] as const) {
    for (const caller of CALLERS) {
      for (const context of CONTEXTS) {
        add(type, 'GET', `/wp/v2/${type}`, `context=${context}`, caller);
        for (const item of items[type]) {
          add(type, 'GET', `/wp/v2/${type}/${item}`, `context=${context}`, caller);
        }
      }
      add(type, 'GET', `/wp/v2/${type}`, 'status=any', caller);
      add(type, 'GET', `/wp/v2/${type}`, 'status=draft&context=edit', caller);
    }
  }
  for (const caller of ['anonymous', 'administrator'] as const) {
    add('posts', 'GET', '/wp/v2/posts/{post:post-11}', 'password=secret', caller);
    add('posts', 'GET', '/wp/v2/posts/{post:post-11}', 'password=wrong', caller);
    add('posts', 'GET', '/wp/v2/posts', 'status=private', caller);
  }

  // list parameters (WP_Test_REST_Posts_Controller and friends).
  const postParams = [
    'page=2',
    'per_page=5',
    'per_page=5&page=3',
    'offset=5',
    'offset=5&page=2',
    'offset=5&per_page=5&page=3',
    'offset=100',
    'offset=29&per_page=5',
    'page=99',
    'per_page=0',
    'per_page=101',
    'page=0',
    'order=asc',
    'order=sideways',
    'orderby=id',
    'orderby=title&order=asc',
    'orderby=slug&order=asc',
    // (Before the seed's updates: WordPress keeps whole seconds, so same-second updates tie.)
    'orderby=modified&modified_before=2021-12-31T00:00:00',
    'orderby=author',
    'orderby=parent',
    'orderby=relevance',
    'orderby=relevance&search=post',
    'orderby=include&include={post:post-3},{post:post-1},{post:post-2}',
    'orderby=include_slugs&slug=post-3,post-1,post-2',
    'include={post:post-3},{post:post-1}',
    'include={post:post-3},{post:post-1}&exclude={post:post-1}',
    'exclude={post:post-30},{post:post-29}',
    'author={user:author1}',
    'author_exclude={user:admin}',
    'author=notanumber',
    'search=Post 1',
    'search=中文',
    'slug=post-1',
    'slug=post-1,post-2',
    'slug[]=post-4&slug[]=post-5',
    'slug=高铁',
    'slug=%E9%AB%98%E9%93%81',
    'categories={category:guides}',
    'categories={category:reference}&categories_exclude={category:reference-api}',
    'categories_exclude={category:guides}',
    'categories[terms]={category:reference}&categories[include_children]=true',
    'tags={tag:emu}',
    'tags={tag:emu},{tag:crh}&tax_relation=AND&categories={category:guides}',
    'tags[terms]={tag:emu},{tag:crh}&tags[operator]=AND',
    'tags_exclude={tag:emu}',
    'sticky=true',
    'sticky=false',
    'ignore_sticky=false',
    'after=2021-01-10T00:00:00&before=2021-01-20T00:00:00',
    'modified_after=2021-01-10T00:00:00',
    'before=not-a-date',
    'format=aside',
    'format=standard',
    'status=publish,private',
    'status=bogus',
    'context=bogus',
    'offset=-1',
    '_fields=nope',
    'per_page=abc&page=abc&order=x',
    'order=x&orderby=y',
    'exclude={post:post-30}&search=Post&per_page=5',
  ];
  for (const query of postParams) {
    for (const caller of ['anonymous', 'administrator'] as const) {
      add('list-params', 'GET', '/wp/v2/posts', query, caller);
    }
  }
  const pageParams = [
    'parent={page:about}',
    'parent=0',
    'parent_exclude={page:about}',
    'menu_order=2',
    'orderby=menu_order&order=asc',
    'orderby=include&include={page:faq},{page:about}',
    'offset=2&page=2&per_page=2',
    'offset=10',
    'slug=about-team',
    'search=about',
    'per_page=2&page=2',
    'status=private',
    'sticky=true',
  ];
  for (const query of pageParams) {
    for (const caller of ['anonymous', 'administrator'] as const) {
      add('list-params', 'GET', '/wp/v2/pages', query, caller);
    }
  }
  const userParams = [
    'slug=author1',
    'slug=author1,editor1',
    'roles=author',
    'who=authors',
    'orderby=name',
    'orderby=email',
    'orderby=registered_date',
    'orderby=include&include={user:author1},{user:admin}',
    'search=author',
    'exclude={user:admin}',
    'per_page=2&page=2',
    'offset=1',
    'has_published_posts=true',
  ];
  for (const query of userParams) {
    for (const caller of ['anonymous', 'author', 'administrator'] as const) {
      add('users', 'GET', '/wp/v2/users', query, caller);
    }
  }
  const termParams = [
    'hide_empty=true',
    'parent=0',
    'orderby=count&order=desc',
    'orderby=name',
    'orderby=slug',
    'orderby=include&include={T1},{T2}',
    'slug={S1}',
    'search=e',
    'post={post:post-2}',
    'post={post:admin-draft}',
    'per_page=2&page=2',
    'offset=1',
    'exclude={T1}',
  ];
  for (const [tax, t1, t2, s1] of [
    ['categories', '{category:news}', '{category:guides}', 'reference'],
    ['tags', '{tag:crh}', '{tag:emu}', 'emu'],
  ] as const) {
    for (const q of termParams) {
      const query = q.replace('{T1}', t1).replace('{T2}', t2).replace('{S1}', s1);
      for (const caller of ['anonymous', 'administrator'] as const) {
        add('terms', 'GET', `/wp/v2/${tax}`, query, caller);
      }
    }
  }

  // terms: collections and items, every caller and context.
  for (const caller of CALLERS) {
    for (const context of CONTEXTS) {
      add('terms', 'GET', '/wp/v2/categories', `context=${context}`, caller);
      add('terms', 'GET', '/wp/v2/categories/{category:guides}', `context=${context}`, caller);
      add('terms', 'GET', '/wp/v2/tags', `context=${context}`, caller);
      add('terms', 'GET', '/wp/v2/tags/{tag:emu}', `context=${context}`, caller);
    }
  }

  // revisions and autosaves (the block editor's history and autosave).
  const parents = [
    ['posts', '{post:post-1}', 'post:post-1'],
    ['pages', '{page:about}', 'page:about'],
    ['blocks', '{block:notice-block}', 'block:notice-block'],
  ] as const;
  for (const [type, parent, ref] of parents) {
    for (const caller of CALLERS) {
      add('revisions', 'GET', `/wp/v2/${type}/${parent}/revisions`, '', caller);
      add('revisions', 'GET', `/wp/v2/${type}/${parent}/revisions`, 'context=edit', caller);
      add('revisions', 'GET', `/wp/v2/${type}/${parent}/revisions/{rev:${ref}:1}`, '', caller);
      add('autosaves', 'GET', `/wp/v2/${type}/${parent}/autosaves`, '', caller);
    }
    for (const query of [
      'per_page=1',
      'per_page=1&page=2',
      'offset=1',
      'order=asc',
      'orderby=id',
    ]) {
      add('revisions', 'GET', `/wp/v2/${type}/${parent}/revisions`, query, 'administrator');
    }
  }
  add('revisions', 'GET', '/wp/v2/posts/{post:post-2}/revisions', '', 'administrator');
  add('revisions', 'GET', '/wp/v2/posts/{post:post-3}/revisions', '', 'administrator');
  add('revisions', 'GET', '/wp/v2/posts/999999/revisions', '', 'administrator');
  add('revisions', 'GET', '/wp/v2/posts/{post:post-1}', '_embed=version-history', 'administrator');

  // menus: menus, menu items, the nav_menu taxonomy.
  for (const caller of CALLERS) {
    for (const context of ['view', 'edit'] as const) {
      add('menus', 'GET', '/wp/v2/menus', `context=${context}`, caller);
      add('menus', 'GET', '/wp/v2/menus/{menu:main}', `context=${context}`, caller);
      add('menus', 'GET', '/wp/v2/menu-items', `context=${context}`, caller);
      add('menus', 'GET', '/wp/v2/menu-items/{menuitem:home}', `context=${context}`, caller);
    }
    add('menus', 'GET', '/wp/v2/menu-items', 'menus={menu:main}', caller);
  }
  for (const caller of ['anonymous', 'administrator'] as const) {
    add('menus', 'GET', '/wp/v2/taxonomies/nav_menu', '', caller);
    add('menus', 'GET', '/wp/v2/menu-items', 'menus={menu:footer}', caller);
    add('menus', 'GET', '/wp/v2/menu-items', 'orderby=id&order=desc', caller);
  }

  // users: items and me, every caller and context.
  for (const caller of CALLERS) {
    for (const context of CONTEXTS) {
      add('users', 'GET', '/wp/v2/users', `context=${context}`, caller);
      add('users', 'GET', '/wp/v2/users/me', `context=${context}`, caller);
      add('users', 'GET', '/wp/v2/users/{user:author1}', `context=${context}`, caller);
      add('users', 'GET', '/wp/v2/users/{user:subscriber1}', `context=${context}`, caller);
    }
  }

  // application passwords: the routes, and every way Basic authentication can fail.
  for (const caller of CALLERS) {
    add('app-passwords', 'GET', '/wp/v2/users/me/application-passwords', '', caller);
    add('app-passwords', 'GET', '/wp/v2/users/{user:author1}/application-passwords', '', caller);
    add('app-passwords', 'GET', '/wp/v2/users/me/application-passwords/introspect', '', caller);
  }
  for (const caller of [
    'bad-password',
    'email-username',
    'unknown-user',
    'malformed-basic',
  ] as const) {
    add('app-passwords', 'GET', '/wp/v2/users/me', '', caller);
    add('app-passwords', 'GET', '/wp/v2/posts', 'context=edit', caller);
    add('app-passwords', 'GET', '/wp/v2/posts', '', caller);
    add('app-passwords', 'GET', '/wp/v2/users/me/application-passwords/introspect', '', caller);
  }

  // types, taxonomies, statuses.
  for (const caller of ['anonymous', 'contributor', 'administrator'] as const) {
    for (const context of ['view', 'edit'] as const) {
      for (const path of [
        '/wp/v2/types',
        '/wp/v2/types/post',
        '/wp/v2/types/page',
        '/wp/v2/types/wp_block',
        '/wp/v2/taxonomies',
        '/wp/v2/taxonomies/category',
        '/wp/v2/taxonomies/post_tag',
        '/wp/v2/statuses',
        '/wp/v2/statuses/publish',
        '/wp/v2/statuses/draft',
      ]) {
        add('types', 'GET', path, `context=${context}`, caller);
      }
    }
    add('types', 'GET', '/wp/v2/taxonomies', 'type=post', caller);
    add('types', 'GET', '/wp/v2/types/nope', '', caller);
  }

  // _embed and _fields (api-fetch and core-data).
  const embedQueries = [
    '_embed',
    '_embed=author',
    '_embed=wp:term',
    '_embed&_fields=id,_embedded.author',
    '_embed&_fields=id,title',
    '_fields=id,title',
    '_fields=id,_links',
    '_fields=title.rendered,slug',
    '_embed&per_page=3&context=edit',
    '_envelope',
  ];
  for (const query of embedQueries) {
    for (const caller of ['anonymous', 'administrator'] as const) {
      add('embed-fields', 'GET', '/wp/v2/posts', query, caller);
      add('embed-fields', 'GET', '/wp/v2/pages/{page:about-team}', query, caller);
    }
  }
  add('embed-fields', 'GET', '/wp/v2/pages', '_embed=up&parent={page:about}', 'anonymous');
  add('embed-fields', 'GET', '/wp/v2/posts/{post:post-2}', '_embed', 'anonymous');

  // WordPress's routes beyond the spec's table that clients reach: settings, menu locations,
  // comments (the site keeps none).
  const siteRoutes: Array<[CorpusRequest['method'], string, string]> = [
    ['GET', '/wp/v2/settings', ''],
    ['OPTIONS', '/wp/v2/settings', ''],
    ['GET', '/wp/v2/menu-locations', ''],
    ['GET', '/wp/v2/menu-locations/primary', ''],
    ['OPTIONS', '/wp/v2/menu-locations', ''],
    ['GET', '/wp/v2/comments', ''],
    ['GET', '/wp/v2/comments', 'context=edit'],
    ['GET', '/wp/v2/comments', 'post={post:post-1}'],
    ['GET', '/wp/v2/comments/999999', ''],
    ['OPTIONS', '/wp/v2/comments', ''],
    ['OPTIONS', '/wp/v2/comments/999999', ''],
  ];
  for (const [method, path, query] of siteRoutes) {
    for (const caller of ['anonymous', 'subscriber', 'administrator'] as const) {
      add('site-routes', method, path, query, caller);
    }
  }

  // writes: permissions and data rules of create, update and delete (last: they change state).
  for (const caller of CALLERS) {
    const s = short(caller);
    add('writes', 'POST', '/wp/v2/posts', '', caller, {
      title: `Created by ${s}`,
      slug: `created-${s}`,
      status: 'publish',
    });
    add('writes', 'POST', '/wp/v2/posts', '', caller, {
      title: `Draft by ${s}`,
      slug: `draft-${s}`,
      status: 'draft',
      date: '2021-05-01T10:00:00',
      context: 'edit',
    });
    add('writes', 'POST', '/wp/v2/posts', '', caller, {
      title: `Sticky by ${s}`,
      slug: `sticky-${s}`,
      status: 'pending',
      sticky: true,
    });
    add('writes', 'POST', '/wp/v2/posts/{post:post-4}', '', caller, { title: 'Edited' });
    add('writes', 'POST', '/wp/v2/posts/{post:author-post-1}', '', caller, { excerpt: 'Edited' });
    add('writes', 'POST', '/wp/v2/posts/{post:contributor-draft}', '', caller, {
      title: 'Edit draft',
    });
    add('writes', 'POST', '/wp/v2/posts/{post:author-post-2}', '', caller, { author: 1 });
    add('writes', 'POST', '/wp/v2/pages', '', caller, {
      title: `Page by ${s}`,
      slug: `page-${s}`,
      status: 'draft',
      excerpt: 'A page excerpt',
    });
    add('writes', 'POST', '/wp/v2/blocks', '', caller, {
      title: `Block by ${s}`,
      slug: `block-${s}`,
      status: 'publish',
      content: '<p>x</p>',
    });
    add('writes', 'POST', '/wp/v2/categories', '', caller, { name: `Cat ${s}` });
    add('writes', 'POST', '/wp/v2/menus', '', caller, { name: `Menu ${s}` });
    add('writes', 'POST', '/wp/v2/posts/{post:post-5}/autosaves', '', caller, {
      title: 'Autosaved',
      content: '<p>autosave</p>',
    });
    add(
      'writes',
      'DELETE',
      '/wp/v2/posts/{post:post-1}/revisions/{rev:post:post-1:1}',
      'force=true',
      caller,
    );
    add('writes', 'DELETE', '/wp/v2/categories/{category:guides}', 'force=true', caller);
  }
  add('writes', 'POST', '/wp/v2/posts', '', 'administrator', {
    title: 'Private created',
    slug: 'private-created',
    status: 'private',
  });
  add('writes', 'POST', '/wp/v2/posts', '', 'administrator', {
    title: 'Dated',
    slug: 'dated-created',
    status: 'publish',
    date: '2021-03-01T10:00:00',
  });
  add('writes', 'POST', '/wp/v2/posts', '', 'contributor', {
    title: 'Pending slug',
    slug: 'pending-slug',
    status: 'pending',
  });
  add('writes', 'GET', '/wp/v2/posts/{post:post-5}/autosaves', 'context=edit', 'administrator');
  add('writes', 'GET', '/wp/v2/posts/{post:post-4}/revisions', '', 'administrator');
  add('writes', 'DELETE', '/wp/v2/posts/{post:post-30}', '', 'author');
  add('writes', 'DELETE', '/wp/v2/posts/{post:post-30}', '', 'administrator');
  // Again: already in the trash (410 rest_already_trashed).
  add('writes', 'DELETE', '/wp/v2/posts/{post:post-30}', 'force=false', 'administrator');
  add('writes', 'DELETE', '/wp/v2/posts/{post:post-29}', 'force=true', 'administrator');
  add('writes', 'GET', '/wp/v2/posts', 'status=trash&context=edit', 'administrator');
  add('writes', 'POST', '/batch/v1', '', 'administrator', {
    requests: [
      { method: 'POST', path: '/wp/v2/tags', body: { name: 'batch-tag' } },
      { method: 'DELETE', path: '/wp/v2/tags/999999', body: { force: true } },
    ],
  });

  const seen = new Set<string>();
  for (const r of out) {
    if (seen.has(r.id)) throw new Error(`corpus: duplicate id ${r.id}`);
    seen.add(r.id);
  }
  return out;
}
