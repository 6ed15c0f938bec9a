import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { issueCredential } from '../../src/domain/accounts/credentials.js';
import { scopesOfRole } from '../../src/domain/accounts/scopes.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { benchApiConfig } from '../bench-api-config.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { medianUs, perRequestUs, startCpuCount, totalUs, type CpuSpent } from '../cpu-time.js';
import { median } from '../repeat.js';

/** The API process's V8 flags, as `npm start` and docker-compose give them. */
export const API_NODE_FLAGS = ['--max-semi-space-size=4', '--max-old-space-size=512'];

const DATE = '20260810';
const RECORDS = 12_000;
const EMUS = 4_500;
const PATH = `/api/v2/records/daily?date=${DATE}&limit=200`;

interface Load {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU per request (us) of the server, Postgres and the load generator (this process). */
  cpu: CpuSpent;
}

/**
 * Load from a worker thread (autocannon's `workers`), so that the load generator does not share
 * the servers' event loop; the servers run in this process.
 */
async function load(
  server: ServerChild,
  url: string,
  seconds: number,
  connections: number,
  paths?: string[],
  headers?: Record<string, string>,
): Promise<Load> {
  const spent = await startCpuCount(server.pid);
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    ...(headers ? { headers } : {}),
    // Each connection walks through these requests in turn, and starts over.
    ...(paths ? { requests: paths.map((path) => ({ method: 'GET' as const, path })) } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: perRequestUs(await spent(), result.requests.total),
  };
}

