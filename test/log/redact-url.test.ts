import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/http/api/app.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { redactUrl } from '../../src/shared/log/redact-url.js';
import { buildSiteApp, type SiteApp } from '../../src/http/site/app.js';
import { capturingLogger, makeApp } from '../api/helpers/api-harness.js';
import { useTestDatabase } from '../helpers/test-db.js';

describe('redactUrl', () => {
  it.each([
    ['/wp-json/wp/v2/posts/1?password=hunter2', '/wp-json/wp/v2/posts/1?password=[Redacted]'],
    ['/x?a=1&pass=p&b=2', '/x?a=1&pass=[Redacted]&b=2'],
    ['/wp-login.php?log=ann&pwd=s3cret', '/wp-login.php?log=ann&pwd=[Redacted]'],
    ['/cb?code=abc&state=xyz', '/cb?code=[Redacted]&state=xyz'],
    [
      '/x?access_token=t&key=k&api_key=a',
      '/x?access_token=[Redacted]&key=[Redacted]&api_key=[Redacted]',
    ],
    ['/x?PASSWORD%5B0%5D=a', '/x?PASSWORD%5B0%5D=[Redacted]'],
    ['/x?my_secret_thing=1&_wpnonce=n', '/x?my_secret_thing=[Redacted]&_wpnonce=[Redacted]'],
    ['/x?page=2&per_page=10', '/x?page=2&per_page=10'],
    ['/x?password=', '/x?password='],
    ['/x?token=a#frag', '/x?token=[Redacted]#frag'],
    ['/plain', '/plain'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

/** the site logged `?password=...` query strings. */
describe('request logs carry no secret from a query string', () => {
  const t = useTestDatabase();
  const site = capturingLogger();
  const api = capturingLogger();
  let siteApp: SiteApp;
  let apiApp: ApiApp;
  beforeAll(async () => {
    siteApp = await buildSiteApp({
      db: t.current.db,
      config: loadConfig({ LOG_LEVEL: 'info', SITE_SEED_DOCS: 'false' }),
      logger: site.logger,
      siteUrl: 'http://site.test',
      modules: [],
    });
    apiApp = await makeApp(t.current.db, { logger: api.logger });
  });
  afterAll(async () => {
    await siteApp?.close();
    await apiApp?.close();
  });

  it("the site's request log of ?password=... (the finding) shows [Redacted]", async () => {
    await siteApp.inject({ url: '/wp-json/wp/v2/posts/1?password=hunter2-secret&context=view' });
    await siteApp.inject({ url: '/wp-login.php?pwd=hunter2-secret&log=ann' });
    const text = JSON.stringify(site.lines());
    expect(text).toContain('incoming request');
    expect(text).toContain('password=[Redacted]');
    expect(text).not.toContain('hunter2-secret');
  });

  it("the API's request log of ?access_token=, ?code= and ?key= shows [Redacted]", async () => {
    await apiApp.inject({ url: '/api/v2/records/daily?date=20250101&access_token=tok-secret-1' });
    await apiApp.inject({ url: '/oauth/authorize?code=code-secret-2&state=s' });
    await apiApp.inject({ url: '/api/v2/auth/me?key=key-secret-3' });
    const text = JSON.stringify(api.lines());
    expect(text).toContain('incoming request');
    for (const secret of ['tok-secret-1', 'code-secret-2', 'key-secret-3'])
      expect(text).not.toContain(secret);
  });
});
