import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config/config.js';
import { manualChapter, manualLinks, seedDocs } from '../../src/domain/content/seed-docs.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { loadDocsSource } from '../../src/http/site/docs/docs-source.js';
import { useSite } from './site-fixture.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('a docs/*.md file as a chapter of the manual on the site', () => {
  it("takes the title off the top and makes links between chapters the site's", () => {
    const chapter = manualChapter('oauth', '# OAuth 2.0\n\nSee [keys](accounts.md#api-keys).\n');
    expect(chapter).toEqual({
      slug: 'oauth',
      title: 'OAuth 2.0',
      body: 'See [keys](accounts.md#api-keys).',
    });
    const slugs = new Set(['accounts', 'api']);
    expect(
      manualLinks(
        [
          '[a](accounts.md#api-keys) [b](./api.md) [c](#here) [d](https://pglite.dev)',
          '[e](../README.md) [f](../src/api/app.ts) [g](missing.md) `[h](api.md)`',
          '```',
          '[i](api.md)',
          '```',
        ].join('\n'),
        slugs,
      ),
    ).toBe(
      [
        '[a](/manual/accounts/#api-keys) [b](/manual/api/) [c](#here) [d](https://pglite.dev)',
        '[e](/manual/) f g `[h](api.md)`',
        '```',
        '[i](api.md)',
        '```',
      ].join('\n'),
    );
  });
});

describe("the site's first-start contents: emutrack's own documentation", () => {
  const site = useSite();

  it('writes the manual (docs/*.md) and the v2 API reference as pages, a welcome post and the menu, once', async () => {
    const source = await loadDocsSource({
      db: site.db,
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      logger: createLogger('silent'),
    });
    expect(source.openapi?.paths).toBeDefined();
    expect(await seedDocs(site.db, source)).toBe(true);
    expect(await seedDocs(site.db, source)).toBe(false);
    const chapters = source.chapters;
    expect(chapters.map((c) => c.slug)).toContain('getting-started');
    const manual = await site.call('GET', '/wp-json/wp/v2/pages?slug=manual');
    const children = await site.call(
      'GET',
      `/wp-json/wp/v2/pages?parent=${manual.body[0].id}&per_page=100`,
    );
    expect(Number(children.headers['x-wp-total'])).toBe(chapters.length);
    const titles = children.body.map((p: { title: { rendered: string } }) => p.title.rendered);
    expect(titles).toContain('The documentation site');
    const reference = await site.call('GET', '/wp-json/wp/v2/pages?slug=api-reference');
    const refPages = await site.call(
      'GET',
      `/wp-json/wp/v2/pages?parent=${reference.body[0].id}&per_page=100`,
    );
    expect(refPages.body.length).toBeGreaterThan(0);
    expect(
      refPages.body.map((p: { content: { rendered: string } }) => p.content.rendered).join(''),
    ).toContain('/api/v2/records/daily');
    const home = await site.call('GET', '/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('欢迎来到 emutrack 文档');
    expect(home.body).toContain('使用手册');
    const manualPage = await site.call('GET', '/manual/');
    expect(manualPage.status).toBe(200);
  });

  it('starts with `npm run site` on the embedded database (PGlite) and serves the documentation', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'emutrack-site-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/http/site/server.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: '',
        REDIS_URL: '',
        DATA_DIR: dataDir,
        SITE_PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let log = '';
        child.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('site ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`site exited ${code}: ${log.slice(-2000)}`)));
      });
      const index = (await (await fetch(`http://127.0.0.1:${port}/wp-json/`)).json()) as {
        url: string;
        namespaces: string[];
      };
      expect(index.url).toBe(`http://localhost:${port}`);
      const pages = await fetch(
        `http://127.0.0.1:${port}/index.php?rest_route=/wp/v2/pages&slug=manual`,
      );
      expect(((await pages.json()) as unknown[]).length).toBe(1);
      const front = await fetch(`http://127.0.0.1:${port}/`);
      expect(await front.text()).toContain('欢迎来到 emutrack 文档');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
