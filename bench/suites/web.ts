import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import * as chromeLauncher from 'chrome-launcher';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { serviceDayOf } from '../../src/shared/time/service-day.js';
import { benchApiConfig } from '../bench-api-config.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { systemCjkFontConfig } from '../cjk-system-font.js';
import { median } from '../repeat.js';
import { perRequestUs, startCpuCount, type CpuSpent } from '../cpu-time.js';
import { DAYS, EMUS, TRAINS, emuCode, loadWebDataset, trainCode } from '../web-data.js';
import { encodedBodyBytes, firstVisits } from '../web-first-visit.js';
import { startServer } from './api.js';
import {
  CHROMIUM_PATH,
  CHROME_FLAGS,
  LIGHTHOUSE_TARGETS,
  audit,
  type PageRun,
} from './lighthouse.js';
import { seededRandom } from '../fresh-pages-data.js';

const CONNECTIONS = 10;
const FRESH_TARGET = 0.5;
const AGAIN_TARGET = 0.8;
const FIRST_VISIT_TARGET_KB = 60;
/** What a browser sends (the pages are compressed as sent; so may the API be). */
const PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, br' };
const API_HEADERS = { accept: 'application/json', 'accept-encoding': 'gzip, br' };

interface Load {
  perSecond: number;
  statuses: Record<string, number>;
  /** CPU per request (us): the server's process, Postgres (all of its processes), this one. */
  cpu: CpuSpent;
}

/** One GET on `agent`'s connection, the body read to its end; resolves to the status. */
function getOnce(
  base: URL,
  agent: http.Agent,
  pathname: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: base.hostname, port: base.port, path: pathname, agent, headers },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/**
 * Every path once, CONNECTIONS connections at a time (keep-alive, one request in flight each),
 * each connection its own share of the list; the rate is the answers over the wall time from the
 * first request to the last answer, timed here. (autocannon, given an `amount`, ends its run
 * on its one-second tick: every rate was 1,800 over a whole number of seconds, 593/s or
 * 884/s, and a ratio 0.5 or 0.67 by rounding alone.)
 */
