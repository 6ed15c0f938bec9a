import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * What the differential against WordPress 6.1 (test/site/oracle) found, each as its own case:
 * Allow per caller, list parameters, pages' excerpt, revisions, defaults.
 */
describe('the site answers as WordPress 6.1 does', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let subscriber: SiteAccountFixture;
  const ids: number[] = [];

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
    contributor = await site.account('contributor', 'contributor');
    subscriber = await site.account('subscriber', 'subscriber');
    for (let i = 1; i <= 12; i++) {
      const r = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: admin,
        body: {
          title: `P${i}`,
          slug: `p-${i}`,
          status: 'publish',
          date: `2021-01-${String(i).padStart(2, '0')}T10:00:00`,
        },
      });
      ids.push(r.body.id as number);
    }
  });

  it('sends Allow per caller on collections, items and OPTIONS (rest_send_allow_header)', async () => {
    const own = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'mine', status: 'publish' },
    });
    const cases: Array<[SiteAccountFixture | undefined, string, string, string]> = [
      [undefined, 'GET', '/wp-json/wp/v2/posts', 'GET'],
      [undefined, 'OPTIONS', '/wp-json/wp/v2/posts', 'GET'],
      [subscriber, 'GET', '/wp-json/wp/v2/posts', 'GET'],
      [contributor, 'GET', '/wp-json/wp/v2/posts', 'GET, POST'],
      [author, 'OPTIONS', '/wp-json/wp/v2/posts', 'GET, POST'],
      [undefined, 'GET', `/wp-json/wp/v2/posts/${ids[0]}`, 'GET'],
      [author, 'GET', `/wp-json/wp/v2/posts/${ids[0]}`, 'GET'],
      [author, 'GET', `/wp-json/wp/v2/posts/${own.body.id}`, 'GET, POST, PUT, PATCH, DELETE'],
      [editor, 'GET', `/wp-json/wp/v2/posts/${ids[0]}`, 'GET, POST, PUT, PATCH, DELETE'],
      [contributor, 'OPTIONS', '/wp-json/wp/v2/blocks', 'GET'],
      [admin, 'OPTIONS', '/wp-json/wp/v2/blocks', 'GET, POST'],
      [author, 'GET', '/wp-json/wp/v2/categories', 'GET'],
      [editor, 'GET', '/wp-json/wp/v2/categories', 'GET, POST'],
    ];
    for (const [who, method, path, allow] of cases) {
      const r = await site.call(method, path, who ? { auth: who } : {});
      expect([who?.username ?? 'anonymous', method, path, r.headers.allow]).toEqual([
        who?.username ?? 'anonymous',
        method,
        path,
        allow,
      ]);
    }
    // The edit context asked by a subscriber: GET itself is not allowed, so no Allow at all.
    const edit = await site.call('GET', '/wp-json/wp/v2/posts?context=edit', { auth: subscriber });
    expect(edit.status).toBe(403);
    expect(edit.headers.allow).toBeUndefined();
  });

  it('lets offset win over page, and an offset past the end has no next link and a total of 0', async () => {
    const byPage = await site.call('GET', '/wp-json/wp/v2/posts?per_page=3&page=2&offset=1');
    // 13 posts, newest first: offset 1 gives the 2nd to the 4th, whatever the page.
    expect(byPage.body.map((p: { slug: string }) => p.slug)).toEqual(['p-12', 'p-11', 'p-10']);
    expect(byPage.headers['x-wp-total']).toBe('13');
    expect(String(byPage.headers.link)).toContain('rel="prev"');
    const past = await site.call('GET', '/wp-json/wp/v2/posts?offset=100');
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect([past.headers['x-wp-total'], past.headers['x-wp-totalpages']]).toEqual(['0', '0']);
    expect(String(past.headers.link ?? '')).not.toContain('rel="next"');
  });

  it('orders by include and include_slugs, ignores exclude beside include, finds Chinese slugs', async () => {
    const inc = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?orderby=include&include=${ids[2]},${ids[0]},${ids[1]}`,
    );
    expect(inc.body.map((p: { id: number }) => p.id)).toEqual([ids[2], ids[0], ids[1]]);
    const slugs = await site.call(
      'GET',
      '/wp-json/wp/v2/posts?orderby=include_slugs&slug=p-3,p-1,p-2',
    );
    expect(slugs.body.map((p: { slug: string }) => p.slug)).toEqual(['p-3', 'p-1', 'p-2']);
    const both = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?include=${ids[2]},${ids[0]}&exclude=${ids[0]}`,
    );
    expect(both.body.map((p: { id: number }) => p.id).sort()).toEqual([ids[0], ids[2]].sort());
    await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: '高铁', slug: '高铁', status: 'publish' },
    });
    for (const q of ['slug=高铁', 'slug=%E9%AB%98%E9%93%81']) {
      const r = await site.call('GET', `/wp-json/wp/v2/posts?${encodeURI(q).replace(/%25/g, '%')}`);
      expect([q, r.headers['x-wp-total'], r.body[0]?.slug]).toEqual([q, '1', '%e9%ab%98%e9%93%81']);
    }
  });

  it('lists users by slug with a total that counts them', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/users?slug=author', { auth: admin });
    expect(r.body.map((u: { slug: string }) => u.slug)).toEqual(['author']);
    expect(r.headers['x-wp-total']).toBe('1');
  });

  it('gives pages an excerpt in every context, in the OPTIONS schema and in up embeds', async () => {
    const parent = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Parent', status: 'publish', excerpt: 'About us', content: '<p>x</p>' },
    });
    const child = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Child', status: 'publish', parent: parent.body.id },
    });
    for (const context of ['view', 'embed', 'edit'] as const) {
      const r = await site.call(
        'GET',
        `/wp-json/wp/v2/pages/${parent.body.id}?context=${context}`,
        {
          auth: admin,
        },
      );
      expect([context, Object.keys(r.body.excerpt).sort()]).toEqual([
        context,
        context === 'edit' ? ['protected', 'raw', 'rendered'] : ['protected', 'rendered'],
      ]);
    }
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/pages');
    expect(options.body.schema.properties.excerpt.context).toEqual(['view', 'edit', 'embed']);
    const embedded = await site.call('GET', `/wp-json/wp/v2/pages/${child.body.id}?_embed=up`);
    expect(embedded.body._embedded.up[0].excerpt.rendered).toContain('About us');
  });

  it('writes no revision on create; a revision guid is {rendered}', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'r', content: 'one', status: 'publish' },
    });
    const none = await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}/revisions`, {
      auth: admin,
    });
    expect([none.body, none.headers['x-wp-total']]).toEqual([[], '0']);
    expect(r.body._links['version-history'][0].count).toBe(0);
    await site.call('POST', `/wp-json/wp/v2/posts/${r.body.id}`, {
      auth: admin,
      body: { content: 'two' },
    });
    const one = await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}/revisions`, {
      auth: admin,
    });
    expect(one.body).toHaveLength(1);
    expect(Object.keys(one.body[0].guid)).toEqual(['rendered']);
  });

  it('applies WordPress defaults on create: category, modified, comment status, prefixes, slugs', async () => {
    const dated = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'dated', status: 'publish', date: '2021-03-01T10:00:00' },
    });
    expect(dated.body.modified).toBe('2021-03-01T10:00:00');
    expect([dated.body.comment_status, dated.body.ping_status]).toEqual(['open', 'open']);
    const [uncategorized] = (await site.call('GET', '/wp-json/wp/v2/categories?slug=uncategorized'))
      .body as Array<{ id: number; link: string }>;
    expect(dated.body.categories).toEqual([uncategorized!.id]);
    expect(new URL(uncategorized!.link).pathname).toBe('/category/uncategorized/');
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'page', status: 'publish' },
    });
    expect(page.body.comment_status).toBe('closed');
    const priv = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'secret', status: 'private' },
    });
    expect(priv.body.title.rendered).toBe('Private: secret');
    const pending = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: contributor,
      body: { title: 'pending', slug: 'chosen', status: 'pending' },
    });
    expect(pending.body.slug).toBe('');
    const embed = await site.call('GET', `/wp-json/wp/v2/posts/${dated.body.id}?context=embed`);
    expect(embed.body).not.toHaveProperty('format');
    const block = await site.call('POST', '/wp-json/wp/v2/blocks', {
      auth: admin,
      body: { title: 'b', status: 'publish', content: '<p>b</p>' },
    });
    expect(block.body).not.toHaveProperty('generated_slug');
    expect(block.body).not.toHaveProperty('permalink_template');
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/posts');
    expect(options.body).not.toHaveProperty('allow_batch');
    expect(options.body.endpoints[0].allow_batch).toEqual({ v1: true });
  });

  it('lets authors and contributors read menus, without count, link or taxonomy', async () => {
    const menu = await site.call('POST', '/wp-json/wp/v2/menus', {
      auth: admin,
      body: { name: 'Main' },
    });
    for (const who of [author, contributor]) {
      const r = await site.call('GET', `/wp-json/wp/v2/menus/${menu.body.id}`, { auth: who });
      expect([who.username, r.status]).toEqual([who.username, 200]);
      expect(r.body).not.toHaveProperty('count');
      expect(r.body).not.toHaveProperty('link');
      expect(r.body).not.toHaveProperty('taxonomy');
      const items = await site.call('GET', '/wp-json/wp/v2/menu-items', { auth: who });
      expect(items.status).toBe(200);
    }
    const anon = await site.call('GET', '/wp-json/wp/v2/menus');
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_view']);
    const sub = await site.call('GET', '/wp-json/wp/v2/menus', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_cannot_view']);
  });

  it('shows wp:action-* links in the edit context by what the caller may do', async () => {
    const asAdmin = await site.call('GET', `/wp-json/wp/v2/posts/${ids[0]}?context=edit`, {
      auth: admin,
    });
    expect(
      Object.keys(asAdmin.body._links)
        .filter((r) => r.startsWith('wp:action-'))
        .sort(),
    ).toEqual([
      'wp:action-assign-author',
      'wp:action-assign-categories',
      'wp:action-assign-tags',
      'wp:action-create-categories',
      'wp:action-create-tags',
      'wp:action-publish',
      'wp:action-sticky',
      'wp:action-unfiltered-html',
    ]);
    const own = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: contributor,
      body: { title: 'c', status: 'draft' },
    });
    expect(
      Object.keys(own.body._links)
        .filter((r) => r.startsWith('wp:action-'))
        .sort(),
    ).toEqual(['wp:action-assign-categories', 'wp:action-assign-tags', 'wp:action-create-tags']);
    const view = await site.call('GET', `/wp-json/wp/v2/posts/${ids[0]}`, { auth: admin });
    expect(Object.keys(view.body._links).some((r) => r.startsWith('wp:action-'))).toBe(false);
  });
});
