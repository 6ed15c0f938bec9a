import apiFetchModule, { type ApiFetch } from '@wordpress/api-fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertPost } from '../../src/domain/content/posts-store.js';
import { useSite } from './site-fixture.js';

const apiFetch = apiFetchModule as unknown as ApiFetch;

interface SearchItem {
  id: number;
  title: string;
  url: string;
  type: string;
  subtype: string;
  _links: Record<string, { href: string; embeddable?: boolean }[]>;
}

/**
 * GET /wp/v2/search, after wordpress-develop's tests/phpunit/tests/rest-api/rest-search-controller.php:
 * the post search handler over published posts and pages, its subtype rules, paging and links.
 */
describe('GET /wp/v2/search (WordPress 6.1, post search handler)', () => {
  const site = useSite({ listen: true });
  const ids: Record<string, number> = {};
  const at = new Date('2026-11-01T00:00:00Z');

  beforeAll(async () => {
    const make = async (
      key: string,
      type: 'post' | 'page',
      title: string,
      content: string,
      extra: { status?: string; password?: string; minutes?: number } = {},
    ) => {
      const when = new Date(at.getTime() + (extra.minutes ?? 0) * 60_000);
      const post = await insertPost(site.db, {
        type,
        status: extra.status ?? 'publish',
        title,
        content: `<!-- wp:paragraph -->\n<p>${content}</p>\n<!-- /wp:paragraph -->`,
        slug: key,
        password: extra.password ?? '',
        dateGmt: when,
        modifiedGmt: when,
      });
      ids[key] = post.id;
    };
    await make('post-a', 'post', 'Foocontent in the title', 'first', { minutes: 1 });
    await make('post-b', 'post', 'Second post', 'a body about foocontent', { minutes: 2 });
    await make('page-a', 'page', 'A page', 'the page mentions foocontent too', { minutes: 3 });
    await make('page-b', 'page', 'Another page', 'nothing to see', { minutes: 4 });
    await make('draft', 'post', 'Draft foocontent', 'not published', { status: 'draft' });
    await make('private', 'page', 'Private foocontent', 'private', { status: 'private' });
    await make('locked', 'post', 'Locked foocontent', 'secret', { password: 'pw', minutes: 5 });
  });

  const search = (query: string) => site.call('GET', `/wp-json/wp/v2/search${query}`);

  it('is registered in the index with its arguments and schema', async () => {
    const index = await site.call('GET', '/wp-json/wp/v2');
    const route = index.body.routes['/wp/v2/search'];
    expect(route.methods).toEqual(['GET']);
    const args = route.endpoints[0].args;
    expect(Object.keys(args).sort()).toEqual(
      ['context', 'exclude', 'include', 'page', 'per_page', 'search', 'subtype', 'type'].sort(),
    );
    expect(args.context).toMatchObject({ default: 'view', enum: ['view', 'embed'] });
    expect(args.type).toMatchObject({ default: 'post', enum: ['post'] });
    expect(args.subtype).toMatchObject({ default: 'any', type: 'array' });
    expect(args.subtype.items.enum).toEqual(['post', 'page', 'any']);
    const options = await site.call('OPTIONS', '/wp-json/wp/v2/search');
    expect(Object.keys(options.body.schema.properties).sort()).toEqual(
      ['id', 'subtype', 'title', 'type', 'url'].sort(),
    );
  });

  it('without a term lists every published post and page, newest first, with the totals', async () => {
    const res = await search('');
    expect(res.status).toBe(200);
    expect(res.body.map((i: SearchItem) => i.id)).toEqual([
      ids.locked,
      ids['page-b'],
      ids['page-a'],
      ids['post-b'],
      ids['post-a'],
    ]);
    expect(res.headers['x-wp-total']).toBe('5');
    expect(res.headers['x-wp-totalpages']).toBe('1');
  });

  it('finds a term in titles and contents, the titles first; never a draft, a private item, or (signed out) a protected one', async () => {
    const res = await search('?search=foocontent');
    const found = res.body.map((i: SearchItem) => i.id);
    // Titles containing the phrase first (newest first among them), then the others. A visitor's
    // search leaves password-protected items out, as WP_Query does for one who is logged out.
    expect(found).toEqual([ids['post-a'], ids['page-a'], ids['post-b']]);
    expect(found).not.toContain(ids.draft);
    expect(found).not.toContain(ids.private);
  });

  it('answers the item shape: id, title (no "Protected:"), url, type, subtype and links', async () => {
    // Signed in, a protected item is found by its title.
    const reader = await site.account('search-reader', 'subscriber');
    const res = await site.call('GET', '/wp-json/wp/v2/search?search=Locked', { auth: reader });
    expect(res.body).toHaveLength(1);
    const item = res.body[0] as SearchItem;
    expect(Object.keys(item).sort()).toEqual(
      ['_links', 'id', 'subtype', 'title', 'type', 'url'].sort(),
    );
    expect(item).toMatchObject({
      id: ids.locked,
      title: 'Locked foocontent',
      type: 'post',
      subtype: 'post',
    });
    expect(item.url).toMatch(new RegExp(`^${site.url}/\\d{4}/\\d{2}/\\d{2}/locked/$`));
    expect(item._links.self).toEqual([
      { embeddable: true, href: `${site.url}/wp-json/wp/v2/posts/${ids.locked}` },
    ]);
    expect(item._links.about).toEqual([{ href: `${site.url}/wp-json/wp/v2/types/post` }]);
    expect(item._links.collection).toEqual([{ href: `${site.url}/wp-json/wp/v2/search` }]);
  });

  it('narrows by subtype; `any` overrides the others', async () => {
    const pages = await search('?search=foocontent&type=post&subtype=page');
    expect(pages.body.map((i: SearchItem) => i.id)).toEqual([ids['page-a']]);
    expect(pages.body[0].url).toBe(`${site.url}/page-a/`);
    const posts = await search('?subtype[]=post');
    expect(posts.body.every((i: SearchItem) => i.subtype === 'post')).toBe(true);
    expect(posts.body).toHaveLength(3);
    const both = await search('?subtype=post,page');
    expect(both.body).toHaveLength(5);
    const any = await search('?subtype[]=page&subtype[]=any');
    expect(any.body).toHaveLength(5);
  });

  it('refuses an unknown type or subtype with rest_invalid_param naming it', async () => {
    const type = await search('?type=invalid');
    expect(type.status).toBe(400);
    expect(type.body.code).toBe('rest_invalid_param');
    expect(Object.keys(type.body.data.params)).toEqual(['type']);
    const subtype = await search('?subtype=invalid');
    expect(subtype.status).toBe(400);
    expect(subtype.body.code).toBe('rest_invalid_param');
    expect(Object.keys(subtype.body.data.params)).toEqual(['subtype']);
    const context = await search('?context=edit');
    expect(context.status).toBe(400);
    expect(Object.keys(context.body.data.params)).toEqual(['context']);
  });

  it('pages with per_page, X-WP-TotalPages and Link prev/next; past the end is rest_search_invalid_page_number', async () => {
    const first = await search('?per_page=2');
    expect(first.body).toHaveLength(2);
    expect(first.headers['x-wp-totalpages']).toBe('3');
    expect(String(first.headers.link)).toContain('rel="next"');
    expect(String(first.headers.link)).toContain('page=2');
    const second = await search('?per_page=2&page=2');
    expect(String(second.headers.link)).toContain('rel="prev"');
    expect(String(second.headers.link)).toContain('rel="next"');
    const past = await search('?per_page=2&page=4');
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('rest_search_invalid_page_number');
    const tooMany = await search('?per_page=101');
    expect(tooMany.status).toBe(400);
    const none = await search('?search=nothing-matches-this');
    expect(none.body).toEqual([]);
    expect(none.headers['x-wp-total']).toBe('0');
    expect(none.headers['x-wp-totalpages']).toBe('0');
  });

  it('honours include and exclude, context embed and _embed of the items', async () => {
    const include = await search(`?include=${ids['post-a']},${ids['page-b']}`);
    expect(include.body.map((i: SearchItem) => i.id).sort()).toEqual(
      [ids['post-a'], ids['page-b']].sort(),
    );
    const exclude = await search(`?exclude=${ids['post-a']}`);
    expect(exclude.body.map((i: SearchItem) => i.id)).not.toContain(ids['post-a']);
    const embed = await search('?search=A%20page&context=embed&_embed=self');
    expect(embed.body[0]._embedded.self[0]).toMatchObject({ id: ids['page-a'], slug: 'page-a' });
  });

  it('answers @wordpress/api-fetch as the block editor asks (type=post, subtype=any, per_page)', async () => {
    apiFetch.use(apiFetch.createRootURLMiddleware(`${site.url}/wp-json/`));
    const items = await apiFetch<SearchItem[]>({
      path: '/wp/v2/search?search=foocontent&per_page=20&type=post&subtype=any',
    });
    expect(items.map((i) => i.id)).toEqual([ids['post-a'], ids['page-a'], ids['post-b']]);
  });
});
