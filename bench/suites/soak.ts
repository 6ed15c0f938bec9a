import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { AUTH_ME_SCOPE } from '../../src/domain/accounts/scopes.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { API_NODE_FLAGS } from './api.js';
import { HUB, loadHistoryDataset } from '../history-data.js';

const FIRST_DAY = '20260801';
const DAYS = 14;

/** One route of the mixed load: its share of the fixed rate and the requests it cycles through. */
interface RouteLoad {
  name: string;
  rate: number;
  paths: string[];
  headers?: Record<string, string>;
}

interface RouteResult {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  fivexx: number;
  errors: number;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function startServer(args: string[]) {
  const entry = fileURLToPath(new URL('./soak-server-child.js', import.meta.url));
  const child = spawn(process.execPath, [...API_NODE_FLAGS, entry, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error('soak server exited before listening')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function run(url: string, route: RouteLoad, seconds: number): Promise<RouteResult> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        duration: seconds,
        // One connection per request a second: the rate holds even when answers take a second.
        connections: Math.max(4, route.rate),
        overallRate: route.rate,
        requests: route.paths.map((path) => ({
          method: 'GET' as const,
          path,
          ...(route.headers && { headers: route.headers }),
        })),
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({
          name: route.name,
          requests: r.requests.total,
          p50: r.latency.p50,
          p99: r.latency.p99,
          fivexx: r['5xx'],
          errors: r.errors + r.timeouts,
        });
      },
    );
  });
}

/**
 * Soak: a mixed load at a fixed rate (autocannon's overallRate per route, so a slow answer does
 * not lower the load) on the whole API in a process of its own, for 10 minutes (30 s with
 * --quick): daily records, train and EMU histories, the hub's station board, the export index
 * and a day's CSV, and auth/me with an API key, on 14 days of a 12,000-train network. Reported:
 * 5xx answers (target 0), p99 per route, and the API process's RSS growth from the end of the
 * warm-up (the first fifth) to the end (target < 10%), RSS sampled every 5 s. Not part of the
 * default run (bench --only soak): it takes ten minutes.
 */
export const soakSuite: BenchSuite = {
  name: 'soak',
  async run(ctx) {
    const seconds = ctx.quick ? 30 : 600;
    const bench = await ctx.createDatabase();
    try {
      const first = serviceDayFromYmd(FIRST_DAY);
      ctx.log(`soak: loading ${DAYS} days of a 12,000-train network`);
      await loadHistoryDataset(bench.url, first, DAYS);
      for (let d = first; d < first + DAYS; d++) await renderDailyExport(bench.db, d);
      const user = await createUser(bench.db, {
        username: 'soak',
        password: 'soak soak soak soak',
      });
      const { secret } = await issueCredential(bench.db, {
        userId: user.userId,
        issuer: 'api',
        scopes: [AUTH_ME_SCOPE],
        dailyTokenLimit: 2_000_000_000,
      });
      const days = Array.from({ length: DAYS }, (_, i) => ymdOfServiceDay(first + i));
      const routes: RouteLoad[] = [
        {
          name: 'records/daily',
          rate: 40,
          paths: days.map((d) => `/api/v2/records/daily?date=${d}&limit=200`),
        },
        {
          name: 'history/train',
          rate: 30,
          paths: ['G1', 'D2', 'C3', 'G100', 'D1001'].map((t) => `/api/v2/history/train/${t}`),
        },
        {
          name: 'history/emu',
          rate: 30,
          paths: ['CR400AF-0008', 'CR400BF-0001', 'CRH2A-0004'].map(
            (e) => `/api/v2/history/emu/${e}`,
          ),
        },
        {
          name: 'timetable/station',
          rate: 20,
          paths: [`/api/v2/timetable/station/${encodeURIComponent(HUB)}?limit=50`],
        },
        { name: 'exports/daily (index)', rate: 10, paths: ['/api/v2/exports/daily'] },
        {
          name: 'exports/daily/{date}',
          rate: 5,
          paths: days.map((d) => `/api/v2/exports/daily/${d}`),
        },
        {
          name: 'auth/me',
          rate: 20,
          paths: ['/api/v2/auth/me'],
          headers: { authorization: `Bearer ${secret}` },
        },
      ];
      const server = await startServer([
        bench.url,
        ctx.redisUrl,
        `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`,
      ]);
      try {
        for (const route of routes) {
          const res = await fetch(server.url + route.paths[0]!, { headers: route.headers ?? {} });
          if (res.status !== 200) {
            throw new Error(`soak: ${route.paths[0]} answered ${res.status}: ${await res.text()}`);
          }
        }
        const total = routes.reduce((n, r) => n + r.rate, 0);
        ctx.log(`soak: ${total} req/s over ${routes.length} routes for ${seconds} s`);
        const samples: { at: number; rss: number }[] = [];
        const started = Date.now();
        const sampler = setInterval(() => {
          void rssMb(server.pid).then((rss) => samples.push({ at: Date.now() - started, rss }));
        }, 5_000);
        let results: RouteResult[];
        try {
          results = await Promise.all(routes.map((r) => run(server.url, r, seconds)));
        } finally {
          clearInterval(sampler);
        }
        const end = await rssMb(server.pid);
        const warm =
          samples.find((s) => s.at >= (seconds * 1000) / 5)?.rss ?? samples[0]?.rss ?? end;
        const growth = (end - warm) / warm;
        const fivexx = results.reduce((n, r) => n + r.fivexx + r.errors, 0);
        const row = (x: Omit<BenchRow, 'suite'>): BenchRow => ({ suite: 'soak', ...x });
        return [
          row({
            metric: `5xx and connection errors over ${seconds} s at ${total} req/s (${results.reduce((n, r) => n + r.requests, 0)} requests)`,
            value: fivexx,
            unit: 'answers',
            target: '0',
            pass: fivexx === 0,
          }),
          ...results.map((r) =>
            row({
              metric: `p99 ${r.name} (${r.requests} requests; p50 ${r.p50} ms)`,
              value: r.p99,
              unit: 'ms',
            }),
          ),
          row({
            metric: 'API process RSS growth after warm-up (end vs. end of the first fifth)',
            value: Math.round(growth * 1000) / 10,
            unit: '%',
            reference: Math.round(warm),
            target: '< 10% (reference: RSS after warm-up, MB)',
            pass: growth < 0.1,
          }),
          row({ metric: 'API process RSS at the end', value: Math.round(end), unit: 'MB' }),
        ];
      } finally {
        await server.stop();
      }
    } finally {
      await bench.drop();
    }
  },
};
