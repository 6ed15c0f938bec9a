import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSiteApp, type SiteApp } from '../../src/http/site/app.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { makeApp, testConfig } from './helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * The links between the API's pages and the documentation site, with only one side's public
 * address configured (or neither): each is derived from the request's own host and the other
 * server's port, not assumed to be localhost:3000 / localhost:3001. And /favicon.ico on both.
 */
const database = useTestDatabase();
const apps: { close(): Promise<unknown> }[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

async function api(env: Record<string, string> = {}): Promise<ApiApp> {
  const app = await makeApp(database.current.db, { config: testConfig(env) });
  apps.push(app);
  return app;
}

async function site(env: Record<string, string> = {}): Promise<SiteApp> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SITE_SEED_DOCS: 'false', ...env });
  const app = await buildSiteApp({
    db: database.current.db,
    config,
    logger: createLogger('silent'),
    modules: [],
  });
  apps.push(app);
  return app;
}

/** The href of every link of a page to `path` on another origin. */
const hrefsTo = (html: string, path: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!).filter((h) => h.endsWith(path));

let plainApi: ApiApp;
let plainSite: SiteApp;
beforeAll(async () => {
  plainApi = await api();
  plainSite = await site();
});

describe("links from the API's pages to the site", () => {
  it('without SITE_URL: the host the page was asked at, on SITE_PORT', async () => {
    const app = await api({ SITE_PORT: '4001' });
    const page = await app.inject({ url: '/login', headers: { host: 'rail.example:4000' } });
    expect(page.statusCode).toBe(200);
    expect(hrefsTo(page.body, '/manual/')).toEqual(['http://rail.example:4001/manual/']);
  });

  it('with SITE_URL: that address, whatever the host', async () => {
    const app = await api({ SITE_URL: 'https://docs.example.org/' });
    const page = await app.inject({ url: '/login', headers: { host: 'rail.example:4000' } });
    expect(hrefsTo(page.body, '/manual/')).toEqual(['https://docs.example.org/manual/']);
  });

  it('a Host that is no plain host name falls back to localhost', async () => {
    const page = await plainApi.inject({
      url: '/login',
      headers: { host: 'rail.example"onmouseover="x' },
    });
    expect(page.statusCode).toBe(200);
    expect(hrefsTo(page.body, '/manual/')).toEqual(['http://localhost:3001/manual/']);
  });
});

describe("links from the site's pages to the API", () => {
  it('without PUBLIC_URL: the host the page was asked at, on PORT', async () => {
    const app = await site({ PORT: '4000' });
    const page = await app.inject({ url: '/', headers: { host: 'docs.example:4001' } });
    expect(hrefsTo(page.body, '/account')).toEqual(['http://docs.example:4000/account']);
  });

  it('with PUBLIC_URL: that address, whatever the host', async () => {
    const app = await site({ PUBLIC_URL: 'https://api.example.org' });
    const page = await app.inject({ url: '/', headers: { host: 'docs.example:4001' } });
    expect(hrefsTo(page.body, '/account')).toEqual(['https://api.example.org/account']);
  });
});

describe('/favicon.ico', () => {
  it.each([
    ['the API', () => plainApi],
    ['the site', () => plainSite],
  ])('%s answers it with a cached icon', async (_name, app) => {
    const r = await app().inject({ url: '/favicon.ico' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^image\//);
    expect(r.headers['cache-control']).toMatch(/max-age=\d+/);
    // An ICO header (reserved 0, type 1, one image) around a PNG.
    expect([...r.rawPayload.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(r.rawPayload.subarray(23, 26).toString()).toBe('PNG');
  });
});