async function serveEach(
  server: { url: string; pid: number },
  paths: readonly string[],
  headers: Record<string, string>,
): Promise<Load> {
  const url = new URL(server.url);
  const spent = await startCpuCount(server.pid);
  const lists = Array.from({ length: CONNECTIONS }, (_, c) =>
    paths.filter((_, i) => i % CONNECTIONS === c),
  );
  const statuses: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    lists.map(async (list) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (const pathname of list) {
          const status = String(await getOnce(url, agent, pathname, headers));
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  const ms = performance.now() - started;
  return {
    perSecond: (paths.length * 1000) / Math.max(1, ms),
    statuses,
    cpu: perRequestUs(await spent(), paths.length),
  };
}

/** The status a browser gets at `url`, and so how a row names what it measured. */
async function probe(url: string): Promise<number> {
  const res = await fetch(url, { headers: PAGE_HEADERS });
  await res.arrayBuffer();
  return res.status;
}

function pageLabel(what: string, pathname: string, status: number): string {
  return status === 200
    ? `${what} ${pathname}`
    : `${what} ${pathname} (answered ${status}: the page is not there yet, its ${status} page measured)`;
}

function expectOnly(load: Load, status: number, what: string): void {
  const other = Object.entries(load.statuses).filter(([code]) => Number(code) !== status);
  if (other.length > 0)
    throw new Error(`web: ${what}: unexpected statuses ${JSON.stringify(load.statuses)}`);
}

/**
 * The web app on the API process, in a process of its own as `npm start` runs it (the page limit
 * off), on TRAINS trains run every day for DAYS days by EMUS units:
 * (a) train pages never served before against the API's history of the same trains, never
 *     served before either (each from a process of its own, so that neither is served from
 *     what the other kept), CONNECTIONS at a time; (b) the same pages and API answers again;
 *     alternating rounds, each on trains of its own; each ratio the median of the rounds'.
 * (c) Lighthouse (mobile preset, Chromium with a CJK system font) on the home page, a train
 *     page and a unit page, the median of three runs; a page that is not there yet is measured
 *     as the 404 page it is, and labelled so.
 * (d) a first visit in Chromium on Lighthouse's mobile conditions: the page's HTML, CSS and JS
 *     on the wire, and whether the first contentful paint came before any script ran.
 */
export const webSuite: BenchSuite = {
  name: 'web',
  async run(ctx) {
    const rounds = ctx.quick ? 1 : 3;
    const perRound = ctx.quick ? 300 : 1_800;
    const warmup = 600;
    const runs = ctx.quick ? 1 : 3;
    const bench = await ctx.createDatabase();
    const lastDay = serviceDayOf(Math.floor(Date.now() / 1000)) - 1;
    ctx.log(`web: ${TRAINS} trains x ${DAYS} days by ${EMUS} units`);
    const { records } = await loadWebDataset(bench.db, lastDay);
    const quotaPrefix = `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`;
    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const redis = createQuotaRedis(ctx.redisUrl, config);
    // Pages and API answers from two processes of the app on the one database: in one process
    // the page and the API share the kept histories, so whichever of the two asked for a train
    // second was served from the first's read; the API's history, which is nothing but that
    // read, was then in effect served again (measured in one process: the API after the pages
    // 1,750/s, as fast as served again, and 888/s before them; the pages 592-595/s either way).
    const server = await startServer(['app', bench.url, ctx.redisUrl, quotaPrefix]);
    const apiServer = await startServer(['app', bench.url, ctx.redisUrl, `${quotaPrefix}api:`]);
    const tmp = await mkdtemp(path.join(tmpdir(), 'emutrack-web-bench-'));
    const rows: BenchRow[] = [
      {
        suite: 'web',
        metric: `dataset: ${TRAINS} trains x ${DAYS} days, ${EMUS} units`,
        value: records,
        unit: 'records',
      },
    ];
    try {
      // Trains in a seeded random order: the warm-up's first, then each round's own.
      const random = seededRandom(36);
      const order = Array.from({ length: TRAINS }, (_, i) => i + 1)
        .map((k) => ({ k, r: random() }))
        .sort((a, b) => a.r - b.r)
        .map(({ k }) => trainCode(k));
      if (warmup + rounds * perRound > order.length) throw new Error('web: too few trains');
      const page = (code: string) => `/train/${encodeURIComponent(code)}`;
      const api = (code: string) => `/api/v2/history/train/${encodeURIComponent(code)}`;

      const sample = order[0]!;
      const trainStatus = await probe(server.url + page(sample));
      const apiStatus = (await fetch(apiServer.url + api(sample), { headers: API_HEADERS })).status;
      if (apiStatus !== 200) throw new Error(`web: GET ${api(sample)}: ${apiStatus}`);
      const trainRow = pageLabel('train page', '/train/{code}', trainStatus);

      const warm = order.slice(1, warmup);
      await serveEach(server, warm.map(page), PAGE_HEADERS);
      await serveEach(apiServer, warm.map(api), API_HEADERS);

      const fresh: { page: number; api: number }[] = [];
      const again: { page: number; api: number }[] = [];
      for (let round = 0; round < rounds; round++) {
        const trains = order.slice(warmup + round * perRound, warmup + (round + 1) * perRound);
        ctx.log(`web: round ${round + 1} of ${rounds}: ${trains.length} trains`);
        const pages = () => serveEach(server, trains.map(page), PAGE_HEADERS);
        const apis = () => serveEach(apiServer, trains.map(api), API_HEADERS);
        const both = async () => {
          if (round % 2 === 0) {
            const p = await pages();
            return { p, a: await apis() };
          }
          const a = await apis();
          return { p: await pages(), a };
        };
        const first = await both();
        const second = await both();
        for (const [l, what] of [
          [first.p, 'train pages'],
          [second.p, 'train pages again'],
        ] as const) {
          expectOnly(l, trainStatus, what);
        }
        expectOnly(first.a, 200, 'train histories');
        expectOnly(second.a, 200, 'train histories again');
        fresh.push({ page: first.p.perSecond, api: first.a.perSecond });
        again.push({ page: second.p.perSecond, api: second.a.perSecond });
        const rate = (l: Load) =>
          `${Math.round(l.perSecond)}/s (CPU us/request: server ${Math.round(l.cpu.server)}, Postgres ${Math.round(l.cpu.postgres)}, client ${Math.round(l.cpu.self)})`;
        ctx.log(
          `web: round ${round + 1}: never served: pages ${rate(first.p)}, API ${rate(first.a)}; again: pages ${rate(second.p)}, API ${rate(second.a)}`,
        );
      }
      const of = `median of ${rounds}; ratio: median of the rounds'`;
      for (const [name, list, target] of [
        ['never served before', fresh, FRESH_TARGET],
        ['served again', again, AGAIN_TARGET],
      ] as const) {
        const ratio = median(list.map((r) => r.page / r.api));
        rows.push({
          suite: 'web',
          metric: `${trainRow}, random trains ${name}: throughput, ${CONNECTIONS} connections (${of}; reference: /api/v2/history/train/{code} for the same trains, ${name})`,
          value: Math.round(median(list.map((r) => r.page))),
          unit: 'req/s',
          reference: Math.round(median(list.map((r) => r.api))),
          ratio,
          target: `>= ${target}x the API`,
          pass: ratio >= target,
        });
      }

      // Lighthouse and the first visit: the pages as they are now.
      const env = { FONTCONFIG_FILE: await systemCjkFontConfig(tmp) };
      const emuPath = `/emu/${encodeURIComponent(emuCode(1))}`;
      const auditPages: { what: string; pathname: string; url: string }[] = [
        { what: 'home page', pathname: '/', url: `${server.url}/` },
        { what: 'train page', pathname: '/train/{code}', url: server.url + page(sample) },
        { what: 'unit page', pathname: '/emu/{code}', url: server.url + emuPath },
      ];
      const chrome = await chromeLauncher.launch({
        chromePath: CHROMIUM_PATH,
        chromeFlags: CHROME_FLAGS,
        envVars: { ...process.env, ...env } as Record<string, string>,
      });
      try {
        // A fresh Chromium's first audit pays for its own start (measured: performance 82 on
        // the home page, then 99 and 100): one run first, not counted.
        await audit(auditPages[0]!.url, chrome.port);
        for (const p of auditPages) {
          const status = await probe(p.url);
          const label = pageLabel(p.what, p.pathname, status);
          ctx.log(`web: lighthouse: ${label}, ${runs} run(s)`);
          const done: PageRun[] = [];
          for (let i = 0; i < runs; i++) {
            done.push(await audit(p.url, chrome.port, { ignoreStatusCode: status !== 200 }));
          }
          const middle = [...done].sort((a, b) => a.scores.performance! - b.scores.performance!)[
            Math.floor(done.length / 2)
          ]!;
          for (const [category, target] of LIGHTHOUSE_TARGETS) {
            const score = median(done.map((r) => r.scores[category]!));
            if (middle.failed[category]!.length > 0) {
              ctx.log(`web: lighthouse: ${label} ${category} not full: ${middle.failed[category]}`);
            }
            rows.push({
              suite: 'web',
              metric: `lighthouse, ${label}: ${category}${runs > 1 ? ` (median of ${runs})` : ''}`,
              value: score,
              unit: 'score',
              target: target === 100 ? '= 100' : `>= ${target}`,
              pass: score >= target,
            });
          }
        }
      } finally {
        chrome.kill();
      }

      const visited = auditPages.slice(0, 2);
      const visits = await firstVisits(
        visited.map((p) => p.url),
        runs,
        env,
      );
      for (const p of visited) {
        const v = visits.get(p.url)!;
        const label = pageLabel(p.what, p.pathname, await probe(p.url));
        const kb = Math.round((v.bytes / 1024) * 10) / 10;
        rows.push(
          {
            suite: 'web',
            metric: `first visit, ${label}: HTML+CSS+JS on the wire, headers included (content encodings: ${v.encodings.join(', ')}; median of ${runs})`,
            value: kb,
            unit: 'KiB',
            target: `<= ${FIRST_VISIT_TARGET_KB} KiB`,
            pass: kb <= FIRST_VISIT_TARGET_KB,
          },
          {
            suite: 'web',
            metric: `first visit, ${label}: first contentful paint rendered before the script's features ran (paint entry's paintTime against the features' first mark; slow 4G, CPU 4x; painted at ${Math.round(v.fcpMs)} ms, the script ran ${v.scriptMs.toFixed(1)} ms; medians)`,
            value: v.paintedFirst,
            unit: `of ${runs} runs`,
            target: `= ${runs}`,
            pass: v.paintedFirst === runs,
          },
        );
      }
      // After load, the worker's install fetches its own script and the assets' (cached then).
      rows.push({
        suite: 'web',
        metric: 'first visit, after load: the service worker script (br; gzip as reference)',
        value: Math.round(((await encodedBodyBytes(`${server.url}/sw.js`, 'br')) / 1024) * 10) / 10,
        unit: 'KiB',
        reference:
          Math.round(((await encodedBodyBytes(`${server.url}/sw.js`, 'gzip')) / 1024) * 10) / 10,
      });
      return rows;
    } finally {
      await Promise.all([server.stop(), apiServer.stop()]);
      await rm(tmp, { recursive: true, force: true });
      const left = await redis.keys(`${quotaPrefix}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await bench.drop();
    }
  },
};
