import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * What an independent differential against WordPress 6.1.9 found beyond the harness's corpus,
 * each case as WordPress 6.1.9 answered it (Debian's package, default settings).
 */
describe('the site answers as WordPress 6.1.9 did to an independent differential', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let subscriber: SiteAccountFixture;
  const ids: number[] = [];

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    subscriber = await site.account('subscriber', 'subscriber');
    for (let i = 1; i <= 6; i++) {
      const r = await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: admin,
        body: { title: `P${i}`, status: 'publish', date: `2021-01-0${i}T10:00:00` },
      });
      ids.push(r.body.id as number);
    }
    await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'A page', status: 'publish' },
    });
  });

  const nextLink = (link: unknown) =>
    /<([^>]*)>; rel="next"/.exec(String(link))?.[1] ?? String(link);

  it('writes Link queries as add_query_arg( urlencode_deep( $params ) ) does', async () => {
    const [a, b] = ids;
    const list = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?exclude=${a},${b}&per_page=2&_fields=id&foo=a%20b~c&sticky=false&search=`,
    );
    expect(list.status).toBe(200);
    // Sanitised lists as PHP writes arrays, PHP's urlencode (a space as +, ~ as %7E), false and
    // the empty string as a bare key, what the route does not know as sent, page appended.
    expect(nextLink(list.headers.link)).toBe(
      `${site.url}/wp-json/wp/v2/posts?exclude%5B0%5D=${a}&exclude%5B1%5D=${b}&per_page=2&_fields=id&foo=a+b%7Ec&sticky&search&page=2`,
    );
    // A request through ?rest_route= keeps rest_route among its query parameters ($_GET).
    const plain = await site.call(
      'GET',
      `/index.php?rest_route=/wp/v2/posts&exclude=${a},${b}&per_page=2&_fields=id`,
    );
    expect(nextLink(plain.headers.link)).toBe(
      `${site.url}/wp-json/wp/v2/posts?rest_route=%2Fwp%2Fv2%2Fposts&exclude%5B0%5D=${a}&exclude%5B1%5D=${b}&per_page=2&_fields=id&page=2`,
    );
  });

  it('reads offset=-1 as WP_Query does (absint): the list from the second item', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/posts?offset=-1&_fields=id');
    expect(r.status).toBe(200);
    expect(r.body.map((p: { id: number }) => p.id)).toEqual([...ids].reverse().slice(1));
    expect(r.headers['x-wp-total']).toBe('6');
    // The parameter itself stays as given: the Link repeats offset=-1.
    const paged = await site.call('GET', '/wp-json/wp/v2/posts?offset=-1&per_page=2&_fields=id');
    expect(paged.body.map((p: { id: number }) => p.id)).toEqual([ids[4], ids[3]]);
    expect(nextLink(paged.headers.link)).toBe(
      `${site.url}/wp-json/wp/v2/posts?offset=-1&per_page=2&_fields=id&page=2`,
    );
  });

  it('answers _fields naming no field with empty items, written [] as PHP writes an empty array', async () => {
    const list = await site.call('GET', '/wp-json/wp/v2/posts?_fields=nope&per_page=2');
    expect([list.status, list.body]).toEqual([200, [[], []]]);
    const one = await site.call('GET', `/wp-json/wp/v2/posts/${ids[0]}?_fields=nope`);
    expect([one.status, one.body]).toEqual([200, []]);
  });

  it('names the args with a validate_callback first and alone, as has_valid_params does', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/posts?per_page=abc&page=abc&order=x');
    expect([r.status, r.body.code]).toEqual([400, 'rest_invalid_param']);
    expect(r.body.message).toBe('Invalid parameter(s): page, per_page');
    expect(r.body.data.params).toEqual({
      page: 'page is not of type integer.',
      per_page: 'per_page is not of type integer.',
    });
    expect(r.body.data.details.page).toEqual({
      code: 'rest_invalid_type',
      message: 'page is not of type integer.',
      data: { param: 'page' },
    });
    // The others are checked by sanitize_params, together.
    const enums = await site.call('GET', '/wp-json/wp/v2/posts?order=x&orderby=y');
    expect(Object.keys(enums.body.data.params)).toEqual(['order', 'orderby']);
    expect(enums.body.data.details.order).toEqual({
      code: 'rest_not_in_enum',
      message: 'order is not one of asc and desc.',
      data: null,
    });
  });

  it('ignores a parameter the route does not register (pages have no sticky)', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/pages?sticky=true&_fields=title');
    expect([r.status, r.body, r.headers['x-wp-total']]).toEqual([
      200,
      [{ title: { rendered: 'A page' } }],
      '1',
    ]);
  });

  it('has /wp/v2/settings for administrators only (rest_forbidden, 401 signed out)', async () => {
    const anonymous = await site.call('GET', '/wp-json/wp/v2/settings');
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'rest_forbidden']);
    const sub = await site.call('GET', '/wp-json/wp/v2/settings', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_forbidden']);
    const r = await site.call('GET', '/wp-json/wp/v2/settings', { auth: admin });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual([
      'title',
      'description',
      'url',
      'email',
      'timezone',
      'date_format',
      'time_format',
      'start_of_week',
      'language',
      'use_smilies',
      'default_category',
      'default_post_format',
      'posts_per_page',
      'show_on_front',
      'page_on_front',
      'page_for_posts',
      'default_ping_status',
      'default_comment_status',
      'site_logo',
      'site_icon',
    ]);
    expect(r.body).toMatchObject({ timezone: 'Asia/Shanghai', show_on_front: 'posts' });
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/settings', { auth: admin });
    expect(options.body.schema.title).toBe('settings');
  });

  it('has /wp/v2/menu-locations for those who edit theme options (rest_cannot_view)', async () => {
    const anonymous = await site.call('GET', '/wp-json/wp/v2/menu-locations');
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'rest_cannot_view']);
    const sub = await site.call('GET', '/wp-json/wp/v2/menu-locations', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_cannot_view']);
    const r = await site.call('GET', '/wp-json/wp/v2/menu-locations', { auth: admin });
    expect([r.status, r.body]).toEqual([200, []]);
    const one = await site.call('GET', '/wp-json/wp/v2/menu-locations/primary', { auth: admin });
    expect([one.status, one.body.code]).toEqual([404, 'rest_menu_location_invalid']);
  });

  it('answers OPTIONS on a path no route takes with an empty description, no Allow', async () => {
    const r = await site.call('OPTIONS', '/wp-json/wp/v2/nope');
    expect([r.status, r.body, r.headers.allow]).toEqual([200, [], undefined]);
  });

  it('has the comments routes: an empty collection, no comment, the comment schema', async () => {
    const list = await site.call('GET', '/wp-json/wp/v2/comments');
    expect([
      list.status,
      list.body,
      list.headers['x-wp-total'],
      list.headers['x-wp-totalpages'],
    ]).toEqual([200, [], '0', '0']);
    expect(list.headers.allow).toBe('GET');
    const one = await site.call('GET', '/wp-json/wp/v2/comments/5');
    expect([one.status, one.body.code]).toEqual([404, 'rest_comment_invalid_id']);
    const edit = await site.call('GET', '/wp-json/wp/v2/comments?context=edit');
    expect([edit.status, edit.body.code]).toEqual([401, 'rest_forbidden_context']);
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/comments');
    expect(options.body.schema.title).toBe('comment');
    expect(Object.keys(options.body.schema.properties)).toContain('author_avatar_urls');
  });
});
