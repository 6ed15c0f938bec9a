import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from './site-fixture.js';

const BLOCKS = '<!-- wp:paragraph -->\n<p>动车组 "CR400AF" 的交路</p>\n<!-- /wp:paragraph -->';

describe('posts, pages and blocks', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  let author2: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let subscriber: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
    author2 = await site.account('author2', 'author');
    contributor = await site.account('contrib', 'contributor');
    subscriber = await site.account('subscriber', 'subscriber');
  });

  it('creates a post from block markup and renders it (content.rendered, title quotes, excerpt)', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'It\'s "CR400AF"', content: BLOCKS, status: 'publish' },
    });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`${site.url}/wp-json/wp/v2/posts/${r.body.id}`);
    expect(r.body.title).toEqual({
      raw: 'It\'s "CR400AF"',
      rendered: 'It&#8217;s &#8220;CR400AF&#8221;',
    });
    expect(r.body.content.rendered).toBe('\n<p>动车组 &#8220;CR400AF&#8221; 的交路</p>\n');
    expect(r.body.content.block_version).toBe(1);
    expect(r.body.excerpt.rendered).toBe('<p>动车组 &#8220;CR400AF&#8221; 的交路</p>\n');
    expect(r.body.slug).toBe('its-cr400af');
    expect(r.body.author).toBe(author.id);
    expect(r.body.link).toMatch(/\/\d{4}\/\d{2}\/\d{2}\/its-cr400af\/$/);
    // date in Shanghai time, date_gmt in UTC: 8 hours apart.
    expect(Date.parse(`${r.body.date}Z`) - Date.parse(`${r.body.date_gmt}Z`)).toBe(8 * 3600 * 1000);
  });

  it('gives classic content paragraphs and honours excerpt_length', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: {
        title: 'classic',
        content: 'one two three four five\n\nsecond paragraph',
        status: 'publish',
      },
    });
    expect(r.body.content.rendered).toBe(
      '<p>one two three four five</p>\n<p>second paragraph</p>\n',
    );
    expect(r.body.content.block_version).toBe(0);
    const short = await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}?excerpt_length=3`);
    expect(short.body.excerpt.rendered).toBe('<p>one two three [&hellip;]</p>\n');
  });

  it('makes slugs unique per type (-2, -3) and shows generated_slug in edit context', async () => {
    const a = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Same', status: 'publish' },
    });
    const b = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Same', status: 'publish' },
    });
    const c = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'Same', slug: 'same', status: 'publish' },
    });
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'Same', status: 'publish' },
    });
    expect([a.body.slug, b.body.slug, c.body.slug, page.body.slug]).toEqual([
      'same',
      'same-2',
      'same-3',
      'same',
    ]);
    const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'A Draft Title' },
    });
    expect(draft.body.slug).toBe('');
    expect(draft.body.generated_slug).toBe('a-draft-title');
    // No date of its own, yet shown as GMT as WordPress's REST API shims it from the date.
    expect(draft.body.date_gmt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it('shows each context its own key set', async () => {
    const created = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'ctx', content: 'x', status: 'publish' },
    });
    const id = created.body.id;
    const view = await site.call('GET', `/wp-json/wp/v2/posts/${id}`);
    expect(Object.keys(view.body).sort()).toEqual(
      [
        'id',
        'date',
        'date_gmt',
        'guid',
        'modified',
        'modified_gmt',
        'slug',
        'status',
        'type',
        'link',
        'title',
        'content',
        'excerpt',
        'author',
        'featured_media',
        'comment_status',
        'ping_status',
        'sticky',
        'template',
        'format',
        'meta',
        'categories',
        'tags',
        '_links',
      ].sort(),
    );
    expect(view.body.title).toEqual({ rendered: 'ctx' });
    expect(Object.keys(view.body.content).sort()).toEqual(['protected', 'rendered']);
    const embed = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=embed`);
    expect(Object.keys(embed.body).sort()).toEqual(
      [
        'id',
        'date',
        'slug',
        'type',
        'link',
        'title',
        'excerpt',
        'author',
        'featured_media',
        '_links',
      ].sort(),
    );
    const edit = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, { auth: admin });
    expect(edit.body).toHaveProperty('password');
    expect(edit.body).toHaveProperty('permalink_template');
    expect(edit.body).toHaveProperty('generated_slug');
    expect(Object.keys(edit.body.content).sort()).toEqual([
      'block_version',
      'protected',
      'raw',
      'rendered',
    ]);
    expect(edit.body.title.raw).toBe('ctx');
    const denied = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=edit`);
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('rest_forbidden_context');
    const deniedSub = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, {
      auth: subscriber,
    });
    expect(deniedSub.status).toBe(403);
    // Reusable blocks: raw content and title in the view context, nothing rendered (read with
    // edit_posts: a contributor may, anonymous callers may not).
    const block = await site.call('POST', '/wp-json/wp/v2/blocks', {
      auth: admin,
      body: { title: 'b', content: BLOCKS, status: 'publish' },
    });
    const blockView = await site.call('GET', `/wp-json/wp/v2/blocks/${block.body.id}`, {
      auth: contributor,
    });
    expect(blockView.body.content).toEqual({ raw: BLOCKS, protected: false });
    expect(blockView.body.title).toEqual({ raw: 'b' });
    expect(blockView.body.meta).toEqual({ wp_pattern_sync_status: '', footnotes: '' });
  });

  it('filters fields with _fields (nested too) and embeds links with _embed', async () => {
    const created = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'embed me', status: 'publish' },
    });
    const id = created.body.id;
    const fields = await site.call('GET', `/wp-json/wp/v2/posts/${id}?_fields=id,title.rendered`);
    expect(fields.body).toEqual({ id, title: { rendered: 'embed me' } });
    const list = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?_fields[]=id&_fields[]=slug&include=${id}`,
    );
    expect(list.body).toEqual([{ id, slug: 'embed-me' }]);
    const embedded = await site.call('GET', `/wp-json/wp/v2/posts/${id}?_embed`);
    expect(embedded.body._embedded.author[0]).toMatchObject({
      id: author.id,
      name: 'author',
      slug: 'author',
    });
    expect(embedded.body._embedded.author[0]).not.toHaveProperty('email');
    // A post saved without categories is in the default one (WordPress's "Uncategorized").
    expect(embedded.body._embedded['wp:term'][0].map((t: { slug: string }) => t.slug)).toEqual([
      'uncategorized',
    ]);
    expect(embedded.body._embedded['wp:term'][1]).toEqual([]);
    const onlyAuthor = await site.call('GET', `/wp-json/wp/v2/posts/${id}?_embed=author`);
    expect(Object.keys(onlyAuthor.body._embedded)).toEqual(['author']);
    const envelope = await site.call('GET', `/wp-json/wp/v2/posts/999999?_envelope`);
    expect(envelope.status).toBe(200);
    expect(envelope.body).toMatchObject({ status: 404, body: { code: 'rest_post_invalid_id' } });
  });

  it('pages collections with X-WP-Total, X-WP-TotalPages and Link keeping the query', async () => {
    for (let i = 0; i < 5; i++) {
      await site.call('POST', '/wp-json/wp/v2/pages', {
        auth: editor,
        body: { title: `paged ${i}`, status: 'publish', menu_order: i },
      });
    }
    const r = await site.call(
      'GET',
      '/wp-json/wp/v2/pages?per_page=2&page=2&search=paged&orderby=menu_order&order=asc',
    );
    expect(r.headers['x-wp-total']).toBe('5');
    expect(r.headers['x-wp-totalpages']).toBe('3');
    expect(r.body.map((p: { title: { rendered: string } }) => p.title.rendered)).toEqual([
      'paged 2',
      'paged 3',
    ]);
    const link = String(r.headers.link);
    expect(link).toContain(
      `<${site.url}/wp-json/wp/v2/pages?per_page=2&page=1&search=paged&orderby=menu_order&order=asc>; rel="prev"`,
    );
    expect(link).toContain(
      `<${site.url}/wp-json/wp/v2/pages?per_page=2&page=3&search=paged&orderby=menu_order&order=asc>; rel="next"`,
    );
    const past = await site.call('GET', '/wp-json/wp/v2/pages?per_page=2&page=9&search=paged');
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('rest_post_invalid_page_number');
  });

  it('validates args before permissions: rest_invalid_param names each bad parameter', async () => {
    const r = await site.call(
      'GET',
      '/wp-json/wp/v2/posts?per_page=1000&orderby=nonsense&context=edit',
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('rest_invalid_param');
    // per_page has a validate_callback: has_valid_params refuses it before sanitize_params
    // would look at orderby (WordPress 6.1 names per_page alone).
    expect(Object.keys(r.body.data.params)).toEqual(['per_page']);
    expect(r.body.data.params.per_page).toBe(
      'per_page must be between 1 (inclusive) and 100 (inclusive)',
    );
    const anonCreate = await site.call('POST', '/wp-json/wp/v2/posts', {
      body: { title: 'x', status: 'nope' },
    });
    expect(anonCreate.status).toBe(400);
    expect(anonCreate.body.data.params).toHaveProperty('status');
    const noRoute = await site.call('GET', '/wp-json/wp/v2/nothing');
    expect(noRoute.status).toBe(404);
    expect(noRoute.body).toEqual({
      code: 'rest_no_route',
      message: 'No route was found matching the URL and request method.',
      data: { status: 404 },
    });
    const missing = await site.call('GET', '/wp-json/wp/v2/posts/424242');
    expect(missing.body.code).toBe('rest_post_invalid_id');
    const forbiddenStatus = await site.call('GET', '/wp-json/wp/v2/posts?status=draft');
    expect(forbiddenStatus.status).toBe(400);
    expect(forbiddenStatus.body.data.details.status.code).toBe('rest_forbidden_status');
    const badJson = await site.app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/posts',
      headers: { 'content-type': 'application/json', authorization: admin.basic },
      payload: '{nope',
    });
    expect(JSON.parse(badJson.body).code).toBe('rest_invalid_json');
    const badDate = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'd', date: 'yesterday' },
    });
    expect(badDate.status).toBe(400);
    expect(badDate.body.code).toBe('rest_invalid_param');
    const badAuthor = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'd', author: 987654 },
    });
    expect(badAuthor.body.code).toBe('rest_invalid_author');
  });

  it('refuses each capability it lacks with WordPress codes', async () => {
    const anon = await site.call('POST', '/wp-json/wp/v2/posts', { body: { title: 'anon' } });
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_create']);
    const sub = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: subscriber,
      body: { title: 'sub' },
    });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_cannot_create']);
    const contrib = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: contributor,
      body: { title: 'c', status: 'publish' },
    });
    expect([contrib.status, contrib.body.code]).toEqual([403, 'rest_cannot_publish']);
    const contribDraft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: contributor,
      body: { title: 'c draft', status: 'pending' },
    });
    expect(contribDraft.status).toBe(201);
    const asOther = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'as other', author: author2.id },
    });
    expect([asOther.status, asOther.body.code]).toEqual([403, 'rest_cannot_edit_others']);
    const mine = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author2,
      body: { title: 'author2 post', status: 'publish' },
    });
    const othersEdit = await site.call('POST', `/wp-json/wp/v2/posts/${mine.body.id}`, {
      auth: author,
      body: { title: 'hijack' },
    });
    expect([othersEdit.status, othersEdit.body.code]).toEqual([403, 'rest_cannot_edit']);
    const reassign = await site.call('POST', `/wp-json/wp/v2/posts/${mine.body.id}`, {
      auth: author2,
      body: { author: author.id },
    });
    expect([reassign.status, reassign.body.code]).toEqual([403, 'rest_cannot_edit_others']);
    const othersDelete = await site.call('DELETE', `/wp-json/wp/v2/posts/${mine.body.id}`, {
      auth: author,
    });
    expect([othersDelete.status, othersDelete.body.code]).toEqual([403, 'rest_cannot_delete']);
    const anonDelete = await site.call('DELETE', `/wp-json/wp/v2/posts/${mine.body.id}`);
    expect([anonDelete.status, anonDelete.body.code]).toEqual([401, 'rest_cannot_delete']);
    const authorPage = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: author,
      body: { title: 'p' },
    });
    expect([authorPage.status, authorPage.body.code]).toEqual([403, 'rest_cannot_create']);
    const editorEdits = await site.call('PUT', `/wp-json/wp/v2/posts/${mine.body.id}`, {
      auth: editor,
      body: { title: 'edited by editor' },
    });
    expect(editorEdits.status).toBe(200);
    const exists = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { id: mine.body.id, title: 'x' },
    });
    expect(exists.body.code).toBe('rest_post_exists');
    const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author2,
      body: { title: 'hidden draft' },
    });
    const readDraft = await site.call('GET', `/wp-json/wp/v2/posts/${draft.body.id}`);
    expect([readDraft.status, readDraft.body.code]).toEqual([401, 'rest_forbidden']);
  });

  it('protects content with a password (403 rest_post_incorrect_password on a wrong one)', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: {
        title: 'secret',
        content: 'hidden words',
        password: 'open sesame',
        status: 'publish',
      },
    });
    const plain = await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}`);
    expect(plain.body.content).toEqual({ rendered: '', protected: true });
    expect(plain.body.excerpt).toEqual({ rendered: '', protected: true });
    const right = await site.call(
      'GET',
      `/wp-json/wp/v2/posts/${r.body.id}?password=open%20sesame`,
    );
    expect(right.body.content.rendered).toBe('<p>hidden words</p>\n');
    const wrong = await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}?password=nope`);
    expect([wrong.status, wrong.body.code]).toEqual([403, 'rest_post_incorrect_password']);
  });

  it('trashes, refuses a second trash with 410, deletes for good with force', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'to trash', status: 'publish' },
    });
    const trashed = await site.call('DELETE', `/wp-json/wp/v2/posts/${r.body.id}`, {
      auth: author,
    });
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe('trash');
    const again = await site.call('DELETE', `/wp-json/wp/v2/posts/${r.body.id}`, { auth: author });
    expect([again.status, again.body.code]).toEqual([410, 'rest_already_trashed']);
    const gone = await site.call('DELETE', `/wp-json/wp/v2/posts/${r.body.id}?force=true`, {
      auth: author,
    });
    expect(gone.body.deleted).toBe(true);
    expect(gone.body.previous).toMatchObject({ id: r.body.id, status: 'trash' });
    expect((await site.call('GET', `/wp-json/wp/v2/posts/${r.body.id}`)).status).toBe(404);
  });

  it('stores a revision on every change of title, content or excerpt', async () => {
    const r = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'v1', content: 'one', status: 'publish' },
    });
    const id = r.body.id;
    await site.call('PATCH', `/wp-json/wp/v2/posts/${id}`, { auth: author, body: { title: 'v2' } });
    await site.call('PATCH', `/wp-json/wp/v2/posts/${id}`, {
      auth: author,
      body: { sticky: false },
    });
    await site.call('PUT', `/wp-json/wp/v2/posts/${id}`, {
      auth: author,
      body: { content: 'two' },
    });
    const list = await site.call('GET', `/wp-json/wp/v2/posts/${id}/revisions`, { auth: author });
    expect(list.status).toBe(200);
    // One revision per update that changed title, content or excerpt; none on create.
    expect(list.body.map((x: { title: { rendered: string } }) => x.title.rendered)).toEqual([
      'v2',
      'v2',
    ]);
    expect(list.body[0].parent).toBe(id);
    const post = await site.call('GET', `/wp-json/wp/v2/posts/${id}`);
    expect(post.body._links['version-history'][0].count).toBe(2);
    expect(post.body._links['predecessor-version'][0].id).toBe(list.body[0].id);
    const one = await site.call(
      'GET',
      `/wp-json/wp/v2/posts/${id}/revisions/${list.body[1].id}?context=edit`,
      { auth: author },
    );
    expect(one.body.content.raw).toBe('one');
    const anon = await site.call('GET', `/wp-json/wp/v2/posts/${id}/revisions`);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_read']);
    const badParent = await site.call('GET', '/wp-json/wp/v2/posts/999999/revisions', {
      auth: author,
    });
    expect([badParent.status, badParent.body.code]).toEqual([404, 'rest_post_invalid_parent']);
    const noForce = await site.call(
      'DELETE',
      `/wp-json/wp/v2/posts/${id}/revisions/${list.body[1].id}`,
      { auth: author },
    );
    // WordPress never grants delete_post on a revision: refused with or without force.
    expect([noForce.status, noForce.body.code]).toEqual([403, 'rest_cannot_delete']);
    const forced = await site.call(
      'DELETE',
      `/wp-json/wp/v2/posts/${id}/revisions/${list.body[1].id}?force=true`,
      { auth: author },
    );
    expect([forced.status, forced.body.code]).toEqual([403, 'rest_cannot_delete']);
    const paged = await site.call('GET', `/wp-json/wp/v2/posts/${id}/revisions?per_page=1&page=2`, {
      auth: author,
    });
    expect(paged.headers['x-wp-total']).toBe('2');
    expect(paged.body).toHaveLength(1);
  });

  it('autosaves: the author of a draft updates the draft; anyone else (or a published post) gets an autosave', async () => {
    const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'draft', content: 'first' },
    });
    const own = await site.call('POST', `/wp-json/wp/v2/posts/${draft.body.id}/autosaves`, {
      auth: author,
      body: { content: 'autosaved text' },
    });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(draft.body.id);
    const draftNow = await site.call('GET', `/wp-json/wp/v2/posts/${draft.body.id}?context=edit`, {
      auth: author,
    });
    expect(draftNow.body.content.raw).toBe('autosaved text');
    expect(
      (await site.call('GET', `/wp-json/wp/v2/posts/${draft.body.id}/autosaves`, { auth: author }))
        .body,
    ).toEqual([]);

    const published = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'live', content: 'live text', status: 'publish' },
    });
    const byEditor = await site.call(
      'POST',
      `/wp-json/wp/v2/posts/${published.body.id}/autosaves`,
      { auth: editor, body: { content: 'editor idea' } },
    );
    expect(byEditor.status).toBe(200);
    expect(byEditor.body.parent).toBe(published.body.id);
    expect(byEditor.body.preview_link).toContain(`preview_id=${published.body.id}`);
    const byAuthor = await site.call(
      'POST',
      `/wp-json/wp/v2/posts/${published.body.id}/autosaves`,
      { auth: author, body: { content: 'author idea' } },
    );
    const again = await site.call('POST', `/wp-json/wp/v2/posts/${published.body.id}/autosaves`, {
      auth: author,
      body: { content: 'author idea 2' },
    });
    expect(again.body.id).toBe(byAuthor.body.id);
    const live = await site.call('GET', `/wp-json/wp/v2/posts/${published.body.id}?context=edit`, {
      auth: author,
    });
    expect(live.body.content.raw).toBe('live text');
    const list = await site.call('GET', `/wp-json/wp/v2/posts/${published.body.id}/autosaves`, {
      auth: author,
    });
    expect(list.body).toHaveLength(2);
    expect(list.body[0]).not.toHaveProperty('preview_link');
    const one = await site.call(
      'GET',
      `/wp-json/wp/v2/posts/${published.body.id}/autosaves/${byEditor.body.id}?context=edit`,
      { auth: author },
    );
    expect(one.body.content.raw).toBe('editor idea');
    expect(one.body.preview_link).toBeTruthy();
    const denied = await site.call('POST', `/wp-json/wp/v2/posts/${published.body.id}/autosaves`, {
      auth: author2,
      body: { content: 'x' },
    });
    expect([denied.status, denied.body.code]).toEqual([403, 'rest_cannot_edit']);
  });

  it('publishes to the future and accepts date or date_gmt', async () => {
    const future = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'later', status: 'publish', date_gmt: '2099-01-01T00:00:00' },
    });
    expect(future.body.status).toBe('future');
    expect(future.body.date).toBe('2099-01-01T08:00:00');
    const local = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: admin,
      body: { title: 'local', status: 'publish', date: '2020-05-01T08:00:00' },
    });
    expect(local.body.date_gmt).toBe('2020-05-01T00:00:00');
    const after = await site.call(
      'GET',
      '/wp-json/wp/v2/posts?after=2020-04-30T00:00:00&before=2020-05-02T00:00:00',
    );
    expect(after.body.map((p: { id: number }) => p.id)).toEqual([local.body.id]);
  });

  it('filters by categories (object form with include_children), tags, sticky and tax_relation', async () => {
    const parent = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: editor,
      body: { name: '线路' },
    });
    const child = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: editor,
      body: { name: '京沪', parent: parent.body.id },
    });
    const tag = await site.call('POST', '/wp-json/wp/v2/tags', {
      auth: editor,
      body: { name: 'CR400' },
    });
    const p1 = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: editor,
      body: {
        title: 'in child',
        status: 'publish',
        categories: [child.body.id],
        tags: [tag.body.id],
        sticky: true,
      },
    });
    const p2 = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: editor,
      body: { title: 'in parent', status: 'publish', categories: [parent.body.id] },
    });
    const plain = await site.call('GET', `/wp-json/wp/v2/posts?categories=${parent.body.id}`);
    expect(plain.body.map((p: { id: number }) => p.id)).toEqual([p2.body.id]);
    const deep = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?categories[terms][0]=${parent.body.id}&categories[include_children]=true`,
    );
    expect(deep.body.map((p: { id: number }) => p.id).sort()).toEqual(
      [p1.body.id, p2.body.id].sort(),
    );
    const and = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?categories=${parent.body.id}&tags=${tag.body.id}&tax_relation=AND`,
    );
    expect(and.body).toEqual([]);
    const or = await site.call(
      'GET',
      `/wp-json/wp/v2/posts?categories=${parent.body.id}&tags=${tag.body.id}&tax_relation=OR`,
    );
    expect(or.body).toHaveLength(2);
    const sticky = await site.call('GET', '/wp-json/wp/v2/posts?sticky=true');
    expect(sticky.body.map((p: { id: number }) => p.id)).toEqual([p1.body.id]);
    const term = await site.call('GET', `/wp-json/wp/v2/categories/${child.body.id}`);
    expect(term.body).toMatchObject({ count: 1, parent: parent.body.id, taxonomy: 'category' });
    const unknownTerm = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: editor,
      body: { title: 't', categories: [999999] },
    });
    expect(unknownTerm.status).toBe(400);
  });
});
