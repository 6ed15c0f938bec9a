import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { seedDocs } from '../../src/domain/content/seed-docs.js';
import { buildSiteApp } from '../../src/http/site/app.js';
import { loadDocsSource } from '../../src/http/site/docs/docs-source.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createLogger } from '../../src/shared/log/logger.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { noCjkFontConfig, systemCjkFontConfig } from '../cjk-system-font.js';
import { median } from '../repeat.js';

/** Debian's chromium; never a browser download. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and kept off the network (it would keep trying Google's hosts otherwise). */
export const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The four categories and the site's target for each (0-100). */
export const LIGHTHOUSE_TARGETS = [
  ['performance', 95],
  ['accessibility', 100],
  ['best-practices', 100],
  ['seo', 95],
] as const;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface PageRun {
  scores: Record<string, number>;
  fontBytes: number;
  totalBytes: number;
  failed: Record<string, string[]>;
}

/** One Lighthouse run (its default mobile preset) of `url` in the Chromium listening on `port`. */
export async function audit(
  url: string,
  port: number,
  options: { ignoreStatusCode?: boolean } = {},
): Promise<PageRun> {
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    // A page answered 404 on purpose (one not built yet) is measured as the page it is.
    ...(options.ignoreStatusCode && { ignoreStatusCode: true }),
    onlyCategories: LIGHTHOUSE_TARGETS.map(([c]) => c),
  });
  if (!result) throw new Error(`lighthouse: no result for ${url}`);
  const { lhr } = result;
  // LIGHTHOUSE_REPORT_DIR: each page's whole report (JSON), to see what an audit flagged.
  const dir = process.env.LIGHTHOUSE_REPORT_DIR;
  if (dir) {
    const name = `${new URL(url).pathname.replace(/\W+/g, '_')}.json`;
    await writeFile(path.join(dir, name), JSON.stringify(lhr));
  }
  if (lhr.runtimeError) throw new Error(`lighthouse ${url}: ${lhr.runtimeError.message}`);
  const scores: Record<string, number> = {};
  const failed: Record<string, string[]> = {};
  for (const [category] of LIGHTHOUSE_TARGETS) {
    const entry = lhr.categories[category];
    scores[category] = Math.round((entry?.score ?? 0) * 100);
    failed[category] = (entry?.auditRefs ?? [])
      .filter((r) => r.weight > 0 && (lhr.audits[r.id]?.score ?? 1) < 1)
      .map((r) => r.id);
  }
  const requests = (
    lhr.audits['network-requests']?.details as
      { items: { resourceType?: string; transferSize?: number }[] } | undefined
  )?.items;
  return {
    scores,
    failed,
    fontBytes: (requests ?? [])
      .filter((r) => r.resourceType === 'Font')
      .reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    totalBytes: lhr.audits['total-byte-weight']?.numericValue ?? 0,
  };
}

/**
 * Lighthouse (the version pinned in package.json, its default mobile preset with simulated
 * throttling) on the documentation site as a first start writes it (the manual and the API
 * reference from the repository), served on loopback: the front page, a post, the manual's
 * Chinese top page and an English chapter, each the median of three runs (one with --quick).
 * Twice: in Chromium with a CJK system font, as a reader's phone has (the targets: the served
 * face is not fetched), and with none, as on a minimal Linux (the machine's CJK fonts left out:
 * the page's subset and, for what it lacks, the served slices are fetched). One row per page and category, and what the fonts and the
 * whole page weigh.
 */
export const lighthouseSuite: BenchSuite = {
  name: 'lighthouse',
  async run(ctx) {
    const runs = ctx.quick ? 1 : 3;
    const database = await ctx.createDatabase();
    const db = database.db;
    const closers: (() => Promise<unknown>)[] = [];
    try {
      const config = loadConfig({ LOG_LEVEL: 'silent' });
      const logger = createLogger('silent');
      await seedDocs(db, await loadDocsSource({ db, config, logger }));
      // The site's links name its own address, so it is known before it listens.
      const port = await freePort();
      const siteUrl = `http://127.0.0.1:${port}`;
      const site = await buildSiteApp({ db, config, logger, siteUrl });
      await site.listen({ host: '127.0.0.1', port });
      closers.push(() => site.close());

      const welcome = await fetch(`${siteUrl}/wp-json/wp/v2/posts?slug=welcome&_fields=link`);
      const [post] = (await welcome.json()) as { link: string }[];
      if (!post) throw new Error('lighthouse: the seeded welcome post is missing');
      const pages: [string, string][] = [
        ['front page', `${siteUrl}/`],
        ['post', post.link],
        ['Chinese page (/manual/)', `${siteUrl}/manual/`],
        ['English chapter', `${siteUrl}/manual/getting-started/`],
      ];
      const tmp = await mkdtemp(path.join(tmpdir(), 'emutrack-lighthouse-'));
      closers.push(() => rm(tmp, { recursive: true, force: true }));
      const environments: [string, Record<string, string>][] = [
        ['CJK system font', { FONTCONFIG_FILE: await systemCjkFontConfig(tmp) }],
        ['no CJK font', { FONTCONFIG_FILE: await noCjkFontConfig(tmp) }],
      ];

      const out: BenchRow[] = [];
      for (const [environment, envVars] of environments) {
        const chrome = await chromeLauncher.launch({
          chromePath: CHROMIUM_PATH,
          chromeFlags: CHROME_FLAGS,
          envVars: { ...process.env, ...envVars } as Record<string, string>,
        });
        try {
          for (const [label, url] of pages) {
            ctx.log(`lighthouse: ${environment}: ${label} (${url}), ${runs} run(s)`);
            const done: PageRun[] = [];
            for (let i = 0; i < runs; i++) done.push(await audit(url, chrome.port));
            const byPerformance = [...done].sort(
              (a, b) => a.scores.performance! - b.scores.performance!,
            );
            const middle = byPerformance[Math.floor(byPerformance.length / 2)]!;
            const of = `${environment}, ${label}`;
            for (const [category, target] of LIGHTHOUSE_TARGETS) {
              const score = median(done.map((r) => r.scores[category]!));
              if (middle.failed[category]!.length > 0)
                ctx.log(`lighthouse: ${of} ${category} not full: ${middle.failed[category]}`);
              out.push({
                suite: 'lighthouse',
                metric: `${of}: ${category}${runs > 1 ? ` (median of ${runs})` : ''}`,
                value: score,
                unit: 'score',
                target: target === 100 ? '= 100' : `>= ${target}`,
                pass: score >= target,
              });
            }
            out.push(
              {
                suite: 'lighthouse',
                metric: `${of}: fonts transferred`,
                value: Math.round(middle.fontBytes / 1024),
                unit: 'KiB',
              },
              {
                suite: 'lighthouse',
                metric: `${of}: total page weight`,
                value: Math.round(middle.totalBytes / 1024),
                unit: 'KiB',
              },
            );
          }
        } finally {
          chrome.kill();
        }
      }
      return out;
    } finally {
      for (const close of closers.reverse()) await close();
      await database.drop();
    }
  },
};
