import autocannon from 'autocannon';
import Fastify from 'fastify';
import type { Queryable } from '../../src/shared/db/db.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { buildSiteApp } from '../../src/http/site/app.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { median } from '../repeat.js';

const POSTS = 1_000;

interface Load {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

async function load(url: string, seconds: number, connections: number): Promise<Load> {
  const r = await autocannon({ url, connections, duration: seconds, workers: 1 });
  return {
    requestsPerSecond: r.requests.average,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
  };
}

/** A post's block content of a realistic size (headings, paragraphs, a list, code). */
function content(i: number): string {
  const p = (t: string) => `<!-- wp:paragraph -->\n<p>${t}</p>\n<!-- /wp:paragraph -->`;
  return [
    `<!-- wp:heading -->\n<h2 class="wp-block-heading">第 ${i} 篇：交路说明</h2>\n<!-- /wp:heading -->`,
    p(`G${i} 次列车由 CR400AF-${1000 + i} 担当，"京沪" 线路上每天往返两次。`),
    p(
      'The circulation of a unit is inferred from its sightings; each link is weighted forward and backward.',
    ),
    `<!-- wp:list -->\n<ul class="wp-block-list"><!-- wp:list-item --><li>北京南</li><!-- /wp:list-item --><!-- wp:list-item --><li>上海虹桥</li><!-- /wp:list-item --></ul>\n<!-- /wp:list -->`,
    `<!-- wp:code -->\n<pre class="wp-block-code"><code>GET /api/v2/records/daily?date=20260810</code></pre>\n<!-- /wp:code -->`,
  ].join('\n\n');
}

/**
 * 1,000 published posts by one author, each in one category and one tag and with one revision
 * (the bench's data; exported for profiling the site under the same load).
 */
export async function seedBenchPosts(db: Queryable): Promise<number[]> {
  const user = await db.query<{ id: string }>(
    `INSERT INTO users (username, password_hash) VALUES ('bench', 'x') RETURNING id`,
  );
  const author = Number(user.rows[0]!.id);
  await db.query(`INSERT INTO site_roles (user_id, role) VALUES ($1, 'author')`, [author]);
  const cat = await db.query<{ id: string }>(
    `INSERT INTO site_terms (taxonomy, name, slug) VALUES ('category', '交路', 'routes') RETURNING id`,
  );
  const tag = await db.query<{ id: string }>(
    `INSERT INTO site_terms (taxonomy, name, slug) VALUES ('post_tag', 'CR400AF', 'cr400af') RETURNING id`,
  );
  const values: unknown[] = [];
  const rows: string[] = [];
  for (let i = 0; i < POSTS; i++) {
    values.push(
      `交路说明 ${i}`,
      `post-${i}`,
      content(i),
      author,
      new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
    );
    const b = i * 5;
    rows.push(
      `('post', 'publish', $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 5})`,
    );
  }
  const inserted = await db.query<{ id: string }>(
    `INSERT INTO site_posts (type, status, title, slug, content, author, date_gmt, modified_gmt) VALUES ${rows.join(', ')} RETURNING id`,
    values,
  );
  const ids = inserted.rows.map((r) => Number(r.id));
  await db.query(
    `INSERT INTO site_term_relationships (post_id, term_id) SELECT id, $1::bigint FROM site_posts WHERE type = 'post'
     UNION ALL SELECT id, $2::bigint FROM site_posts WHERE type = 'post'`,
    [cat.rows[0]!.id, tag.rows[0]!.id],
  );
  // Every post has been edited once: version-history links count a revision.
  await db.query(
    `INSERT INTO site_posts (type, status, parent, title, content, slug, author, date_gmt)
     SELECT 'revision', 'inherit', id, title, content, id || '-revision-v1', author, date_gmt FROM site_posts WHERE type = 'post'`,
  );
  await db.query('ANALYZE');
  return ids;
}

/**
 * The documentation site's read path over 1,000 posts, through HTTP on loopback:
 * GET /wp-json/wp/v2/posts?per_page=100 and a single post with _embed (author and terms
 * dispatched internally), each against a bare Fastify route that sends the same bytes, in
 * alternating rounds (medians reported). Load from a worker thread; servers in this process.
 */
export const siteSuite: BenchSuite = {
  name: 'site',
  async run(ctx) {
    const rounds = ctx.quick ? 1 : 3;
    const seconds = ctx.quick ? 2 : 4;
    const connections = 4;
    const database = await ctx.createDatabase();
    const db = database.db;
    const closers: (() => Promise<unknown>)[] = [];
    try {
      ctx.log(`site: ${POSTS} posts`);
      const ids = await seedBenchPosts(db);

      const config = loadConfig({ LOG_LEVEL: 'silent', SITE_SEED_DOCS: 'false' });
      const site = await buildSiteApp({
        db,
        config,
        logger: createLogger('silent'),
        siteUrl: 'http://bench.test',
      });
      await site.listen({ host: '127.0.0.1', port: 0 });
      closers.push(() => site.close());
      const siteUrl = `http://127.0.0.1:${(site.server.address() as { port: number }).port}`;
      const listPath = '/wp-json/wp/v2/posts?per_page=100';
      const embedPath = `/wp-json/wp/v2/posts/${ids[500]}?_embed`;
      const payloads: Record<string, { body: string; headers: Record<string, string> }> = {};
      for (const [name, path] of [
        ['list', listPath],
        ['embed', embedPath],
      ] as const) {
        const res = await fetch(siteUrl + path);
        if (res.status !== 200) throw new Error(`site ${path}: ${res.status}`);
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'x-wp-total', 'x-wp-totalpages', 'link']) {
          const v = res.headers.get(h);
          if (v) headers[h] = v;
        }
        payloads[name] = { body: await res.text(), headers };
      }
      const bare = Fastify({ logger: false });
      for (const name of ['list', 'embed']) {
        bare.get(`/bare/${name}`, async (_req, reply) =>
          reply.headers(payloads[name]!.headers).send(payloads[name]!.body),
        );
      }
      await bare.listen({ host: '127.0.0.1', port: 0 });
      closers.push(() => bare.close());
      const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

      const out: BenchRow[] = [];
      for (const [name, path, label] of [
        ['list', listPath, 'GET posts?per_page=100 (1,000 posts)'],
        ['embed', embedPath, 'GET posts/{id}?_embed'],
      ] as const) {
        await load(siteUrl + path, 1, connections);
        await load(`${bareUrl}/bare/${name}`, 1, connections);
        const siteRounds: Load[] = [];
        const bareRounds: Load[] = [];
        for (let r = 0; r < rounds; r++) {
          siteRounds.push(await load(siteUrl + path, seconds, connections));
          bareRounds.push(await load(`${bareUrl}/bare/${name}`, seconds, connections));
        }
        if (siteRounds.some((l) => l.non2xx > 0))
          throw new Error(`site ${path}: non-2xx answers under load`);
        const rate = median(siteRounds.map((l) => l.requestsPerSecond));
        const bareRate = median(bareRounds.map((l) => l.requestsPerSecond));
        const p99 = median(siteRounds.map((l) => l.p99Ms));
        const bareP99 = median(bareRounds.map((l) => l.p99Ms));
        const of = `median of ${rounds}, ${connections} connections, ${(payloads[name]!.body.length / 1024).toFixed(0)} KiB`;
        out.push(
          {
            suite: 'site',
            metric: `${label}: req/s (${of})`,
            value: Math.round(rate),
            unit: 'req/s',
            reference: Math.round(bareRate),
            ratio: rate / bareRate,
            target: '>= 0.3x bare',
            pass: rate / bareRate >= 0.3,
          },
          {
            suite: 'site',
            metric: `${label}: p99 (${of})`,
            value: p99,
            unit: 'ms',
            reference: bareP99,
            ratio: p99 > 0 ? bareP99 / p99 : undefined,
            target: '<= 20 ms',
            pass: p99 <= 20,
          },
        );
      }
      return out;
    } finally {
      for (const close of closers.reverse()) await close();
      await database.drop();
    }
  },
};
