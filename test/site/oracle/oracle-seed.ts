import type { OracleClient, OracleRole } from './oracle-client.js';

/**
 * The same content on both sites, written through REST (so that each site applies its own
 * rules): categories and tags, 40 posts of several authors and statuses, pages in a tree,
 * reusable blocks, revisions (updates), a menu with items. Dates are fixed (2021, and 2031 for
 * the scheduled post) so that order and `modified` can be compared.
 */
export interface SeedIds {
  /** `kind:slug` (post:, page:, block:, menuitem:, category:, tag:, menu:, user:, rev:) -> id. */
  byRef: Map<string, number>;
}

type Body = Record<string, unknown>;

const day = (n: number) => {
  const d = new Date(Date.UTC(2021, 0, 1, 8, 0, 0) + n * 86_400_000);
  return d.toISOString().slice(0, 19);
};

async function create(
  client: OracleClient,
  caller: OracleRole,
  route: string,
  body: Body,
): Promise<number> {
  const answer = await client({ method: 'POST', path: route, body, caller });
  if (answer.status >= 300) {
    throw new Error(
      `seed: POST ${route} as ${caller} -> ${answer.status} ${JSON.stringify(answer.body)}`,
    );
  }
  return Number(answer.body.id);
}

export const SEED_CATEGORIES = ['guides', 'reference', 'reference-api', 'news'];
export const SEED_TAGS = ['emu', 'timetable', 'crh', 'cr400af'];
export const SEED_PAGES = [
  'about',
  'about-team',
  'about-history',
  'faq',
  'private-page',
  'draft-page',
];
export const SEED_BLOCKS = ['notice-block', 'footer-block', 'author-block'];