/** A server child (bench/api-server-child.ts) and its pid, for /proc. */
interface ServerChild {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startServer(args: string[]): Promise<ServerChild> {
  const entry = fileURLToPath(new URL('../api-server-child.js', import.meta.url));
  // The app runs with the flags of `npm start` (README, Performance); the bare route with none.
  const flags =
    args[0] === 'app'
      ? [
          ...API_NODE_FLAGS,
          ...(process.env.BENCH_PROFILE_DIR
            ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
            : []),
        ]
      : [];
  const child = spawn(process.execPath, [...flags, entry, ...args], {
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
    void exited.then(() => reject(new Error(`server child (${args[0]}) exited before listening`)));
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

/** VmRSS and VmHWM of a process, in MB. */
async function rssOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * GET /records/daily?limit=200 on a day of 12,000 records, through the whole app (Postgres pool
 * of PG_POOL_MAX connections, quota script in Redis, envelope, serialisation, the page cache;
 * request logging at warn, i.e. none) in a process of its own, against a bare Fastify route in
 * another that sends a constant payload of the same size. Each connection pages through the
 * whole day (60 pages, each cursor as the previous page's nextCursor), over and over. Five
 * alternating rounds (a burst of other load on the machine hits both), medians reported. The
 * first request of each page after the day's version moved (what a rebuild does) is measured
 * on its own: that is the uncached cost. The API process's RSS is read after the load.
 */
export const apiSuite: BenchSuite = {
  name: 'api',
  async run(ctx) {
    const seconds = ctx.quick ? 2 : 6;
    const rounds = ctx.quick ? 1 : 5;
    const connections = 10;
    const bench = await ctx.createDatabase();
    const serviceDay = serviceDayFromYmd(DATE);
    await bench.db.query(
      `INSERT INTO emus (code, model, train_set_no, registered_by)
       SELECT 'CR400AF-' || (2000 + g), 'CR400AF', (2000 + g)::text, 'fleet'
         FROM generate_series(1, $1::int) g`,
      [EMUS],
    );
    await bench.db.query(
      `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                  first_observed_at, last_observed_at, status)
       SELECT $1, 'G' || (1000 + g), 1 + (g * 7919) % $3, 1 + g % 3, '{crowd}', 0, 0,
              CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END
         FROM generate_series(1, $2::int) g`,
      [serviceDay, RECORDS, EMUS],
    );
    await bench.db.query('ANALYZE emus');
    await bench.db.query('ANALYZE daily_records');

    const quotaPrefix = `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`;
    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const redis = createQuotaRedis(ctx.redisUrl, config);
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'emutrack-bench-api-'));
    const servers: ServerChild[] = [];
    try {
      const app = await startServer(['app', bench.url, ctx.redisUrl, quotaPrefix]);
      servers.push(app);
      const sample = await fetch(app.url + PATH);
      const payload = await sample.text();
      if (sample.status !== 200 || JSON.parse(payload).data.items.length !== 200) {
        throw new Error(`unexpected sample response ${sample.status}: ${payload.slice(0, 200)}`);
      }
      const pages = [PATH];
      for (let next = JSON.parse(payload).data.nextCursor as string; next !== '';) {
        const path = `${PATH}&cursor=${encodeURIComponent(next)}`;
        pages.push(path);
        next = ((await (await fetch(app.url + path)).json()) as { data: { nextCursor: string } })
          .data.nextCursor;
      }
      if (pages.length !== RECORDS / 200) throw new Error(`expected 60 pages, got ${pages.length}`);
      const payloadFile = path.join(tmp, 'payload.json');
      await writeFile(payloadFile, payload);
      const bare = await startServer(['bare', payloadFile]);
      servers.push(bare);

      // The first request of each page once the day's version has moved, one at a time.
      ctx.log('api: first (uncached) request of each page after a version change');
      const firstMs: number[] = [];
      for (const page of pages) {
        // As a build that changes the day does it (its trigger moves the day's data version).
        await bench.db.query(
          `INSERT INTO daily_record_builds AS b (service_day, version, inputs) VALUES ($1, 1, 'bench')
           ON CONFLICT (service_day) DO UPDATE SET version = b.version + 1`,
          [serviceDay],
        );
        const started = performance.now();
        const res = await fetch(app.url + page);
        await res.text();
        firstMs.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`GET ${page}: ${res.status}`);
      }

      // The same pages with an API key: authentication, the per-user bucket and the
      // key's daily limit in the one quota script.
      const owner = await createUser(bench.db, { username: 'bench', password: 'bench-password' });
      const { secret } = await issueCredential(bench.db, {
        userId: owner.userId,
        issuer: 'api',
        scopes: scopesOfRole('user'),
        dailyTokenLimit: 2 ** 31 - 1,
      });
      const withKey = { authorization: `Bearer ${secret}` };

      ctx.log(`api: ${RECORDS} records, payload ${payload.length} bytes; warming up`);
      await load(app, app.url, 2, connections, pages);
      await load(app, app.url, 2, connections, pages, withKey);
      await load(bare, bare.url + '/bare', 2, connections);
      ctx.log(`api: ${rounds} x ${seconds} s each, alternating, ${connections} connections`);
      const apiRounds: Load[] = [];
      const bareRounds: Load[] = [];
      const keyRounds: Load[] = [];
      // The anonymous load runs between the other two in every round (bare first in even rounds,
      // the key first in odd ones), and each ratio is the median of the rounds' own ratios: a
      // burst of other load on this shared machine moves a round's two figures together.
      for (let round = 0; round < rounds; round++) {
        const bareLoad = () => load(bare, bare.url + '/bare', seconds, connections);
        const keyLoad = () => load(app, app.url, seconds, connections, pages, withKey);
        const [first, last] = round % 2 === 0 ? [bareLoad, keyLoad] : [keyLoad, bareLoad];
        const a = await first();
        apiRounds.push(await load(app, app.url, seconds, connections, pages));
        const b = await last();
        bareRounds.push(round % 2 === 0 ? a : b);
        keyRounds.push(round % 2 === 0 ? b : a);
      }
      const failures = [...apiRounds, ...keyRounds].reduce((n, l) => n + l.non2xx + l.errors, 0);
      if (failures > 0) throw new Error(`records/daily under load: ${failures} failures`);
      const apiRate = median(apiRounds.map((l) => l.requestsPerSecond));
      const bareRate = median(bareRounds.map((l) => l.requestsPerSecond));
      const keyRate = median(keyRounds.map((l) => l.requestsPerSecond));
      const apiP99 = median(apiRounds.map((l) => l.p99Ms));
      const bareP99 = median(bareRounds.map((l) => l.p99Ms));
      const memory = await rssOf(app.pid);
      const ratio = median(
        apiRounds.map((l, i) => l.requestsPerSecond / bareRounds[i]!.requestsPerSecond),
      );
      const keyRatio = median(
        keyRounds.map((l, i) => l.requestsPerSecond / apiRounds[i]!.requestsPerSecond),
      );
      const of = `median of ${rounds}; ratio: median of the rounds' ratios`;
      const row = (x: Omit<BenchRow, 'suite'>): BenchRow => ({ suite: 'api', ...x });
      const cpuRatio = (part: (cpu: CpuSpent) => number) =>
        median(apiRounds.map((l, i) => part(bareRounds[i]!.cpu) / part(l.cpu)));
      return [
        row({
          metric: `records/daily limit=200, paging a 12k-record day: throughput (${of})`,
          value: Math.round(apiRate),
          unit: 'req/s',
          reference: Math.round(bareRate),
          ratio,
          target: '>= 4,000 req/s, >= 0.3x bare',
          pass: apiRate >= 4_000 && ratio >= 0.3,
        }),
        row({
          metric: `records/daily limit=200 with a bearer API key: throughput (${of}; reference: anonymous)`,
          value: Math.round(keyRate),
          unit: 'req/s',
          reference: Math.round(apiRate),
          ratio: keyRatio,
          target: '>= 0.9x anonymous',
          pass: keyRatio >= 0.9,
        }),
        row({
          metric: `records/daily limit=200, paging a 12k-record day: p99 latency (${of})`,
          value: apiP99,
          unit: 'ms',
          reference: bareP99,
          // autocannon measures whole milliseconds: a bare p99 of 0 ms gives no ratio.
          ratio: apiP99 > 0 && bareP99 > 0 ? bareP99 / apiP99 : undefined,
          target: '<= 10 ms',
          pass: apiP99 <= 10,
        }),
        row({
          metric: 'records/daily first request of a page after its day changed (median of 60)',
          value: Math.round(median(firstMs) * 100) / 100,
          unit: 'ms',
        }),
        row({
          metric: 'records/daily first request of a page after its day changed (slowest of 60)',
          value: Math.round(Math.max(...firstMs) * 100) / 100,
          unit: 'ms',
        }),
        row({
          metric: `bare Fastify route, same ${payload.length}-byte payload: throughput (${of})`,
          value: Math.round(bareRate),
          unit: 'req/s',
        }),
        row({
          metric: `bare Fastify route, same payload: p99 latency (${of})`,
          value: bareP99,
          unit: 'ms',
        }),
        // Why the throughput ratio is what it is: the machine's cores run the load generator,
        // the server and Postgres, so when they are all busy the throughput ratio can be no
        // better than the ratio of what a request costs them all (see cpu-time.ts).
        row({
          metric: `records/daily repeated pages: CPU per request of the app's process, us (${of}; reference: the bare route's)`,
          value: medianUs(apiRounds, (c) => c.server),
          unit: 'us',
          reference: medianUs(bareRounds, (c) => c.server),
          ratio: cpuRatio((c) => c.server),
        }),
        row({
          metric: `records/daily repeated pages: CPU per request, app + Postgres + load generator, us (${of}; reference: bare route + load generator)`,
          value: medianUs(apiRounds, totalUs),
          unit: 'us',
          reference: medianUs(bareRounds, totalUs),
          ratio: cpuRatio(totalUs),
        }),
        row({
          metric: 'API process RSS after the load (peak in brackets as reference)',
          value: Math.round(memory.rss),
          unit: 'MB',
          reference: Math.round(memory.peak),
          target: '< 200 MB',
          pass: memory.rss < 200,
        }),
      ];
    } finally {
      for (const server of servers.reverse()) await server.stop();
      const left = await redis.keys(`${quotaPrefix}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await rm(tmp, { recursive: true, force: true });
      await bench.drop();
    }
  },
};
