import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

/**
 * What WordPress hides stays hidden: each attack from the outside as its own
 * test, with the refusal a WordPress 6.1 gives to the same request.
 */
describe('posts controller: what WordPress hides stays hidden', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  let author2: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let subscriber: SiteAccountFixture;
  /** The editor's published post behind the password `open sesame`. */
  let protectedId: number;

  const create = async (who: SiteAccountFixture, body: Record<string, unknown>, base = 'posts') => {
    const r = await site.call('POST', `/wp-json/wp/v2/${base}`, { auth: who, body });
    expect(r.status).toBe(201);
    return r.body.id as number;
  };

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
    author2 = await site.account('author2', 'author');
    contributor = await site.account('contrib', 'contributor');
    subscriber = await site.account('subscriber', 'subscriber');
    protectedId = await create(editor, {
      title: 'members only',
      content: 'the vault code is xyzzy-4711',
      excerpt: 'xyzzy teaser',
      password: 'open sesame',
      status: 'publish',
    });
  });

  it("an author's GET /wp/v2/posts?context=edit lists only what the author may edit (no content.raw or password of others'), its total only what the author may read", async () => {
    const own = await create(author, { title: 'mine', content: 'my words', status: 'publish' });
    const ownDraft = await create(author, { title: 'my draft', content: 'draft words' });
    await create(author2, { title: "author2's", content: 'their words', status: 'publish' });
    const r = await site.call(
      'GET',
      '/wp-json/wp/v2/posts?context=edit&status=publish,draft&per_page=100',
      {
        auth: author,
      },
    );
    expect(r.status).toBe(200);
    const ids = r.body.map((p: { id: number }) => p.id);
    expect(ids.sort()).toEqual([own, ownDraft].sort());
    expect(JSON.stringify(r.body)).not.toContain('open sesame');
    expect(JSON.stringify(r.body)).not.toContain('xyzzy');
    // The total counts what the author may read (its own draft, and both published posts), as
    // WordPress counts the page's rows before it drops those the caller may not edit; a row the
    // author may not read (another's draft) is never counted.
    const readable = await site.call(
      'GET',
      '/wp-json/wp/v2/posts?status=publish,draft&per_page=100',
      {
        auth: author,
      },
    );
    expect(readable.body.length).toBeGreaterThan(ids.length);
    expect(r.headers['x-wp-total']).toBe(String(readable.body.length));
    await create(author2, { title: "author2's draft", content: 'hidden words' });
    const drafts = await site.call('GET', '/wp-json/wp/v2/posts?context=edit&status=draft', {
      auth: author,
    });
    expect(drafts.body.map((p: { id: number }) => p.id)).toEqual([ownDraft]);
    expect(drafts.headers['x-wp-total']).toBe('1');
    // A subscriber (no edit_posts) is refused the edit context outright.
    const sub = await site.call('GET', '/wp-json/wp/v2/posts?context=edit', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_forbidden_context']);
  });

  it('GET /wp/v2/posts/<protected>?password=wrong is 403 rest_post_incorrect_password for every role', async () => {
    for (const who of [undefined, subscriber, contributor, author, editor, admin]) {
      const r = await site.call('GET', `/wp-json/wp/v2/posts/${protectedId}?password=wrong`, {
        auth: who,
      });
      expect([who?.username ?? 'anonymous', r.status, r.body.code]).toEqual([
        who?.username ?? 'anonymous',
        403,
        'rest_post_incorrect_password',
      ]);
      expect(JSON.stringify(r.body)).not.toContain('xyzzy');
    }
    // The same in the edit context, where the editor could see everything without a password.
    const edit = await site.call(
      'GET',
      `/wp-json/wp/v2/posts/${protectedId}?password=wrong&context=edit`,
      { auth: editor },
    );
    expect([edit.status, edit.body.code]).toEqual([403, 'rest_post_incorrect_password']);
  });

  it('the view context blanks protected content and excerpt even for an administrator, unless the right password is given', async () => {
    const view = await site.call('GET', `/wp-json/wp/v2/posts/${protectedId}`, { auth: admin });
    expect(view.status).toBe(200);
    expect(view.body.content).toEqual({ rendered: '', protected: true });
    expect(view.body.excerpt).toEqual({ rendered: '', protected: true });
    const right = await site.call(
      'GET',
      `/wp-json/wp/v2/posts/${protectedId}?password=open%20sesame`,
      { auth: admin },
    );
    expect(right.body.content.rendered).toContain('xyzzy-4711');
    // The edit context gives whoever may edit the post its content (WordPress's check_password_required).
    const edit = await site.call('GET', `/wp-json/wp/v2/posts/${protectedId}?context=edit`, {
      auth: admin,
    });
    expect(edit.body.content.rendered).toContain('xyzzy-4711');
  });

  it("a list keeps protected posts' content and excerpt out, for every role in the view context", async () => {
    for (const who of [undefined, subscriber, author, editor, admin]) {
      const r = await site.call('GET', `/wp-json/wp/v2/posts?include=${protectedId}`, {
        auth: who,
      });
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(1);
      expect(r.body[0].content).toEqual({ rendered: '', protected: true });
      expect(r.body[0].excerpt).toEqual({ rendered: '', protected: true });
      expect(JSON.stringify(r.body)).not.toContain('xyzzy');
    }
  });

  it('GET /wp/v2/posts?search=<secret> does not reveal a protected post through X-WP-Total', async () => {
    // Logged out: WordPress leaves protected posts out of searches altogether.
    const anon = await site.call('GET', '/wp-json/wp/v2/posts?search=xyzzy');
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual([]);
    expect(anon.headers['x-wp-total']).toBe('0');
    const byTitle = await site.call('GET', '/wp-json/wp/v2/posts?search=members');
    expect(byTitle.headers['x-wp-total']).toBe('0');
    // Signed in without the right to edit it: the password guards what the search matches too.
    for (const who of [subscriber, author]) {
      const r = await site.call('GET', '/wp-json/wp/v2/posts?search=xyzzy', { auth: who });
      expect([who.username, r.headers['x-wp-total']]).toEqual([who.username, '0']);
      const title = await site.call('GET', '/wp-json/wp/v2/posts?search=members', { auth: who });
      expect(title.headers['x-wp-total']).toBe('1');
    }
    // Whoever may edit it finds it.
    const own = await site.call('GET', '/wp-json/wp/v2/posts?search=xyzzy', { auth: editor });
    expect(own.headers['x-wp-total']).toBe('1');
  });

  it("a contributor's ?status=private&search=<word> does not count an editor's private post", async () => {
    await create(editor, { title: 'board minutes', content: 'quarterly plan', status: 'private' });
    const r = await site.call('GET', '/wp-json/wp/v2/posts?status=private&search=quarterly', {
      auth: contributor,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(r.headers['x-wp-total']).toBe('0');
    expect(r.headers['x-wp-totalpages']).toBe('0');
    // The contributor's own private post counts (WordPress: post_author = the caller).
    const ownPrivate = await site.db.query<{ id: string }>(
      `INSERT INTO site_posts (type, status, author, title, content, date_gmt)
       VALUES ('post', 'private', $1, 'mine', 'quarterly notes', now()) RETURNING id`,
      [contributor.id],
    );
    const again = await site.call('GET', '/wp-json/wp/v2/posts?status=private&search=quarterly', {
      auth: contributor,
    });
    expect(again.body.map((p: { id: number }) => p.id)).toEqual([Number(ownPrivate.rows[0]!.id)]);
    expect(again.headers['x-wp-total']).toBe('1');
    const ed = await site.call('GET', '/wp-json/wp/v2/posts?status=private&search=quarterly', {
      auth: editor,
    });
    expect(ed.headers['x-wp-total']).toBe('2');
  });

  it('published reusable blocks are readable only with edit_posts (anonymous: 401)', async () => {
    const block = await create(
      author,
      {
        title: 'signature',
        content: '<!-- wp:paragraph --><p>internal block text</p><!-- /wp:paragraph -->',
        status: 'publish',
      },
      'blocks',
    );
    const anon = await site.call('GET', `/wp-json/wp/v2/blocks/${block}`);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden']);
    const sub = await site.call('GET', `/wp-json/wp/v2/blocks/${block}`, { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_forbidden']);
    const list = await site.call('GET', '/wp-json/wp/v2/blocks');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect(list.headers['x-wp-total']).toBe('0');
    expect(JSON.stringify(list.body)).not.toContain('internal block text');
    const contrib = await site.call('GET', `/wp-json/wp/v2/blocks/${block}`, {
      auth: contributor,
    });
    expect(contrib.status).toBe(200);
    expect(contrib.body.content.raw).toContain('internal block text');
    const contribList = await site.call('GET', '/wp-json/wp/v2/blocks', { auth: contributor });
    expect(contribList.headers['x-wp-total']).toBe('1');
  });

  it('malformed list params (a negative term or user offset, numbers past any id) are 400 rest_invalid_param naming the param, never a 500', async () => {
    const huge = '99999999999999999999';
    // A post list reads a negative offset as WP_Query does (absint); terms and users refuse it.
    const cases: [string, string][] = [
      [`/wp-json/wp/v2/posts?offset=${huge}`, 'offset'],
      [`/wp-json/wp/v2/posts?page=${huge}`, 'page'],
      [`/wp-json/wp/v2/posts?include=${huge}`, 'include'],
      [`/wp-json/wp/v2/posts?exclude[]=${huge}`, 'exclude'],
      [`/wp-json/wp/v2/posts?author=${huge}`, 'author'],
      [`/wp-json/wp/v2/posts?categories=${huge}`, 'categories'],
      [`/wp-json/wp/v2/pages?parent=${huge}`, 'parent'],
      ['/wp-json/wp/v2/pages?menu_order=99999999999', 'menu_order'],
      ['/wp-json/wp/v2/tags?offset=-1', 'offset'],
      ['/wp-json/wp/v2/users?offset=-1', 'offset'],
      [`/wp-json/wp/v2/categories?page=${huge}`, 'page'],
    ];
    for (const [path, param] of cases) {
      const r = await site.call('GET', path, { auth: admin });
      expect([path, r.status, r.body.code]).toEqual([path, 400, 'rest_invalid_param']);
      expect(Object.keys(r.body.data.params)).toEqual([param]);
    }
    const offset = await site.call('GET', '/wp-json/wp/v2/tags?offset=-5');
    expect(offset.body.data.params.offset).toBe(
      'offset must be between 0 (inclusive) and 9007199254740991 (inclusive)',
    );
    expect(offset.body.data.details.offset.code).toBe('rest_out_of_bounds');
    // Within range, the same params still work.
    const fine = await site.call('GET', '/wp-json/wp/v2/posts?offset=0&page=1', { auth: admin });
    expect(fine.status).toBe(200);
  });
});
