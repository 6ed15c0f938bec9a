import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

describe('the REST server: index, routing, batch, authentication', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let author: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    author = await site.account('author', 'author');
  });

  it('serves the index with site facts, namespaces, authentication and every route with args from the same schemas', async () => {
    const r = await site.call('GET', '/wp-json/');
    expect(r.status).toBe(200);
    expect(r.headers.link).toContain(`<${site.url}/wp-json/>; rel="https://api.w.org/"`);
    expect(r.body).toMatchObject({
      url: site.url,
      home: site.url,
      gmt_offset: 8,
      timezone_string: 'Asia/Shanghai',
      authentication: {
        'application-passwords': {
          endpoints: { authorization: `${site.url}/wp-admin/authorize-application.php` },
        },
      },
    });
    expect(r.body.namespaces).toContain('wp/v2');
    const posts = r.body.routes['/wp/v2/posts'];
    expect(posts.methods).toEqual(['GET', 'POST']);
    expect(posts._links.self[0].href).toBe(`${site.url}/wp-json/wp/v2/posts`);
    expect(posts.endpoints[0].args.per_page).toEqual({
      description: 'Maximum number of items to be returned in result set.',
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 10,
      required: false,
    });
    expect(posts.endpoints[0].args.status.items.enum).toContain('any');
    expect(r.body.routes['/wp/v2/posts/(?P<id>[\\d]+)'].methods).toEqual([
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ]);
    expect(r.body.routes['/wp/v2/menu-items'].endpoints[0].args.per_page.default).toBe(100);
    expect(r.body.routes['/batch/v1'].endpoints[0].args.requests.maxItems).toBe(25);
    const ns = await site.call('GET', '/wp-json/wp/v2');
    expect(ns.body.namespace).toBe('wp/v2');
    expect(Object.keys(ns.body.routes)).toContain('/wp/v2/pages');
    const viaQuery = await site.call('GET', '/index.php?rest_route=/wp/v2');
    expect(viaQuery.body.namespace).toBe('wp/v2');
  });

  it('answers OPTIONS with the route schema, HEAD as GET, and honours _method / X-HTTP-Method-Override on POST', async () => {
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/posts');
    expect(options.body.schema.title).toBe('post');
    expect(options.body.schema.properties.title.context).toEqual(['view', 'edit', 'embed']);
    // Allow lists what this caller may do (anonymous: read only), as rest_send_allow_header.
    expect(options.headers.allow).toBe('GET');
    const head = await site.app.inject({ method: 'HEAD', url: '/wp-json/wp/v2/posts' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['x-wp-total']).toBe('0');
    const created = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'override', status: 'publish' },
    });
    const viaHeader = await site.call('POST', `/wp-json/wp/v2/posts/${created.body.id}`, {
      auth: author,
      headers: { 'x-http-method-override': 'DELETE' },
    });
    expect(viaHeader.body.status).toBe('trash');
    const viaParam = await site.call(
      'POST',
      `/wp-json/wp/v2/posts/${created.body.id}?_method=DELETE&force=true`,
      { auth: author },
    );
    expect(viaParam.body.deleted).toBe(true);
  });

  it('runs batch items in normal mode one by one, each under its own route', async () => {
    const r = await site.call('POST', '/wp-json/batch/v1', {
      auth: admin,
      body: {
        requests: [
          { path: '/wp/v2/tags', body: { name: 'one' } },
          { path: '/wp/v2/no-such-route', body: { name: 'x' } },
          { path: '/wp/v2/tags', body: {} },
          { path: '/wp/v2/tags', body: { name: 'two' } },
          {
            method: 'POST',
            path: '/wp/v2/users/me/application-passwords',
            body: { name: 'batch' },
          },
          { method: 'DELETE', path: '/wp/v2/tags/999999?force=true' },
        ],
      },
    });
    expect(r.status).toBe(207);
    expect(r.body.responses.map((x: { status: number }) => x.status)).toEqual([
      201, 404, 400, 201, 400, 404,
    ]);
    expect(r.body.responses[1].body.code).toBe('rest_no_route');
    expect(r.body.responses[2].body.code).toBe('rest_missing_callback_param');
    expect(r.body.responses[3].body.name).toBe('two');
    expect(r.body.responses[4].body.code).toBe('rest_batch_not_allowed');
    expect(r.body.responses[5].body.code).toBe('rest_term_invalid');
    const tags = await site.call('GET', '/wp-json/wp/v2/tags');
    expect(tags.body.map((t: { name: string }) => t.name).sort()).toEqual(['one', 'two']);
  });

  it('runs nothing under require-all-validate when one item fails validation', async () => {
    const r = await site.call('POST', '/wp-json/batch/v1', {
      auth: admin,
      body: {
        validation: 'require-all-validate',
        requests: [
          { path: '/wp/v2/posts', body: { title: 'never created', status: 'publish' } },
          { path: '/wp/v2/posts', body: { title: 'bad', status: 'nonsense' } },
        ],
      },
    });
    expect(r.status).toBe(207);
    expect(r.body.failed).toBe('validation');
    expect(r.body.responses[0]).toBeNull();
    expect(r.body.responses[1]).toMatchObject({
      status: 400,
      body: { code: 'rest_invalid_param', data: { params: { status: expect.any(String) } } },
    });
    const posts = await site.call('GET', '/wp-json/wp/v2/posts?search=never');
    expect(posts.body).toEqual([]);
    const tooMany = await site.call('POST', '/wp-json/batch/v1', {
      auth: admin,
      body: {
        requests: Array.from({ length: 26 }, () => ({ path: '/wp/v2/tags', body: { name: 'x' } })),
      },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.data.params.requests).toBe('requests must contain at most 25 items.');
  });

  it('authenticates Basic with an application password only, and manages application passwords', async () => {
    const me = await site.call('GET', '/wp-json/wp/v2/users/me?context=edit', { auth: author });
    expect(me.body).toMatchObject({ id: author.id, username: 'author', roles: ['author'] });
    const unknown = await site.call('GET', '/wp-json/wp/v2/users/me', {
      headers: { authorization: `Basic ${Buffer.from('nobody:x').toString('base64')}` },
    });
    // A failed application password is answered as anonymous (WordPress 6.1, compatibility.md).
    expect([unknown.status, unknown.body.code]).toEqual([401, 'rest_not_logged_in']);
    const wrong = await site.call('GET', '/wp-json/wp/v2/users/me', {
      headers: { authorization: `Basic ${Buffer.from('author:abcd efgh').toString('base64')}` },
    });
    expect([wrong.status, wrong.body.code]).toEqual([401, 'rest_not_logged_in']);
    const anonymousMe = await site.call('GET', '/wp-json/wp/v2/users/me');
    expect([anonymousMe.status, anonymousMe.body.code]).toEqual([401, 'rest_not_logged_in']);

    const created = await site.call('POST', '/wp-json/wp/v2/users/me/application-passwords', {
      auth: author,
      body: { name: 'laptop' },
    });
    expect(created.status).toBe(201);
    expect(created.body.password).toMatch(/^(\w{4} ){5}\w{4}$/);
    expect(Object.keys(created.body).sort()).toEqual([
      '_links',
      'app_id',
      'created',
      'last_ip',
      'last_used',
      'name',
      'password',
      'uuid',
    ]);
    const spaced = {
      ...author,
      basic: `Basic ${Buffer.from(`author:${created.body.password}`).toString('base64')}`,
    };
    expect((await site.call('GET', '/wp-json/wp/v2/users/me', { auth: spaced })).status).toBe(200);
    const list = await site.call('GET', `/wp-json/wp/v2/users/${author.id}/application-passwords`, {
      auth: author,
    });
    const laptop = list.body.find((a: { name: string }) => a.name === 'laptop');
    expect(laptop).not.toHaveProperty('password');
    expect(laptop.last_used).not.toBeNull();
    const dup = await site.call('POST', '/wp-json/wp/v2/users/me/application-passwords', {
      auth: author,
      body: { name: 'laptop' },
    });
    expect([dup.status, dup.body.code]).toEqual([409, 'application_passwords_duplicate_name']);
    const renamed = await site.call(
      'POST',
      `/wp-json/wp/v2/users/me/application-passwords/${laptop.uuid}`,
      { auth: author, body: { name: 'old laptop' } },
    );
    expect(renamed.body.name).toBe('old laptop');
    const others = await site.call(
      'GET',
      `/wp-json/wp/v2/users/${admin.id}/application-passwords`,
      { auth: author },
    );
    expect([others.status, others.body.code]).toEqual([
      403,
      'rest_cannot_list_application_passwords',
    ]);
    const adminSees = await site.call(
      'GET',
      `/wp-json/wp/v2/users/${author.id}/application-passwords`,
      { auth: admin },
    );
    expect(adminSees.status).toBe(200);
    const removed = await site.call(
      'DELETE',
      `/wp-json/wp/v2/users/me/application-passwords/${laptop.uuid}`,
      { auth: author },
    );
    expect(removed.body).toMatchObject({ deleted: true, previous: { uuid: laptop.uuid } });
    expect((await site.call('GET', '/wp-json/wp/v2/users/me', { auth: spaced })).body.code).toBe(
      'rest_not_logged_in',
    );
    const missing = await site.call(
      'GET',
      `/wp-json/wp/v2/users/me/application-passwords/${laptop.uuid}`,
      { auth: author },
    );
    expect([missing.status, missing.body.code]).toEqual([
      404,
      'rest_application_password_not_found',
    ]);
    const stored = await site.db.query(
      `SELECT encode(password_hash, 'hex') AS h FROM site_app_passwords`,
    );
    expect(stored.rows.every((row) => String((row as { h: string }).h).length === 64)).toBe(true);
  });

  it('shows users publicly only when they published, with email in the edit context for themselves or an administrator', async () => {
    const hidden = await site.call('GET', `/wp-json/wp/v2/users/${admin.id}`);
    expect([hidden.status, hidden.body.code]).toEqual([401, 'rest_user_cannot_view']);
    await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'by author', status: 'publish' },
    });
    const shown = await site.call('GET', `/wp-json/wp/v2/users/${author.id}`);
    expect(Object.keys(shown.body).sort()).toEqual([
      '_links',
      'avatar_urls',
      'description',
      'id',
      'link',
      'meta',
      'name',
      'slug',
      'url',
    ]);
    const editSelf = await site.call('GET', `/wp-json/wp/v2/users/${author.id}?context=edit`, {
      auth: author,
    });
    expect(editSelf.body).toHaveProperty('email');
    const editOther = await site.call('GET', `/wp-json/wp/v2/users/${admin.id}?context=edit`, {
      auth: author,
    });
    expect(editOther.status).toBe(403);
    const byAdmin = await site.call('GET', `/wp-json/wp/v2/users/${author.id}?context=edit`, {
      auth: admin,
    });
    expect(byAdmin.body).toHaveProperty('email');
    const list = await site.call('GET', '/wp-json/wp/v2/users');
    expect(list.body.map((u: { id: number }) => u.id)).toEqual([author.id]);
    const bad = await site.call('GET', '/wp-json/wp/v2/users/999999', { auth: admin });
    expect(bad.body.code).toBe('rest_user_invalid_id');
  });

  it('lists types, taxonomies and statuses as block editors read them', async () => {
    const types = await site.call('GET', '/wp-json/wp/v2/types');
    expect(Object.keys(types.body)).toEqual([
      'post',
      'page',
      'attachment',
      'nav_menu_item',
      'wp_block',
      'wp_template',
      'wp_template_part',
      'wp_navigation',
    ]);
    expect(types.body.post).toMatchObject({
      slug: 'post',
      rest_base: 'posts',
      taxonomies: ['category', 'post_tag'],
    });
    const editTypes = await site.call('GET', '/wp-json/wp/v2/types/page?context=edit', {
      auth: admin,
    });
    expect(editTypes.body.supports['page-attributes']).toBe(true);
    const taxonomies = await site.call('GET', '/wp-json/wp/v2/taxonomies');
    expect(Object.keys(taxonomies.body)).toEqual([
      'category',
      'post_tag',
      'nav_menu',
      'wp_pattern_category',
    ]);
    const statuses = await site.call('GET', '/wp-json/wp/v2/statuses');
    expect(Object.keys(statuses.body)).toEqual(['publish']);
    const editorStatuses = await site.call('GET', '/wp-json/wp/v2/statuses', { auth: author });
    expect(Object.keys(editorStatuses.body)).toContain('draft');
  });

  it('manages menus and menu items (administrators only, force to delete)', async () => {
    const anon = await site.call('GET', '/wp-json/wp/v2/menu-items');
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_view']);
    const menu = await site.call('POST', '/wp-json/wp/v2/menus', {
      auth: admin,
      body: { name: 'Main', locations: ['primary'] },
    });
    expect(menu.status).toBe(201);
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: '关于', status: 'publish' },
    });
    const item = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: { type: 'post_type', object: 'page', object_id: page.body.id, menus: menu.body.id },
    });
    expect(item.status).toBe(201);
    expect(item.body).toMatchObject({
      title: { rendered: '关于' },
      url: `${site.url}/%e5%85%b3%e4%ba%8e/`,
      menus: menu.body.id,
      menu_order: 1,
    });
    const custom = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: { title: 'API', url: 'https://example.com/api', menus: menu.body.id, menu_order: 2 },
    });
    const noUrl = await site.call('POST', '/wp-json/wp/v2/menu-items', {
      auth: admin,
      body: { title: 'x', menus: menu.body.id },
    });
    expect(noUrl.body.code).toBe('rest_url_required');
    const list = await site.call('GET', `/wp-json/wp/v2/menu-items?menus=${menu.body.id}`, {
      auth: admin,
    });
    expect(list.body.map((i: { id: number }) => i.id)).toEqual([item.body.id, custom.body.id]);
    const noForce = await site.call('DELETE', `/wp-json/wp/v2/menu-items/${custom.body.id}`, {
      auth: admin,
    });
    expect([noForce.status, noForce.body.code]).toEqual([501, 'rest_trash_not_supported']);
    const forced = await site.call(
      'DELETE',
      `/wp-json/wp/v2/menu-items/${custom.body.id}?force=true`,
      { auth: admin },
    );
    expect(forced.body.deleted).toBe(true);
    const home = await site.call('GET', '/');
    expect(home.body).toContain(`<a href="${site.url}/%e5%85%b3%e4%ba%8e/">关于</a>`);
    const termNoForce = await site.call('DELETE', `/wp-json/wp/v2/menus/${menu.body.id}`, {
      auth: admin,
    });
    expect(termNoForce.status).toBe(501);
  });
});
