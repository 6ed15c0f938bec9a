import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * What the differential against WordPress 6.1 (test/site/oracle) found in menus, terms, pages
 * and writes, each as its own case.
 */
describe('menus, terms and writes answer as WordPress 6.1 does', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let about: number;
  let guides: number;
  let menu: number;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    contributor = await site.account('contributor', 'contributor');
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'About', slug: 'about', status: 'publish' },
    });
    about = page.body.id as number;
    const cat = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: admin,
      body: { name: 'Guides', slug: 'guides' },
    });
    guides = cat.body.id as number;
    const m = await site.call('POST', '/wp-json/wp/v2/menus', {
      auth: admin,
      body: { name: 'Main', slug: 'main' },
    });
    menu = m.body.id as number;
  });

  it("gives a child page's sample permalink its parents' path, and decodes generated slugs", async () => {
    const child = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Team', slug: 'team', status: 'publish', parent: about },
    });
    expect(child.body.permalink_template).toBe(`${site.url}/about/%pagename%/`);
    const chinese = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: '高铁 时刻表', status: 'draft' },
    });
    expect(chinese.body.generated_slug).toBe('高铁-时刻表');
    // Made unique as wp_unique_post_slug does, the item itself aside.
    const first = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Twin', status: 'publish' },
    });
    const second = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Twin', status: 'draft' },
    });
    expect(first.body.generated_slug).toBe('twin');
    expect(second.body.generated_slug).toBe('twin-2');
  });

  it('shows the date of a draft saved without one as GMT too (WordPress shims date_gmt)', async () => {
    const draft = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Undated', status: 'draft' },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.date_gmt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it("gives an autosave of a published post the post's pretty preview link", async () => {
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Live', slug: 'live', status: 'publish', date: '2021-01-06T10:00:00' },
    });
    const autosave = await site.call('POST', `/wp-json/wp/v2/posts/${post.body.id}/autosaves`, {
      auth: admin,
      body: { title: 'Live, edited', content: '<p>new</p>' },
    });
    expect(autosave.status).toBe(200);
    const link = new URL(autosave.body.preview_link as string);
    expect(link.pathname).toBe('/2021/01/06/live/');
    expect(link.searchParams.get('preview')).toBe('true');
    expect(link.searchParams.get('preview_id')).toBe(String(post.body.id));
  });

  it('answers DELETE ?force with the previous data without _links and no Allow', async () => {
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Gone', status: 'publish' },
    });
    const gone = await site.call('DELETE', `/wp-json/wp/v2/posts/${post.body.id}?force=true`, {
      auth: admin,
    });
    expect(gone.status).toBe(200);
    expect(gone.body.deleted).toBe(true);
    expect(gone.body.previous.id).toBe(post.body.id);
    expect(gone.body.previous._links).toBeUndefined();
    expect(gone.headers.allow).toBeUndefined();
    const tag = await site.call('POST', '/wp-json/wp/v2/tags', {
      auth: admin,
      body: { name: 'Short-lived' },
    });
    const tagGone = await site.call('DELETE', `/wp-json/wp/v2/tags/${tag.body.id}?force=true`, {
      auth: admin,
    });
    expect(tagGone.body.previous._links).toBeUndefined();
  });

  it('trashes as wp_trash_post: __trashed slug, plain permalink, a first revision; restores the slug', async () => {
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Binned', slug: 'binned', status: 'publish' },
    });
    const id = post.body.id as number;
    const trashed = await site.call('DELETE', `/wp-json/wp/v2/posts/${id}`, { auth: admin });
    expect(trashed.status).toBe(200);
    expect(trashed.body.slug).toBe('binned__trashed');
    expect(trashed.body.permalink_template).toBe(`${site.url}/?p=${id}`);
    expect(trashed.body._links['predecessor-version']).toHaveLength(1);
    // The slug is free meanwhile, and comes back with the post when no one took it.
    const restored = await site.call('POST', `/wp-json/wp/v2/posts/${id}`, {
      auth: admin,
      body: { status: 'draft' },
    });
    expect(restored.body.slug).toBe('binned');
    await site.call('DELETE', `/wp-json/wp/v2/posts/${id}`, { auth: admin });
    const other = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Other', slug: 'binned', status: 'publish' },
    });
    expect(other.body.slug).toBe('binned');
  });

  it('files a post whose only category is deleted under the default category', async () => {
    const cat = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: admin,
      body: { name: 'Temporary' },
    });
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Filed', status: 'publish', categories: [cat.body.id] },
    });
    await site.call('DELETE', `/wp-json/wp/v2/categories/${cat.body.id}?force=true`, {
      auth: admin,
    });
    const uncategorized = await site.call('GET', '/wp-json/wp/v2/categories?slug=uncategorized');
    const after = await site.call('GET', `/wp-json/wp/v2/posts/${post.body.id}`);
    expect(after.body.categories).toEqual([uncategorized.body[0].id]);
  });

  it('lists categories by page (no offset) and counts a flat list page from its offset', async () => {
    const categories = await site.call('GET', '/wp-json/wp/v2/categories');
    const offsetIgnored = await site.call('GET', '/wp-json/wp/v2/categories?offset=1');
    expect(offsetIgnored.body.map((c: { id: number }) => c.id)).toEqual(
      categories.body.map((c: { id: number }) => c.id),
    );
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/categories');
    expect(Object.keys(options.body.endpoints[0].args)).not.toContain('offset');
    for (const name of ['Emu', 'Timetable']) {
      await site.call('POST', '/wp-json/wp/v2/tags', { auth: admin, body: { name } });
    }
    const tags = await site.call('GET', '/wp-json/wp/v2/tags?offset=1');
    expect(tags.status).toBe(200);
    // Page ceil(1 / 10) + 1 = 2: a prev link to page 1, no next.
    expect(String(tags.headers.link)).toMatch(/offset=1&page=1>; rel="prev"/);
    expect(String(tags.headers.link)).not.toContain('rel="next"');
  });

  it('orders terms of the same count by id, whatever the direction', async () => {
    const desc = await site.call('GET', '/wp-json/wp/v2/tags?orderby=count&order=desc');
    const ids = desc.body.map((t: { id: number }) => t.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
  });

  it("gives a category's menu item the category's link and links the object", async () => {
    const item = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: {
        title: 'Guides',
        type: 'taxonomy',
        object: 'category',
        object_id: guides,
        menus: menu,
        status: 'publish',
      },
    });
    expect(item.status).toBe(201);
    const read = await site.call('GET', `/wp-json/wp/v2/menu-items/${item.body.id}`, {
      auth: admin,
    });
    expect(read.body.url).toBe(`${site.url}/category/guides/`);
    expect(read.body.object_id).toBe(guides);
    expect(read.body._links['wp:menu-item-object'][0].href).toBe(
      `${site.url}/wp-json/wp/v2/categories/${guides}`,
    );
    expect(read.body._links['wp:action-publish']).toBeUndefined();
    const edit = await site.call('GET', `/wp-json/wp/v2/menu-items/${item.body.id}?context=edit`, {
      auth: admin,
    });
    expect(
      Object.keys(edit.body._links)
        .filter((r) => r.startsWith('wp:action-'))
        .sort(),
    ).toEqual([
      'wp:action-assign-menus',
      'wp:action-create-menus',
      'wp:action-publish',
      'wp:action-unfiltered-html',
    ]);
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/menu-items');
    expect(options.body.schema.links.map((l: { rel: string }) => l.rel).sort()).toEqual([
      'https://api.w.org/action-assign-menus',
      'https://api.w.org/action-create-menus',
      'https://api.w.org/action-publish',
      'https://api.w.org/action-unfiltered-html',
      'https://api.w.org/menu-item-object',
    ]);
  });

  it('has autosaves of menu items for whoever may edit them', async () => {
    const item = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: { title: 'Home', url: 'https://docs.example/', menus: menu, status: 'publish' },
    });
    const route = `/wp-json/wp/v2/menu-items/${item.body.id}/autosaves`;
    const options = await site.call('OPTIONS', route, { auth: admin });
    expect(options.status).toBe(200);
    expect(options.headers.allow).toBe('GET, POST');
    expect(options.body.schema.title).toBe('nav_menu_item-revision');
    const refused = await site.call('OPTIONS', route, { auth: contributor });
    expect(refused.headers.allow).toBeUndefined();
    expect((await site.call('GET', route, { auth: contributor })).status).toBe(403);

    const saved = await site.call('POST', route, { auth: admin, body: { title: 'Start' } });
    expect(saved.status).toBe(200);
    expect(saved.body.parent).toBe(item.body.id);
    expect(saved.body.title.raw).toBe('Start');
    const list = await site.call('GET', route, { auth: admin });
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([saved.body.id]);
    const one = await site.call('GET', `${route}/${saved.body.id}`, { auth: admin });
    expect(one.body.id).toBe(saved.body.id);
    // The item itself is unchanged.
    const itemNow = await site.call('GET', `/wp-json/wp/v2/menu-items/${item.body.id}`, {
      auth: admin,
    });
    expect(itemNow.body.title.rendered).toBe('Home');
    const same = await site.call('POST', route, { auth: admin, body: { title: 'Home' } });
    expect([same.status, same.body.code]).toEqual([400, 'rest_autosave_no_changes']);
  });
});
