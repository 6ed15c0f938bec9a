import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

/** Revisions and autosaves as WordPress 6.1 guards them. */
describe('revisions and autosaves controller: what WordPress refuses stays refused', () => {
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

  it('DELETE /wp/v2/posts/<id>/revisions/<n>?force=true is 403 rest_cannot_delete for every role (401 anonymous)', async () => {
    const post = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'v1', content: 'one', status: 'publish' },
    });
    const id = post.body.id as number;
    await site.call('PATCH', `/wp-json/wp/v2/posts/${id}`, {
      auth: author,
      body: { content: 'two' },
    });
    await site.call('PATCH', `/wp-json/wp/v2/posts/${id}`, {
      auth: author,
      body: { content: 'three' },
    });
    // WordPress saves a revision on each update, none on create.
    const revisions = await site.call('GET', `/wp-json/wp/v2/posts/${id}/revisions`, {
      auth: author,
    });
    expect(revisions.body).toHaveLength(2);
    const revision = revisions.body[1].id as number;
    for (const who of [admin, editor, author, author2, contributor, subscriber]) {
      for (const query of ['?force=true', '']) {
        const r = await site.call(
          'DELETE',
          `/wp-json/wp/v2/posts/${id}/revisions/${revision}${query}`,
          { auth: who },
        );
        expect([who.username, query, r.status, r.body.code]).toEqual([
          who.username,
          query,
          403,
          'rest_cannot_delete',
        ]);
      }
    }
    const anon = await site.call(
      'DELETE',
      `/wp-json/wp/v2/posts/${id}/revisions/${revision}?force=true`,
    );
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_delete']);
    // The same for pages.
    const page = await site.call('POST', '/wp-json/wp/v2/pages', {
      auth: admin,
      body: { title: 'p', content: 'page one', status: 'publish' },
    });
    await site.call('PATCH', `/wp-json/wp/v2/pages/${page.body.id}`, {
      auth: admin,
      body: { content: 'page two' },
    });
    const pageRevisions = await site.call('GET', `/wp-json/wp/v2/pages/${page.body.id}/revisions`, {
      auth: admin,
    });
    const pageDelete = await site.call(
      'DELETE',
      `/wp-json/wp/v2/pages/${page.body.id}/revisions/${pageRevisions.body[0].id}?force=true`,
      { auth: admin },
    );
    expect([pageDelete.status, pageDelete.body.code]).toEqual([403, 'rest_cannot_delete']);
    const still = await site.call('GET', `/wp-json/wp/v2/posts/${id}/revisions`, { auth: author });
    expect(still.body).toHaveLength(2);
  });

  it("an author's autosave cannot set `author` (403 rest_cannot_edit_others, as a direct update)", async () => {
    const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'draft', content: 'first' },
    });
    const id = draft.body.id as number;
    const update = await site.call('POST', `/wp-json/wp/v2/posts/${id}`, {
      auth: author,
      body: { author: author2.id },
    });
    expect([update.status, update.body.code]).toEqual([403, 'rest_cannot_edit_others']);
    const autosave = await site.call('POST', `/wp-json/wp/v2/posts/${id}/autosaves`, {
      auth: author,
      body: { author: author2.id, content: 'second' },
    });
    expect([autosave.status, autosave.body.code]).toEqual([403, 'rest_cannot_edit_others']);
    const now = await site.call('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, { auth: author });
    expect(now.body.author).toBe(author.id);
    expect(now.body.content.raw).toBe('first');
  });

  it('an autosave cannot make a post sticky where a direct update refuses (403 rest_cannot_assign_sticky), and never sets sticky', async () => {
    const draft = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: contributor,
      body: { title: 'contrib draft', content: 'first' },
    });
    const id = draft.body.id as number;
    const update = await site.call('POST', `/wp-json/wp/v2/posts/${id}`, {
      auth: contributor,
      body: { sticky: true },
    });
    expect([update.status, update.body.code]).toEqual([403, 'rest_cannot_assign_sticky']);
    const autosave = await site.call('POST', `/wp-json/wp/v2/posts/${id}/autosaves`, {
      auth: contributor,
      body: { sticky: true, content: 'second' },
    });
    expect([autosave.status, autosave.body.code]).toEqual([403, 'rest_cannot_assign_sticky']);
    // WordPress's autosave stores title, content, excerpt (and for a draft, the post's fields),
    // never stickiness: an author's autosave of its own draft leaves `sticky` as it was.
    const own = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author,
      body: { title: 'author draft', content: 'first' },
    });
    const saved = await site.call('POST', `/wp-json/wp/v2/posts/${own.body.id}/autosaves`, {
      auth: author,
      body: { sticky: true, content: 'second' },
    });
    expect(saved.status).toBe(200);
    const after = await site.call('GET', `/wp-json/wp/v2/posts/${own.body.id}?context=edit`, {
      auth: author,
    });
    expect(after.body.content.raw).toBe('second');
    expect(after.body.sticky).toBe(false);
  });

  it("an autosave of another user's post is refused as its update is (403 rest_cannot_edit)", async () => {
    const theirs = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: author2,
      body: { title: 'theirs', content: 'x', status: 'publish' },
    });
    const r = await site.call('POST', `/wp-json/wp/v2/posts/${theirs.body.id}/autosaves`, {
      auth: author,
      body: { content: 'hijack' },
    });
    expect([r.status, r.body.code]).toEqual([403, 'rest_cannot_edit']);
  });
});
