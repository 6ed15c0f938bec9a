import { describe, expect, it } from 'vitest';
import {
  parsePhpQuery,
  phpInputLimitOf,
  PHP_INPUT_LIMITS,
} from '../../src/http/site/rest/php-query.js';
import { useSite } from './site-fixture.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the form and query parser: linear, within PHP limits', () => {
  it('appends 200,000 a[] keys in linear time (the old parser took quadratic time: minutes)', () => {
    const query = 'a[]=x&'.repeat(200_000);
    const parsed = parsePhpQuery(query, { maxInputVars: 1_000_000 });
    expect(phpInputLimitOf(parsed)).toBeUndefined();
    const list = parsed.a as string[];
    expect(list).toHaveLength(200_000);
    expect(list[199_999]).toBe('x');
  });

  it('appends after the largest index, as PHP does', () => {
    expect(JSON.parse(JSON.stringify(parsePhpQuery('a[5]=x&a[]=y&a[b]=z&a[]=w')))).toEqual({
      a: { 5: 'x', 6: 'y', b: 'z', 7: 'w' },
    });
  });

  it('stops at max_input_vars (1000) and says so', () => {
    const ok = parsePhpQuery('v=1&'.repeat(PHP_INPUT_LIMITS.maxInputVars));
    expect(phpInputLimitOf(ok)).toBeUndefined();
    const over = parsePhpQuery(Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&'));
    expect(phpInputLimitOf(over)?.limit).toBe('max_input_vars');
    expect(Object.keys(over)).toHaveLength(1000);
  });

  it('stops at max_input_nesting_level (64) and says so', () => {
    const at = parsePhpQuery(`a${'[x]'.repeat(64)}=1`);
    expect(phpInputLimitOf(at)).toBeUndefined();
    const over = parsePhpQuery(`a${'[x]'.repeat(65)}=1`);
    expect(phpInputLimitOf(over)?.limit).toBe('max_input_nesting_level');
  });
});

describe('the site refuses input past the limits with a 4xx naming it, never a 500', () => {
  const site = useSite();

  it('a[]= repeated to 160 KB in a form body (once: 15 s, then 401) is 400 max_input_vars', async () => {
    const res = await site.app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/posts',
      headers: FORM,
      payload: 'a[]=&'.repeat(32_000),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'max_input_vars', data: { status: 400 } });
    expect(res.json().message).toContain('max_input_vars is 1000');
  });

  it('100 KB of a[]= to /wp-login.php (once: 2.8 s) is 400 max_input_vars', async () => {
    const res = await site.app.inject({
      method: 'POST',
      url: '/wp-login.php',
      headers: FORM,
      payload: `log=x&pwd=y&${'a[]=&'.repeat(20_000)}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('max_input_vars');
  });

  it('a key nested 5,000 levels deep (once: 500 "Maximum call stack size exceeded") is 400 max_input_nesting_level, in a body and in a query', async () => {
    const key = `a${'[b]'.repeat(5000)}`;
    const body = await site.app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/posts',
      headers: FORM,
      payload: `${key}=1`,
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().code).toBe('max_input_nesting_level');
    const query = await site.app.inject({ url: `/wp-json/wp/v2/posts?${key}=1` });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({
      code: 'max_input_nesting_level',
      data: { status: 400, limit: 'max_input_nesting_level' },
    });
  });

  it('a query string of 1,001 variables is 400 max_input_vars, on pages too', async () => {
    const q = Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&');
    for (const url of [`/wp-json/wp/v2/posts?${q}`, `/?${q}`]) {
      const res = await site.app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code).toBe('max_input_vars');
    }
  });

  it('a form body over post_max_size (8 MiB) is 413 post_max_size', async () => {
    const res = await site.app.inject({
      method: 'POST',
      url: '/wp-login.php',
      headers: FORM,
      payload: `log=${'x'.repeat(PHP_INPUT_LIMITS.postMaxSizeBytes + 1)}`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('post_max_size');
  });

  it('a JSON body nested deeper than 512 (json_decode depth) is 400 rest_invalid_json', async () => {
    const res = await site.app.inject({
      method: 'POST',
      url: '/wp-json/wp/v2/posts',
      headers: { 'content-type': 'application/json' },
      payload: `{"title":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('rest_invalid_json');
  });
});
