import { describe, expect, it } from 'vitest';
import { comparable, judgeableBy61, routeShape } from './oracle-compare.js';
import type { CorpusRequest } from './oracle-corpus.js';
import { IdNames, normaliseValue, type NormalisedAnswer } from './oracle-normalise.js';

/** The compare-time rules of the differential (oracle-compare.ts), each on a small case. */
const request = (over: Partial<CorpusRequest>): CorpusRequest => ({
  id: 'x',
  category: 'list-params',
  method: 'GET',
  path: '/wp/v2/posts',
  query: '',
  caller: 'anonymous',
  ...over,
});
const answer = (body: unknown, headers: Record<string, string> = {}): NormalisedAnswer => ({
  status: 200,
  headers,
  body,
});
const same = (r: CorpusRequest, a: NormalisedAnswer, b: NormalisedAnswer) =>
  JSON.stringify(comparable(r, a)) === JSON.stringify(comparable(r, b));

describe('compare-time rules of the differential', () => {
  it('writes a route pattern as its shape, nested groups and character classes included', () => {
    expect(routeShape('/wp/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)')).toBe(
      '/wp/v2/posts/{parent}/revisions/{id}',
    );
    expect(
      routeShape(
        '/wp/v2/templates/(?P<id>([^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?)[\\/\\w-]+)',
      ),
    ).toBe('/wp/v2/templates/{id}');
    expect(routeShape('/wp/v2/x/(?P<a>[)(])/y')).toBe('/wp/v2/x/{a}/y');
  });

  it('compares orderby=author ties as sets, keeps the key order, and a cut tie by its size', () => {
    const r = request({ query: 'orderby=author&per_page=3' });
    const item = (id: string, author: string) => ({ id, author });
    const headers = { total: '5' };
    const wp = answer([item('a1', 'u2'), item('a2', 'u2'), item('b1', 'u1')], headers);
    const swapped = answer([item('a2', 'u2'), item('a1', 'u2'), item('b3', 'u1')], headers);
    expect(same(r, wp, swapped)).toBe(true);
    // The key order is compared: u1 before u2 is another answer.
    const reordered = answer([item('b1', 'u1'), item('a1', 'u2'), item('a2', 'u2')], headers);
    expect(same(r, wp, reordered)).toBe(false);
    // A tie the page does not cut is compared as a set of items: another item differs.
    const other = answer([item('a1', 'u2'), item('a9', 'u2'), item('b1', 'u1')], headers);
    expect(same(r, wp, other)).toBe(false);
    // Other orderby values keep their order.
    const byDate = request({ query: 'orderby=date&per_page=3' });
    expect(same(byDate, wp, swapped)).toBe(false);
  });

  it('compares orderby=modified ties as sets: WordPress sorts posts of one second in no set order', () => {
    const r = request({ query: 'orderby=modified' });
    const item = (id: string, modified: string) => ({ id, modified });
    const at = '2021-03-01T10:00:00';
    const wp = answer([
      item('p13', at),
      item('p16', at),
      item('p11', at),
      item('p9', '2021-01-06'),
    ]);
    const ours = answer([
      item('p16', at),
      item('p13', at),
      item('p11', at),
      item('p9', '2021-01-06'),
    ]);
    expect(same(r, wp, ours)).toBe(true);
    const later = answer([
      item('p9', '2021-01-06'),
      item('p16', at),
      item('p13', at),
      item('p11', at),
    ]);
    expect(same(r, wp, later)).toBe(false);
  });

  it('compares the index on the routes and namespaces the spec covers', () => {
    const r = request({ category: 'index', path: '/' });
    const wp = answer({
      namespaces: ['oembed/1.0', 'wp/v2', 'wp-site-health/v1'],
      routes: ['/wp/v2/posts', '/wp/v2/posts/(?P<id>[\\d]+)', '/wp/v2/widgets', '/wp/v2/themes'],
      show_on_front: undefined,
      _links: { curies: 1, help: 1, 'wp:active-theme': 1 },
    });
    const ours = answer({
      namespaces: ['wp/v2', 'oembed/1.0'],
      routes: ['/wp/v2/posts', '/wp/v2/posts/(?P<id>\\d+)', '/wp/v2/wp_pattern_category'],
      show_on_front: 'posts',
      _links: { help: 1 },
    });
    expect(same(r, wp, ours)).toBe(true);
    // A route the spec lists that one side lacks still differs.
    const missing = answer({ ...(ours.body as object), routes: ['/wp/v2/posts'] });
    expect(same(r, wp, missing)).toBe(false);
  });

  it("leaves the blocks' 6.3 arguments out of their OPTIONS only", () => {
    const r = request({ category: 'options', method: 'OPTIONS', path: '/wp/v2/blocks' });
    const options = (title: string, args: string[], links: string[]) =>
      answer({
        endpoints: [{ methods: ['GET'], args }],
        schema: { title, properties: { meta: {} }, links },
      });
    const wp = options('wp_block', ['context', 'page'], ['https://api.w.org/action-publish']);
    const ours = options(
      'wp_block',
      ['context', 'page', 'tax_relation', 'wp_pattern_category', 'meta'],
      ['https://api.w.org/action-assign-wp_pattern_category', 'https://api.w.org/action-publish'],
    );
    expect(same(r, wp, ours)).toBe(true);
    const posts = (args: string[]) => options('post', args, []);
    expect(same(r, posts(['context']), posts(['context', 'tax_relation']))).toBe(false);
  });

  it('judges a request beyond 6.1 on status, Allow and the fields of its items', () => {
    const full = answer(
      [
        { id: 1, format: 'standard' },
        { id: 2, format: 'aside' },
      ],
      {
        allow: 'GET',
        total: '32',
      },
    );
    const filtered = answer([{ id: 2, format: 'aside' }], { allow: 'GET', total: '1' });
    expect(judgeableBy61(filtered)).toEqual(judgeableBy61(full));
    const fewerFields = answer([{ id: 2 }], { allow: 'GET', total: '1' });
    expect(judgeableBy61(fewerFields)).not.toEqual(judgeableBy61(full));
    const refused = { status: 400, headers: {}, body: { code: 'rest_invalid_param', status: 400 } };
    expect(judgeableBy61(refused)).not.toEqual(judgeableBy61(full));
  });

  it('takes the date of "now" out of permalinks, whatever day the replay runs, and keeps a seeded one', () => {
    const names = new IdNames({ byRef: new Map() });
    const link = (day: string) =>
      normaliseValue(`http://a.example/${day}/created-admin/`, names, 'post', 'link');
    // Captured on 2026-11-26; replayed after midnight in the site's time zone.
    expect(link('2026/11/27')).toBe(link('2026/11/26'));
    expect(link('2026/11/26')).toContain('/<now>/created-admin/');
    expect(
      normaliseValue(
        'http://a.example/2026/11/27/%postname%/',
        names,
        'post',
        'permalink_template',
      ),
    ).toBe(
      normaliseValue(
        'http://b.example/2026/11/26/%postname%/',
        names,
        'post',
        'permalink_template',
      ),
    );
    expect(link('2021/01/05')).toContain('/2021/01/05/created-admin/');
  });
});