export async function seedSite(client: OracleClient): Promise<void> {
  const cat: Record<string, number> = {};
  cat.guides = await create(client, 'administrator', '/wp/v2/categories', {
    name: '指南',
    slug: 'guides',
    description: 'How-to guides',
  });
  cat.reference = await create(client, 'administrator', '/wp/v2/categories', {
    name: 'Reference',
    slug: 'reference',
  });
  cat['reference-api'] = await create(client, 'administrator', '/wp/v2/categories', {
    name: 'API reference',
    slug: 'reference-api',
    parent: cat.reference,
  });
  cat.news = await create(client, 'administrator', '/wp/v2/categories', {
    name: 'News',
    slug: 'news',
  });
  const tag: Record<string, number> = {};
  for (const slug of SEED_TAGS) {
    tag[slug] = await create(client, 'administrator', '/wp/v2/tags', {
      name: slug.toUpperCase(),
      slug,
    });
  }
  const catList = Object.values(cat);
  const tagList = Object.values(tag);

  // 30 published posts by the administrator, then others' posts of every status.
  for (let i = 1; i <= 30; i++) {
    const body: Body = {
      title: `Post ${i}`,
      slug: `post-${i}`,
      status: 'publish',
      date: day(i),
      content: `<!-- wp:paragraph -->\n<p>Body of post ${i} about EMU CR400AF-${2000 + i}.</p>\n<!-- /wp:paragraph -->`,
      excerpt: i % 3 === 0 ? `Excerpt ${i}` : '',
    };
    if (i % 5 !== 0) body.categories = [catList[i % catList.length]!];
    if (i % 2 === 0) body.tags = [tagList[i % tagList.length]!, tagList[(i + 1) % tagList.length]!];
    if (i === 7) body.sticky = true;
    if (i === 11) body.password = 'secret';
    if (i === 13) body.status = 'private';
    if (i === 17) body.format = 'aside';
    await create(client, 'administrator', '/wp/v2/posts', body);
  }
  await create(client, 'administrator', '/wp/v2/posts', {
    title: '高铁 时刻表',
    slug: '高铁',
    status: 'publish',
    date: day(40),
    content: '<p>中文内容</p>',
  });
  await create(client, 'administrator', '/wp/v2/posts', {
    title: 'Draft by admin',
    slug: 'admin-draft',
    status: 'draft',
    date: day(41),
  });
  await create(client, 'administrator', '/wp/v2/posts', {
    title: 'Scheduled',
    slug: 'scheduled-post',
    status: 'future',
    date: '2031-06-01T08:00:00',
  });
  for (let i = 1; i <= 3; i++) {
    await create(client, 'author', '/wp/v2/posts', {
      title: `Author post ${i}`,
      slug: `author-post-${i}`,
      status: i === 3 ? 'draft' : 'publish',
      date: day(50 + i),
      categories: [cat.news],
    });
  }
  await create(client, 'author', '/wp/v2/posts', {
    title: 'Author private',
    slug: 'author-private',
    status: 'private',
    date: day(55),
  });
  await create(client, 'contributor', '/wp/v2/posts', {
    title: 'Contributor draft',
    slug: 'contributor-draft',
    status: 'draft',
    date: day(60),
  });
  await create(client, 'contributor', '/wp/v2/posts', {
    title: 'Contributor pending',
    slug: 'contributor-pending',
    status: 'pending',
    date: day(61),
  });

  // Pages: a tree with menu_order, a private page and a draft.
  const about = await create(client, 'administrator', '/wp/v2/pages', {
    title: 'About',
    slug: 'about',
    status: 'publish',
    date: day(2),
    menu_order: 1,
    excerpt: 'About the site',
    content: '<p>About emutrack</p>',
  });
  await create(client, 'administrator', '/wp/v2/pages', {
    title: 'Team',
    slug: 'about-team',
    status: 'publish',
    date: day(3),
    parent: about,
    menu_order: 2,
  });
  await create(client, 'editor', '/wp/v2/pages', {
    title: 'History',
    slug: 'about-history',
    status: 'publish',
    date: day(4),
    parent: about,
    menu_order: 3,
  });
  await create(client, 'administrator', '/wp/v2/pages', {
    title: 'FAQ',
    slug: 'faq',
    status: 'publish',
    date: day(5),
    menu_order: 4,
  });
  await create(client, 'administrator', '/wp/v2/pages', {
    title: 'Private page',
    slug: 'private-page',
    status: 'private',
    date: day(6),
  });
  await create(client, 'editor', '/wp/v2/pages', {
    title: 'Draft page',
    slug: 'draft-page',
    status: 'draft',
    date: day(7),
  });

  // Reusable blocks.
  await create(client, 'administrator', '/wp/v2/blocks', {
    title: 'Notice',
    slug: 'notice-block',
    status: 'publish',
    date: day(8),
    content: '<!-- wp:paragraph -->\n<p>Data may be late.</p>\n<!-- /wp:paragraph -->',
  });
  await create(client, 'administrator', '/wp/v2/blocks', {
    title: 'Footer',
    slug: 'footer-block',
    status: 'publish',
    date: day(9),
    content: '<!-- wp:paragraph -->\n<p>Footer</p>\n<!-- /wp:paragraph -->',
  });
  await create(client, 'author', '/wp/v2/blocks', {
    title: 'Author block',
    slug: 'author-block',
    status: 'publish',
    date: day(10),
    content: '<!-- wp:paragraph -->\n<p>Mine</p>\n<!-- /wp:paragraph -->',
  });

  // Revisions: updates of a post (twice), a page and a block.
  const ids = await collectIds(client);
  for (const [ref, n] of [
    ['post:post-1', 2],
    ['post:post-2', 1],
    ['page:about', 1],
    ['block:notice-block', 1],
  ] as const) {
    const id = ids.byRef.get(ref)!;
    const route = ref.startsWith('post:') ? 'posts' : ref.startsWith('page:') ? 'pages' : 'blocks';
    for (let k = 1; k <= n; k++) {
      const answer = await client({
        method: 'POST',
        path: `/wp/v2/${route}/${id}`,
        body: {
          content: `<p>Revised ${k} of ${ref}</p>`,
          title: `${ref.split(':')[1]} (rev ${k})`,
        },
        caller: 'administrator',
      });
      if (answer.status !== 200) throw new Error(`seed: update ${ref} -> ${answer.status}`);
    }
  }

  // A menu with items.
  const menu = await create(client, 'administrator', '/wp/v2/menus', {
    name: 'Main',
    slug: 'main',
  });
  await create(client, 'administrator', '/wp/v2/menus', { name: 'Footer', slug: 'footer' });
  const items: Array<[string, Body]> = [
    ['home', { title: 'Home', url: 'https://docs.example/', type: 'custom', menu_order: 1 }],
    [
      'about-link',
      { title: 'About', type: 'post_type', object: 'page', object_id: about, menu_order: 2 },
    ],
    [
      'guides-link',
      {
        title: 'Guides',
        type: 'taxonomy',
        object: 'category',
        object_id: cat.guides,
        menu_order: 3,
      },
    ],
    ['github', { title: 'Source', url: 'https://docs.example/src', type: 'custom', menu_order: 4 }],
  ];
  for (const [, body] of items) {
    await create(client, 'administrator', '/wp/v2/menu-items', {
      ...body,
      status: 'publish',
      menus: menu,
    });
  }
}

