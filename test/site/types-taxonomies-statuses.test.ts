import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * /wp/v2/types, /wp/v2/taxonomies and /wp/v2/statuses as WordPress 6.1 answers them:
 * its registry (every type and taxonomy it shows, labels, icons, capability names) and its
 * permission rules per role for the edit context.
 */
describe('types, taxonomies and statuses as WordPress 6.1 shows them', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let subscriber: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
    contributor = await site.account('contributor', 'contributor');
    subscriber = await site.account('subscriber', 'subscriber');
  });

  const keysOf = (body: unknown) => Object.keys(body as object);

  it('lists nav_menu among the taxonomies with its fields, to anyone in the view context', async () => {
    const list = await site.call('GET', '/wp-json/wp/v2/taxonomies');
    expect(list.status).toBe(200);
    expect(list.body.nav_menu).toMatchObject({
      name: 'Navigation Menus',
      slug: 'nav_menu',
      description: '',
      hierarchical: false,
      types: ['nav_menu_item'],
      rest_base: 'menus',
      rest_namespace: 'wp/v2',
    });
    // The view context has no capabilities, labels, visibility or show_cloud.
    expect(keysOf(list.body.nav_menu).sort()).toEqual(
      [
        '_links',
        'description',
        'hierarchical',
        'name',
        'rest_base',
        'rest_namespace',
        'slug',
        'types',
      ].sort(),
    );
    const item = await site.call('GET', '/wp-json/wp/v2/taxonomies/nav_menu');
    expect([item.status, item.body.slug, item.headers.allow]).toEqual([200, 'nav_menu', 'GET']);
    const ofMenuItems = await site.call('GET', '/wp-json/wp/v2/taxonomies?type=nav_menu_item');
    expect(keysOf(ofMenuItems.body)).toEqual(['nav_menu']);
  });

  it("shows nav_menu's edit context only to who may assign menus (edit_theme_options)", async () => {
    const byAdmin = await site.call('GET', '/wp-json/wp/v2/taxonomies/nav_menu?context=edit', {
      auth: admin,
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({
      show_cloud: false,
      capabilities: {
        manage_terms: 'edit_theme_options',
        edit_terms: 'edit_theme_options',
        delete_terms: 'edit_theme_options',
        assign_terms: 'edit_theme_options',
      },
      visibility: {
        public: false,
        publicly_queryable: false,
        show_admin_column: false,
        show_in_nav_menus: false,
        show_in_quick_edit: false,
        show_ui: false,
      },
      labels: {
        name: 'Navigation Menus',
        singular_name: 'Navigation Menu',
        archives: 'Navigation Menus',
      },
    });
    for (const who of [editor, author, contributor]) {
      const r = await site.call('GET', '/wp-json/wp/v2/taxonomies/nav_menu?context=edit', {
        auth: who,
      });
      expect([who.username, r.status, r.body.code]).toEqual([
        who.username,
        403,
        'rest_forbidden_context',
      ]);
      // The edit list leaves out what the caller may not assign.
      const list = await site.call('GET', '/wp-json/wp/v2/taxonomies?context=edit', { auth: who });
      expect([who.username, keysOf(list.body)]).toEqual([
        who.username,
        ['category', 'post_tag', 'wp_pattern_category'],
      ]);
    }
    const adminList = await site.call('GET', '/wp-json/wp/v2/taxonomies?context=edit', {
      auth: admin,
    });
    expect(keysOf(adminList.body)).toContain('nav_menu');
    // Who assigns no terms at all is refused the edit list; anonymous without an Allow header.
    const sub = await site.call('GET', '/wp-json/wp/v2/taxonomies?context=edit', {
      auth: subscriber,
    });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_cannot_view']);
    const anon = await site.call('GET', '/wp-json/wp/v2/taxonomies/category?context=edit');
    expect([anon.status, anon.body.code, anon.headers.allow]).toEqual([
      401,
      'rest_forbidden_context',
      undefined,
    ]);
  });

  it('gives categories and tags their labels, visibility, tag cloud and capability names', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/taxonomies?context=edit', { auth: author });
    expect(r.body.category).toMatchObject({
      show_cloud: true,
      capabilities: { assign_terms: 'assign_categories', manage_terms: 'manage_categories' },
      labels: { parent_item: 'Parent Category', filter_by_item: 'Filter by category' },
      visibility: { public: true, show_in_quick_edit: true, show_admin_column: true },
    });
    expect(r.body.post_tag.labels).toMatchObject({
      separate_items_with_commas: 'Separate tags with commas',
      parent_item: null,
    });
  });

  it('lists every type WordPress shows, with its icon, labels and capabilities', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/types');
    expect(keysOf(r.body)).toEqual([
      'post',
      'page',
      'attachment',
      'nav_menu_item',
      'wp_block',
      'wp_template',
      'wp_template_part',
      'wp_navigation',
    ]);
    expect(r.body.post.icon).toBe('dashicons-admin-post');
    expect(r.body.page.icon).toBe('dashicons-admin-page');
    expect(r.body.attachment).toMatchObject({ icon: 'dashicons-admin-media', rest_base: 'media' });
    expect(r.body.wp_block.name).toBe('Reusable blocks');
    const page = await site.call('GET', '/wp-json/wp/v2/types/page?context=edit', { auth: editor });
    expect(page.body.capabilities).toMatchObject({
      edit_posts: 'edit_pages',
      edit_post: 'edit_page',
      create_posts: 'edit_pages',
      read: 'read',
    });
    expect(page.body.labels).toMatchObject({
      add_new_item: 'Add New Page',
      parent_item_colon: 'Parent Page:',
    });
    // WordPress's pages support no excerpt (their REST schema has one all the same).
    expect(page.body.supports.excerpt).toBeUndefined();
  });

  it("refuses a type's edit context to whoever may not edit its items", async () => {
    const cases: Array<[SiteAccountFixture | undefined, string, number, string | undefined]> = [
      [undefined, 'post', 401, 'rest_forbidden_context'],
      [subscriber, 'post', 403, 'rest_forbidden_context'],
      [contributor, 'post', 200, undefined],
      [contributor, 'page', 403, 'rest_forbidden_context'],
      [contributor, 'wp_block', 200, undefined],
      [editor, 'page', 200, undefined],
      [editor, 'wp_template', 403, 'rest_forbidden_context'],
      [admin, 'wp_template', 200, undefined],
    ];
    for (const [who, type, status, code] of cases) {
      const r = await site.call('GET', `/wp-json/wp/v2/types/${type}?context=edit`, {
        ...(who ? { auth: who } : {}),
      });
      const name = who?.username ?? 'anonymous';
      expect([name, type, r.status, r.body.code]).toEqual([name, type, status, code]);
      // No permission callback on the item: GET is allowed, the context refused by the item.
      expect(r.headers.allow).toBe('GET');
    }
    const contributorList = await site.call('GET', '/wp-json/wp/v2/types?context=edit', {
      auth: contributor,
    });
    expect(keysOf(contributorList.body)).toEqual(['post', 'attachment', 'wp_block']);
    const sub = await site.call('GET', '/wp-json/wp/v2/types?context=edit', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_cannot_view']);
  });

  it('shows statuses but publish only to who edits some type; trash not in the All list', async () => {
    const anon = await site.call('GET', '/wp-json/wp/v2/statuses');
    expect(keysOf(anon.body)).toEqual(['publish']);
    const draft = await site.call('GET', '/wp-json/wp/v2/statuses/draft');
    expect([draft.status, draft.body.code, draft.headers.allow]).toEqual([
      401,
      'rest_cannot_read_status',
      undefined,
    ]);
    const anonEdit = await site.call('GET', '/wp-json/wp/v2/statuses?context=edit');
    expect([anonEdit.status, anonEdit.body.code]).toEqual([401, 'rest_cannot_view']);
    const bySubscriber = await site.call('GET', '/wp-json/wp/v2/statuses', { auth: subscriber });
    expect(keysOf(bySubscriber.body)).toEqual(['publish']);
    const byContributor = await site.call('GET', '/wp-json/wp/v2/statuses?context=edit', {
      auth: contributor,
    });
    expect(keysOf(byContributor.body)).toEqual([
      'publish',
      'future',
      'draft',
      'pending',
      'private',
      'trash',
    ]);
    expect(byContributor.body.trash.show_in_list).toBe(false);
    expect(byContributor.body.draft.show_in_list).toBe(true);
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/statuses');
    expect(options.body.schema.properties.date_floating.context).toEqual(['view', 'edit']);
  });
});
