import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { makeApp } from './helpers/api-harness.js';

const t = useTestDatabase();
let app: ApiApp;
beforeAll(async () => {
  app = await makeApp(t.current.db);
});
afterAll(async () => {
  await app.close();
});

const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * The API's body and query parsing paths (checked on the API side): every
 * malformed, oversized, deeply nested or repeated input is a 4xx, never a 500.
 */
describe('malformed bodies and queries to the API are 4xx, never 5xx', () => {
  it.each([
    ['POST', '/api/v2/auth/login', JSON_TYPE, `{"username":${deep},"password":"x"}`],
    ['POST', '/api/v2/auth/login', JSON_TYPE, '{"username":"a",'],
    ['POST', '/api/v2/auth/login', FORM, 'username=a&password=b'],
    ['POST', '/api/v2/auth/login', 'text/plain', 'username=a&password=b'],
    ['POST', '/api/v2/auth/register', JSON_TYPE, `{"username":"a","password":{"x":${deep}}}`],
    ['POST', '/login', FORM, `a${'[b]'.repeat(5000)}=1`],
    ['POST', '/login', FORM, 'a[]=&'.repeat(3000)],
    ['POST', '/login', JSON_TYPE, `{"a":${deep}}`],
    ['POST', '/oauth/token', FORM, 'a[]=&'.repeat(3000)],
    ['POST', '/oauth/token', JSON_TYPE, `{"a":${deep}}`],
    ['POST', '/oauth/authorize', FORM, `request=${'%'.repeat(10)}`],
    ['POST', '/api/v2/oauth/clients', JSON_TYPE, `{"name":${deep}}`],
    ['PATCH', '/api/v2/auth/password', JSON_TYPE, `{"a":${deep}}`],
    ['POST', '/account/keys', 'multipart/form-data; boundary=x', '--x\r\n'],
  ])('%s %s (%s)', async (method, url, contentType, payload) => {
    const res = await app.inject({
      method: method as 'POST',
      url,
      headers: { 'content-type': contentType },
      payload,
    });
    expect(res.statusCode, res.body.slice(0, 200)).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
  });

  it.each([
    `/api/v2/records/daily?date=2025${'%'.repeat(50)}&${'a[b]'.repeat(3000)}=1`,
    `/api/v2/records/daily?${'date=1&'.repeat(5000)}`,
    `/oauth/authorize?${'a=1&'.repeat(5000)}`,
    `/api/v2/auth/me?${'x[]=1&'.repeat(5000)}`,
  ])('GET %s', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode, res.body.slice(0, 200)).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
  });
});
