import { beforeAll, describe, expect, it } from 'vitest';
import { useSite, type SiteAccountFixture } from '../site-fixture.js';

/** The users list's `who` and `orderby` restrictions of WordPress 6.1. */
describe('users controller: who may list whom, and how', () => {
  const site = useSite();
  let admin: SiteAccountFixture;
  let author: SiteAccountFixture;
  let contributor: SiteAccountFixture;
  let subscriber: SiteAccountFixture;

  beforeAll(async () => {
    admin = await site.account('admin', 'administrator');
    author = await site.account('author', 'author');
    contributor = await site.account('contrib', 'contributor');
    subscriber = await site.account('subscriber', 'subscriber');
    // Published posts by each, so that they are listed to anyone.
    for (const who of [admin, author]) {
      await site.call('POST', '/wp-json/wp/v2/posts', {
        auth: who,
        body: { title: `by ${who.username}`, status: 'publish' },
      });
    }
  });

  it('GET /wp/v2/users?who=authors anonymously is 401 rest_forbidden_who (403 for a subscriber)', async () => {
    const anon = await site.call('GET', '/wp-json/wp/v2/users?who=authors');
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden_who']);
    const sub = await site.call('GET', '/wp-json/wp/v2/users?who=authors', { auth: subscriber });
    expect([sub.status, sub.body.code]).toEqual([403, 'rest_forbidden_who']);
    // Whoever may write posts lists the authors (users who may edit posts: contributor and up).
    const byAdmin = await site.call('GET', '/wp-json/wp/v2/users?who=authors', { auth: admin });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.map((u: { name: string }) => u.name).sort()).toEqual(
      ['admin', 'author', 'contrib'].sort(),
    );
    expect(byAdmin.headers['x-wp-total']).toBe('3');
    const byContributor = await site.call('GET', '/wp-json/wp/v2/users?who=authors', {
      auth: contributor,
    });
    expect(byContributor.status).toBe(200);
  });

  it('GET /wp/v2/users?orderby=registered_date by an author is 403 rest_forbidden_orderby', async () => {
    for (const orderby of ['registered_date', 'email']) {
      const r = await site.call('GET', `/wp-json/wp/v2/users?orderby=${orderby}`, { auth: author });
      expect([orderby, r.status, r.body.code]).toEqual([orderby, 403, 'rest_forbidden_orderby']);
      const anon = await site.call('GET', `/wp-json/wp/v2/users?orderby=${orderby}`);
      expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden_orderby']);
      const ok = await site.call('GET', `/wp-json/wp/v2/users?orderby=${orderby}`, { auth: admin });
      expect(ok.status).toBe(200);
    }
  });

  it('GET /wp/v2/users?slug=<name> totals the users it lists (not every user)', async () => {
    const r = await site.call('GET', '/wp-json/wp/v2/users?slug=author', { auth: admin });
    expect(r.body.map((u: { slug: string }) => u.slug)).toEqual(['author']);
    expect(r.headers['x-wp-total']).toBe('1');
  });

  it('GET /wp/v2/users?offset=N counts the page from the offset for its Link rels (WordPress)', async () => {
    // rel and page of the prev/next links (the API root's link left out).
    const links = (r: { headers: Record<string, unknown> }) =>
      [r.headers.link ?? []]
        .flat()
        .flatMap((l) => String(l).split(/,\s*(?=<)/))
        .filter((l) => /rel="(prev|next)"/.test(l))
        .map((l) => `${/rel="(\w+)"/.exec(l)![1]}:${/[?&]page=(\d+)/.exec(l)![1]}`);
    const anon = await site.call('GET', '/wp-json/wp/v2/users?offset=1');
    expect([anon.status, links(anon)]).toEqual([200, ['prev:1']]);
    const mid = await site.call('GET', '/wp-json/wp/v2/users?per_page=1&offset=1', { auth: admin });
    expect(mid.headers['x-wp-total']).toBe('4');
    expect(links(mid)).toEqual(['prev:1', 'next:3']);
    // Past the end: no refusal, prev names the last page.
    const past = await site.call('GET', '/wp-json/wp/v2/users?per_page=2&offset=9', {
      auth: admin,
    });
    expect([past.status, past.body, links(past)]).toEqual([200, [], ['prev:2']]);
  });

  it('GET /wp/v2/users?search= looks where WordPress does: display name, login, slug; e-mail and URL for list_users only', async () => {
    const names = (r: { body: { slug: string }[] }) => r.body.map((u) => u.slug).sort();
    // The author's display name, e-mail and URL (as a profile edit writes them).
    const edit = await site.call('POST', `/wp-json/wp/v2/users/${author.id}`, {
      auth: admin,
      body: { name: 'Zhang Wei', email: 'zw@rail.example', url: 'https://zw.example/blog' },
    });
    expect(edit.status).toBe(200);
    // Anyone (the author has published, so is listed): display name and login, any case.
    for (const term of ['zhang', 'WEI', 'auth']) {
      const anon = await site.call('GET', `/wp-json/wp/v2/users?search=${term}`);
      expect([term, names(anon), anon.headers['x-wp-total']]).toEqual([term, ['author'], '1']);
    }
    // Without list_users, the e-mail and the URL are not searched (they are not shown either).
    for (const term of ['zw@rail', 'zw.example', 'rail.example']) {
      const anon = await site.call('GET', `/wp-json/wp/v2/users?search=${term}`);
      expect([term, names(anon)]).toEqual([term, []]);
    }
    // With list_users: a term with "@" searches the e-mail alone, an address the URL alone.
    const byEmail = await site.call('GET', '/wp-json/wp/v2/users?search=zw@rail', { auth: admin });
    expect(names(byEmail)).toEqual(['author']);
    const byUrl = await site.call('GET', '/wp-json/wp/v2/users?search=https://zw.example', {
      auth: admin,
    });
    expect(names(byUrl)).toEqual(['author']);
    // ... and a number the login and the id (exactly).
    const byId = await site.call('GET', `/wp-json/wp/v2/users?search=${contributor.id}`, {
      auth: admin,
    });
    expect(names(byId)).toEqual(['contrib']);
    // Anything else: login, URL, e-mail, slug and display name.
    const any = await site.call('GET', '/wp-json/wp/v2/users?search=rail.exa', { auth: admin });
    expect([names(any), any.headers['x-wp-total']]).toEqual([['author'], '1']);
  });
});
