import { describe, expect, it } from 'vitest';
import { parsePhpQuery } from '../../src/http/site/rest/php-query.js';

describe('query strings read as PHP reads them', () => {
  it.each([
    ['_embed', { _embed: '' }],
    ['per_page=100&a=1&a=2', { per_page: '100', a: '2' }],
    ['include[]=1&include[]=2', { include: ['1', '2'] }],
    ['include[1]=5&include[0]=1', { include: ['1', '5'] }],
    [
      'categories[terms][0]=3&categories[operator]=AND',
      { categories: { terms: ['3'], operator: 'AND' } },
    ],
    ['q=a+b%20c&bad=%E0%A4%A', { q: 'a b c', bad: '%E0%A4%A' }],
    ['a[b]=1&a=2', { a: '2' }],
    ['rest_route=%2Fwp%2Fv2%2Fposts', { rest_route: '/wp/v2/posts' }],
  ])('%s', (query, expected) => {
    expect(JSON.parse(JSON.stringify(parsePhpQuery(query)))).toEqual(expected);
  });

  it('keeps __proto__ and constructor as plain parameters, never touching a prototype', () => {
    const q = parsePhpQuery('__proto__[polluted]=1&constructor[x]=2&__proto__=3');
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(Object.hasOwn(q, '__proto__')).toBe(true);
    expect(q.__proto__).toBe('3');
    expect(JSON.parse(JSON.stringify(q.constructor))).toEqual({ x: '2' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