async function listAll(
  client: OracleClient,
  route: string,
  query: string,
): Promise<Array<Record<string, unknown>>> {
  const answer = await client({
    method: 'GET',
    path: route,
    query: `per_page=100&context=edit${query ? `&${query}` : ''}`,
    caller: 'administrator',
  });
  if (answer.status !== 200) {
    throw new Error(`seed: GET ${route} -> ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body as Array<Record<string, unknown>>;
}

/**
 * Every seeded object's id by a reference that both sites share: `kind:slug`; a menu item by
 * its title, a revision as `rev:<parent ref>:<n>` (n from the oldest, 1-based), users by name.
 */
export async function collectIds(client: OracleClient): Promise<SeedIds> {
  const byRef = new Map<string, number>();
  const statuses = 'status=publish,future,draft,pending,private,trash';
  for (const [kind, route] of [
    ['post', '/wp/v2/posts'],
    ['page', '/wp/v2/pages'],
    ['block', '/wp/v2/blocks'],
  ] as const) {
    for (const item of await listAll(client, route, statuses)) {
      byRef.set(`${kind}:${decodeURIComponent(String(item.slug))}`, Number(item.id));
    }
  }
  for (const [kind, route] of [
    ['category', '/wp/v2/categories'],
    ['tag', '/wp/v2/tags'],
    ['menu', '/wp/v2/menus'],
  ] as const) {
    const answer = await client({
      method: 'GET',
      path: route,
      query: 'per_page=100',
      caller: 'administrator',
    });
    if (answer.status !== 200) continue;
    for (const item of answer.body as Array<Record<string, unknown>>) {
      byRef.set(`${kind}:${String(item.slug)}`, Number(item.id));
    }
  }
  const menuItems = await client({
    method: 'GET',
    path: '/wp/v2/menu-items',
    query: 'per_page=100&context=edit',
    caller: 'administrator',
  });
  if (menuItems.status === 200) {
    for (const item of menuItems.body as Array<{ id: number; title: { raw?: string } | string }>) {
      const title = typeof item.title === 'string' ? item.title : (item.title.raw ?? '');
      byRef.set(`menuitem:${title.toLowerCase()}`, item.id);
    }
  }
  for (const user of await listAll(client, '/wp/v2/users', '')) {
    byRef.set(`user:${String(user.slug)}`, Number(user.id));
  }
  for (const [ref, id] of [...byRef]) {
    const kind = ref.split(':')[0];
    if (kind !== 'post' && kind !== 'page' && kind !== 'block') continue;
    const route = kind === 'post' ? 'posts' : kind === 'page' ? 'pages' : 'blocks';
    const answer = await client({
      method: 'GET',
      path: `/wp/v2/${route}/${id}/revisions`,
      query: 'per_page=100&orderby=id&order=asc',
      caller: 'administrator',
    });
    if (answer.status !== 200) continue;
    (answer.body as Array<{ id: number }>).forEach((r, i) =>
      byRef.set(`rev:${ref}:${i + 1}`, r.id),
    );
  }
  return { byRef };
}
