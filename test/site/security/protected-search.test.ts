import { beforeAll, describe, expect, it } from 'vitest';
import { insertPost } from '../../../src/domain/content/posts-store.js';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';
import { siteSessionSecret } from './site-session.js';

/**
 * The attack: a password-protected post's text read one character at a time, by searching for
 * successive prefixes of it and watching whether the post comes back. Every path that searches
 * post content answers by the one rule: a protected item's content and excerpt match only for a
 * caller who may edit it; signed out, protected items are left out of every search (WordPress's
 * WP_Query, logged out); signed in, they are still found by their title.
 */
describe('reading a protected post by searching prefixes of its text', () => {
  const site = useSite();
  let editor: SiteAccountFixture;
  let author: SiteAccountFixture;
  const ids: Record<string, number> = {};
  const at = new Date('2026-10-01T00:00:00Z');
  const SECRET = 'vaultcode7391';

  beforeAll(async () => {
    editor = await site.account('vault-editor', 'editor');
    author = await site.account('vault-author', 'author');
    for (const [key, type] of [
      ['post', 'post'],
      ['page', 'page'],
    ] as const) {
      const post = await insertPost(site.db, {
        type,
        status: 'publish',
        author: editor.id,
        title: `Locked ${type}`,
        content: `<!-- wp:paragraph -->\n<p>The code is ${SECRET}.</p>\n<!-- /wp:paragraph -->`,
        excerpt: `Excerpt with ${SECRET}`,
        slug: `locked-${type}`,
        password: 'open sesame',
        dateGmt: at,
        modifiedGmt: at,
      });
      ids[key] = post.id;
    }
  });

  const idsOf = (body: unknown) => (body as { id: number }[]).map((i) => i.id);
  // Successive prefixes, as the attack sent them: none may find the post.
  const prefixes = ['vaultc', 'vaultcode7', SECRET];

  it('GET /wp/v2/search?search= finds nothing by a protected text, signed out or as an author who may not edit it', async () => {
    for (const auth of [undefined, author])
      for (const prefix of prefixes)
        for (const subtype of ['any', 'post', 'page']) {
          const res = await site.call(
            'GET',
            `/wp-json/wp/v2/search?search=${prefix}&subtype=${subtype}`,
            { auth },
          );
          expect(res.status).toBe(200);
          expect(idsOf(res.body)).toEqual([]);
          expect(res.headers['x-wp-total']).toBe('0');
        }
    // Its author (who may edit it) finds it by its text.
    const own = await site.call('GET', `/wp-json/wp/v2/search?search=${SECRET}`, { auth: editor });
    expect(idsOf(own.body).sort()).toEqual([ids.post, ids.page].sort());
  });

  it('GET /wp/v2/search finds a protected item by its title only when signed in, never signed out', async () => {
    const signedOut = await site.call('GET', '/wp-json/wp/v2/search?search=Locked');
    expect(idsOf(signedOut.body)).toEqual([]);
    const signedIn = await site.call('GET', '/wp-json/wp/v2/search?search=Locked', {
      auth: author,
    });
    expect(idsOf(signedIn.body).sort()).toEqual([ids.post, ids.page].sort());
  });

  it('the HTML search /?s= finds nothing by a protected text, signed out or signed in as an author', async () => {
    const session = await siteSessionSecret(site.db, author.id);
    for (const cookie of [undefined, `token=${session}`])
      for (const prefix of prefixes) {
        const res = await site.call('GET', `/?s=${prefix}`, {
          headers: cookie ? { cookie } : {},
        });
        expect(res.status).toBe(200);
        expect(String(res.body)).not.toContain('locked-post');
        expect(String(res.body)).not.toContain('locked-page');
      }
    const editorSession = await siteSessionSecret(site.db, editor.id);
    const own = await site.call('GET', `/?s=${SECRET}`, {
      headers: { cookie: `token=${editorSession}` },
    });
    expect(String(own.body)).toContain('locked-post');
  });

  it.each(['posts', 'pages'])(
    'GET /wp/v2/%s?search= finds nothing by a protected text, signed out or as an author who may not edit it',
    async (base) => {
      for (const auth of [undefined, author])
        for (const prefix of prefixes) {
          const res = await site.call('GET', `/wp-json/wp/v2/${base}?search=${prefix}`, { auth });
          expect(res.status).toBe(200);
          expect(idsOf(res.body)).toEqual([]);
        }
      const own = await site.call('GET', `/wp-json/wp/v2/${base}?search=${SECRET}`, {
        auth: editor,
      });
      expect(idsOf(own.body)).toEqual([base === 'posts' ? ids.post : ids.page]);
    },
  );
});
