import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { shanghaiClock } from '../api/helpers/fixture-week.js';
import { GENEROUS_LIMITS, WEB_TODAY } from './helpers/web-harness.js';

const t = useTestDatabase();
let app: ApiApp;
let now = shanghaiClock(WEB_TODAY)();

beforeAll(async () => {
  app = await makeApp(t.current.db, {
    clock: () => now,
    env: { ...GENEROUS_LIMITS, WEB_PAGE_BURST: '3', WEB_PAGES_PER_MINUTE: '6' },
  });
});
afterAll(async () => app?.close());

const browser = { accept: 'text/html,application/xhtml+xml', 'x-forwarded-for': '' };

describe('the web app frame', () => {
  it('answers / in Chinese by default, with one h1, a search form and hashed assets', async () => {
    const res = await app.inject({ url: '/', headers: browser, remoteAddress: '10.0.0.1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toMatch(/^<!doctype html>\s*<html\s+lang="zh-CN"/);
    expect(res.body.match(/<h1[\s>]/g)).toHaveLength(1);
    expect(res.body).toContain('<form class="search" role="search" action="/search" method="get">');
    expect(res.body).toMatch(/<input\s+type="search"\s+id="q"\s+name="q"/);
    const css = res.body.match(/href="(\/assets\/web\/web\.[\w-]{12}\.css)"/)?.[1];
    const js = res.body.match(/src="(\/assets\/web\/main\.[\w-]{12}\.js)"/)?.[1];
    expect(css).toBeDefined();
    expect(js).toBeDefined();
    // No inline script: the CSP allows this origin's files only.
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    // Not the API pages' chrome (its CJK web font, its footer).
    expect(res.body).not.toContain('noto-sans-sc');
  });

  it('serves an asset by its hashed URL, compressed and immutable; any other name is a 404', async () => {
    const page = await app.inject({ url: '/', headers: browser, remoteAddress: '10.0.0.2' });
    const js = page.body.match(/src="(\/assets\/web\/main\.[\w-]{12}\.js)"/)![1]!;
    const br = await app.inject({ url: js, headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const plain = await app.inject({ url: js });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('keydown');
    const wrong = await app.inject({ url: js.replace(/\.[\w-]{12}\./, '.AAAAAAAAAAAA.') });
    expect(wrong.statusCode).toBe(404);
  });

  it('follows Accept-Language, and the switch keeps a choice in a cookie', async () => {
    const en = await app.inject({
      url: '/',
      headers: { ...browser, 'accept-language': 'en-GB,en;q=0.9,zh;q=0.3' },
      remoteAddress: '10.0.0.3',
    });
    expect(en.body).toMatch(/<html\s+lang="en"/);
    const zh = await app.inject({
      url: '/',
      headers: { ...browser, 'accept-language': 'en;q=0.2, zh-TW' },
      remoteAddress: '10.0.0.3',
    });
    expect(zh.body).toMatch(/<html\s+lang="zh-CN"/);
    const chosen = await app.inject({
      url: '/?lang=en&x=1',
      headers: browser,
      remoteAddress: '10.0.0.4',
    });
    expect(chosen.statusCode).toBe(303);
    expect(chosen.headers.location).toBe('/?x=1');
    const cookie = chosen.cookies.find((c) => c.name === 'lang');
    expect(cookie).toMatchObject({ value: 'en', path: '/', sameSite: 'Lax' });
    const after = await app.inject({
      url: '/',
      headers: { ...browser, 'accept-language': 'zh-CN', cookie: 'lang=en' },
      remoteAddress: '10.0.0.4',
    });
    expect(after.body).toMatch(/<html\s+lang="en"/);
    // A value that is not one of ours is no switch: the page as it is.
    const odd = await app.inject({
      url: '/?lang=%3Cscript%3E',
      headers: browser,
      remoteAddress: '10.0.0.5',
    });
    expect(odd.statusCode).toBe(200);
  });

  it('answers an unknown path with a 404 page for a browser and the JSON error otherwise', async () => {
    const page = await app.inject({
      url: '/no/such/page',
      headers: browser,
      remoteAddress: '10.0.0.6',
    });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<h1>页面不存在</h1>');
    const json = await app.inject({ url: '/no/such/page' });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ error: expect.anything() });
    const api = await app.inject({ url: '/api/v2/no-such', headers: browser });
    expect(api.headers['content-type']).toMatch(/^application\/json/);
  });

  it('limits page views per address (IPv6 per /64) with a readable 429 page and the wait', async () => {
    now = shanghaiClock(WEB_TODAY)();
    const from = (address: string) =>
      app.inject({ url: '/', headers: browser, remoteAddress: address });
    for (let i = 0; i < 3; i++) expect((await from('2001:db8:1:2::a')).statusCode).toBe(200);
    // Another interface identifier of the same /64 shares the allowance.
    const limited = await from('2001:db8:1:2:ffff::b');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('10');
    expect(limited.body).toContain('10 秒后再试');
    // Another /64 has its own; and the first gets a page back once a page's time has passed.
    expect((await from('2001:db8:1:3::a')).statusCode).toBe(200);
    now += 10_000;
    expect((await from('2001:db8:1:2::a')).statusCode).toBe(200);
    // The API is not counted by the page limit (it has its quota).
    const api = await app.inject({ url: '/api/v2/health', remoteAddress: '2001:db8:1:2::a' });
    expect(api.statusCode).not.toBe(429);
  });
});
