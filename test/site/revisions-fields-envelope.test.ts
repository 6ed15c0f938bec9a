import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

/**
 * Further differences the differential against WordPress 6.1 found (test/site/oracle): a block's
 * revisions, `offset` on an unpaged revision list, `_fields` on one item with `_embed`, and the
 * totals in an `_envelope`.
 */
describe('revisions, _fields and _envelope as WordPress 6.1 answers them', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let blockId: number;
  let postId: number;
  let pageId: number;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    const block = await site.call('POST', '/wp-json/wp/v2/blocks', {
      auth: admin,
      body: { title: 'Notice', content: '<p>one</p>', status: 'publish' },
    });
    blockId = block.body.id as number;
    await site.call('POST', `/wp-json/wp/v2/blocks/${blockId}`, {
      auth: admin,
      body: { title: 'Notice (rev 1)', content: '<p>two</p>' },
    });
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'p', content: 'zero', status: 'publish' },
    });
    postId = post.body.id as number;
    for (const content of ['one', 'two']) {
      await site.call('POST', `/wp-json/wp/v2/posts/${postId}`, { auth: admin, body: { content } });
    }
    const parent = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'About', status: 'publish' },
    });
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Team', status: 'publish', parent: parent.body.id },
    });
    pageId = page.body.id as number;
  });

  it("shows a block's revisions with the blocks' title and content, without excerpt", async () => {
    const list = await site.call('GET', `/wp-json/wp/v2/blocks/${blockId}/revisions`, {
      auth: admin,
    });
    expect(list.status).toBe(200);
    const [revision] = list.body as Array<Record<string, Record<string, unknown>>>;
    // The blocks' schema gives title.raw and content.raw the view context (clients parse them).
    expect(revision!.title).toEqual({ raw: 'Notice (rev 1)', rendered: 'Notice (rev 1)' });
    expect(Object.keys(revision!.content!).sort()).toEqual(['raw', 'rendered']);
    expect(revision!.content!.raw).toBe('<p>two</p>');
    expect(revision).not.toHaveProperty('excerpt');
    const options = await site.call('OPTIONS', `/wp-json/wp/v2/blocks/${blockId}/revisions`);
    const props = options.body.schema.properties as Record<
      string,
      { properties?: Record<string, unknown> }
    >;
    expect(Object.keys(props.title!.properties!)).toEqual(['raw']);
    expect(Object.keys(props.content!.properties!).sort()).toEqual([
      'block_version',
      'protected',
      'raw',
    ]);
    expect(props).not.toHaveProperty('excerpt');
    // A post's revisions keep their excerpt (posts have one).
    const post = await site.call('GET', `/wp-json/wp/v2/posts/${postId}/revisions`, {
      auth: admin,
    });
    expect(post.body[0]).toHaveProperty('excerpt');
  });

  it('lists every revision when offset comes without per_page (WP_Query unpaged ignores it)', async () => {
    const path = `/wp-json/wp/v2/posts/${postId}/revisions`;
    const all = await site.call('GET', `${path}?offset=1`, { auth: admin });
    expect([all.status, all.body.length, all.headers['x-wp-total']]).toEqual([200, 2, '2']);
    const paged = await site.call('GET', `${path}?offset=1&per_page=5`, { auth: admin });
    expect(paged.body.map((r: { id: number }) => r.id)).toEqual([all.body[1].id]);
    const past = await site.call('GET', `${path}?offset=2`, { auth: admin });
    expect([past.status, past.body.code]).toEqual([400, 'rest_revision_invalid_offset_number']);
  });

  it('writes no revision for a change of whitespace alone, and stores the text as sent', async () => {
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'w', content: 'a b', status: 'publish' },
    });
    const path = `/wp-json/wp/v2/posts/${post.body.id}`;
    const count = async () =>
      (await site.call('GET', `${path}/revisions`, { auth: admin })).headers['x-wp-total'];
    await site.call('POST', path, { auth: admin, body: { content: 'a  b\n' } });
    expect(await count()).toBe('1');
    // normalize_whitespace: runs of spaces, tabs and line ends, and the ends, do not count.
    await site.call('POST', path, { auth: admin, body: { content: ' a\tb\r\n\n' } });
    expect(await count()).toBe('1');
    await site.call('POST', path, { auth: admin, body: { content: 'a c' } });
    expect(await count()).toBe('2');
    const edit = await site.call('GET', `${path}?context=edit`, { auth: admin });
    expect(edit.body.content.raw).toBe('a c');
    const first = await site.call('GET', `${path}/revisions?order=asc&context=edit`, {
      auth: admin,
    });
    expect(first.body[0].content.raw).toBe('a  b\n');
  });

  it("keeps a single item's links with _fields naming _embedded, and embeds them all", async () => {
    const one = await site.call(
      'GET',
      `/wp-json/wp/v2/pages/${pageId}?_embed&_fields=id,_embedded.author`,
    );
    expect(one.body.id).toBe(pageId);
    expect(Object.keys(one.body._links)).toEqual(expect.arrayContaining(['self', 'author', 'up']));
    expect(Object.keys(one.body._embedded).sort()).toEqual(['author', 'up']);
    expect(one.body._embedded.author[0].id).toBe(admin.id);
    expect(one.body).not.toHaveProperty('title');
    // Without _links or _embedded among the fields, no links.
    const bare = await site.call('GET', `/wp-json/wp/v2/pages/${pageId}?_embed&_fields=id,title`);
    expect(Object.keys(bare.body).sort()).toEqual(['id', 'title']);
    // A collection's items carry their links in their data: _fields cuts them, nothing embeds.
    const list = await site.call('GET', '/wp-json/wp/v2/pages?_embed&_fields=id,_embedded.author');
    for (const item of list.body as object[]) expect(Object.keys(item)).toEqual(['id']);
  });

  it('gives X-WP-Total and X-WP-TotalPages as numbers in an _envelope', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/posts?_envelope');
    expect(r.status).toBe(200);
    // On the wire a header stays text; in the envelope it is the controller's integer.
    const plain = await site.call('GET', '/wp-json/wp/v2/posts');
    expect(plain.headers['x-wp-total']).toMatch(/^[1-9]\d*$/);
    expect(r.body.headers['X-WP-Total']).toBe(Number(plain.headers['x-wp-total']));
    expect(r.body.headers['X-WP-TotalPages']).toBe(Number(plain.headers['x-wp-totalpages']));
  });
});
