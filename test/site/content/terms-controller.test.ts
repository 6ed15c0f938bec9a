import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

/** The default category as WordPress 6.1 keeps it. */
describe('terms controller: the default category', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let editor: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    editor = await site.account('editor', 'editor');
  });

  it('DELETE /wp/v2/categories/<default>?force=true is 403 rest_cannot_delete, for administrators too', async () => {
    // The site makes its default category at start (WordPress: default_category = 1).
    const list = await site.call('GET', '/wp-json/wp/v2/categories?slug=uncategorized');
    const first = { body: list.body[0] as { id: number } };
    const other = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: admin,
      body: { name: 'Timetables' },
    });
    for (const who of [admin, editor]) {
      const r = await site.call('DELETE', `/wp-json/wp/v2/categories/${first.body.id}?force=true`, {
        auth: who,
      });
      expect([who.username, r.status, r.body.code]).toEqual([
        who.username,
        403,
        'rest_cannot_delete',
      ]);
    }
    const anon = await site.call('DELETE', `/wp-json/wp/v2/categories/${first.body.id}?force=true`);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_cannot_delete']);
    expect((await site.call('GET', `/wp-json/wp/v2/categories/${first.body.id}`)).status).toBe(200);
    // Any other category can go.
    const gone = await site.call(
      'DELETE',
      `/wp-json/wp/v2/categories/${other.body.id}?force=true`,
      {
        auth: admin,
      },
    );
    expect([gone.status, gone.body.deleted]).toEqual([200, true]);
  });

  it('the default_category option, once set, names the default instead', async () => {
    const chosen = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: admin,
      body: { name: 'Chosen default' },
    });
    await site.db.query(
      `INSERT INTO site_options (name, value) VALUES ('default_category', to_jsonb($1::bigint))
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [chosen.body.id],
    );
    const r = await site.call('DELETE', `/wp-json/wp/v2/categories/${chosen.body.id}?force=true`, {
      auth: admin,
    });
    expect([r.status, r.body.code]).toEqual([403, 'rest_cannot_delete']);
    // A tag with the same id space is no category: deletable.
    const tag = await site.call('POST', '/wp-json/wp/v2/tags', {
      auth: admin,
      body: { name: 't' },
    });
    const tagGone = await site.call('DELETE', `/wp-json/wp/v2/tags/${tag.body.id}?force=true`, {
      auth: admin,
    });
    expect(tagGone.status).toBe(200);
  });
});

describe("terms controller: a post's terms", () => {
  const site = useSite();
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;

  beforeAll(async () => {
    editor = await site.account('editor', 'editor');
    author = await site.account('author', 'author');
  });

  it('GET /wp/v2/categories?post=<private post> is refused (rest_forbidden_context) to whoever may not read the post', async () => {
    const category = await site.call('POST', '/wp-json/wp/v2/categories', {
      auth: editor,
      body: { name: 'Board' },
    });
    const secret = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: editor,
      body: { title: 'minutes', status: 'private', categories: [category.body.id] },
    });
    const anon = await site.call('GET', `/wp-json/wp/v2/categories?post=${secret.body.id}`);
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden_context']);
    const other = await site.call('GET', `/wp-json/wp/v2/tags?post=${secret.body.id}`, {
      auth: author,
    });
    expect([other.status, other.body.code]).toEqual([403, 'rest_forbidden_context']);
    const own = await site.call('GET', `/wp-json/wp/v2/categories?post=${secret.body.id}`, {
      auth: editor,
    });
    expect(own.body.map((c: { id: number }) => c.id)).toEqual([category.body.id]);
    const missing = await site.call('GET', '/wp-json/wp/v2/categories?post=999999');
    expect([missing.status, missing.body.code]).toEqual([400, 'rest_post_invalid_id']);
    // A published post's terms are anyone's.
    const open = await site.call('POST', '/wp-json/wp/v2/posts', {
      auth: editor,
      body: { title: 'news', status: 'publish', categories: [category.body.id] },
    });
    const listed = await site.call('GET', `/wp-json/wp/v2/categories?post=${open.body.id}`);
    expect(listed.body.map((c: { id: number }) => c.id)).toEqual([category.body.id]);
  });
});
