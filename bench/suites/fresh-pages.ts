import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import {
  DAILY_RECORDS_PAGE_SQL,
  dailyRecordsPageParams,
} from '../../src/domain/records/read-daily-records.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import type { Queryable } from '../../src/shared/db/db.js';
import {
  MERGED_EMU_HISTORY_SQL,
  TRAIN_HISTORY_SQL,
  historyQueryParams,
} from '../../src/domain/history/read-history.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { benchApiConfig } from '../bench-api-config.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import {
  DAY_RECORDS,
  HISTORY_DAYS,
  freshPages,
  loadFreshPagesDataset,
  type FreshPage,
} from '../fresh-pages-data.js';
import { medianUs, perRequestUs, startCpuCount, totalUs, type CpuSpent } from '../cpu-time.js';
import { median } from '../repeat.js';
import { startServer } from './api.js';

const DATE = '20260810';
const CONNECTIONS = 10;
/**
 * Pages a connection is given per second of a round: more than one connection is ever served.
 * A day's pages: 1,000 per second (10,000 over the ten, above the app's never-served rate; a day
 * has 12,000 x 51 distinct pages). A history's: 3,000 (kept histories serve more than 10,000).
 */
const DAY_PAGES_PER_CONNECTION_SECOND = 1_000;
const HISTORY_PAGES_PER_CONNECTION_SECOND = 3_000;
/** Distinct pages drawn per scenario: the warm-up's and every round's lists, none asked twice. */
const pagesFor = (perConnectionSecond: number) =>
  5 + CONNECTIONS * perConnectionSecond * (2 + 5 * 5);
const RATIO_TARGET = 0.6;

interface Scenario {
  name: string;
  pages: FreshPage[];
  pagesPerConnectionSecond: number;
  /** The page's own SQL with the page's parameters. */
  sql(page: FreshPage): { text: string; params: unknown[] };
}

interface Load {
  perSecond: number;
  p99Ms: number;
  sent: number;
  failures: number;
  /** CPU per request (us): the app's process (0 for the floor), Postgres, this process. */
  cpu: CpuSpent;
}

/**
 * CONNECTIONS connections asking for pages never asked for before, for `seconds`: each
 * connection its own autocannon instance with its own list of distinct pages (`lists`), built
 * once before the clock starts. (A per-request hook handing out URLs made autocannon rebuild
 * every request, which cost the load generator, on the same two cores as the app, more than
 * twice the CPU per request of a fixed list.) A connection that came to the end of its list
 * would ask again for pages already served: that fails the run.
 */
async function loadApp(
  app: { url: string; pid: number },
  lists: readonly string[][],
  seconds: number,
): Promise<Load> {
  const spent = await startCpuCount(app.pid);
  const results = await Promise.all(
    lists.map((paths) =>
      autocannon({
        url: app.url,
        connections: 1,
        duration: seconds,
        requests: paths.map((path) => ({ method: 'GET', path })),
      }),
    ),
  );
  for (const [i, r] of results.entries()) {
    if (r.requests.sent > lists[i]!.length)
      throw new Error('fresh-pages: a connection ran out of pages');
  }
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const latencies = results.map((r) => r.latency.p99).sort((a, b) => a - b);
  return {
    perSecond: total / seconds,
    // The connections' p99s, the highest but one: a p99 of the whole load, near enough.
    p99Ms: latencies[Math.max(0, latencies.length - 2)] ?? 0,
    sent: results.reduce((sum, r) => sum + r.requests.sent, 0),
    failures: results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    cpu: perRequestUs(await spent(), total),
  };
}

/** The floor: the pages' SQL, CONNECTIONS at a time through a pool like the app's, for `seconds`. */
async function loadSql(
  db: Queryable,
  scenario: Scenario,
  seconds: number,
  start: number,
): Promise<Load> {
  let next = start;
  let done = 0;
  const latencies: number[] = [];
  const spent = await startCpuCount();
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const page = scenario.pages[next++ % scenario.pages.length]!;
        const { text, params } = scenario.sql(page);
        const started = performance.now();
        const r = await db.query(text, params);
        latencies.push(performance.now() - started);
        if (r.rows.length === 0) throw new Error(`no rows for ${page.url}`);
        done++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: done / seconds,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    sent: done,
    failures: 0,
    cpu: perRequestUs(await spent(), done),
  };
}

/**
 * Pages never served before, as a client paging from a random cursor with a random limit
 * (150-200) asks for them: every request a new (key, cursor, limit), so no cache of answers can
 * help, only the render. GET /records/daily over a day of 12,000 records, and the EMU and train
 * histories (100 of each, 1,000 records each), through the whole app in a process of its own
 * (as the api suite runs it: Postgres pool of PG_POOL_MAX, quota in Redis, envelope), against
 * their floor measured in the same run: the page's own SQL with the same parameters, run
 * CONNECTIONS at a time through a pool of the same size in this process (no HTTP, no render).
 * Alternating rounds; each ratio is the median of the rounds' ratios.
 */
export const freshPagesSuite: BenchSuite = {
  name: 'fresh-pages',
  async run(ctx) {
    const seconds = ctx.quick ? 2 : 5;
    const rounds = ctx.quick ? 1 : 5;
    const bench = await ctx.createDatabase();
    const serviceDay = serviceDayFromYmd(DATE);
    ctx.log(`fresh-pages: a day of ${DAY_RECORDS} records, histories of ${HISTORY_DAYS}`);
    const data = await loadFreshPagesDataset(bench.db, serviceDay);
    const dayCursors = data.dayIds.map((id) => `${serviceDay}:${id}`).reverse();
    const scenarios: Scenario[] = [
      {
        name: 'records/daily',
        pages: freshPages(
          [{ path: `/api/v2/records/daily?date=${DATE}`, key: serviceDay, cursors: dayCursors }],
          pagesFor(DAY_PAGES_PER_CONNECTION_SECOND),
          1,
        ),
        pagesPerConnectionSecond: DAY_PAGES_PER_CONNECTION_SECOND,
        sql: (p) => ({
          text: DAILY_RECORDS_PAGE_SQL,
          params: dailyRecordsPageParams(serviceDay, p.limit, Number(p.cursor.split(':')[1])),
        }),
      },
      {
        name: 'history by EMU',
        pages: freshPages(
          data.emus.map((e) => ({ path: `/api/v2/history/emu/${e.code}`, ...e, key: e.id })),
          pagesFor(HISTORY_PAGES_PER_CONNECTION_SECOND),
          2,
        ),
        pagesPerConnectionSecond: HISTORY_PAGES_PER_CONNECTION_SECOND,
        sql: (p) => ({ text: MERGED_EMU_HISTORY_SQL, params: historyParams(p) }),
      },
      {
        name: 'history by train',
        pages: freshPages(
          data.trains.map((t) => ({ path: `/api/v2/history/train/${t.code}`, ...t, key: t.code })),
          pagesFor(HISTORY_PAGES_PER_CONNECTION_SECOND),
          3,
        ),
        pagesPerConnectionSecond: HISTORY_PAGES_PER_CONNECTION_SECOND,
        sql: (p) => ({ text: TRAIN_HISTORY_SQL, params: historyParams(p) }),
      },
    ];

    const quotaPrefix = `emutrack-bench:${randomBytes(4).toString('hex')}:quota:`;
    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const redis = createQuotaRedis(ctx.redisUrl, config);
    const pool = createPostgresDb({ connectionString: bench.url, max: config.PG_POOL_MAX });
    const app = await startServer(['app', bench.url, ctx.redisUrl, quotaPrefix]);
    const rows: BenchRow[] = [];
    try {
      for (const s of scenarios) {
        for (const page of s.pages.slice(0, 5)) {
          const res = await fetch(app.url + page.url);
          const body = (await res.json()) as { data?: { items: unknown[] } };
          if (res.status !== 200 || body.data?.items.length !== page.limit) {
            throw new Error(`GET ${page.url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          }
        }
        let next = 5;
        const appLoad = async (secs: number) => {
          const perConnection = secs * s.pagesPerConnectionSecond;
          const lists = Array.from({ length: CONNECTIONS }, () => {
            const paths = s.pages.slice(next, next + perConnection).map((p) => p.url);
            next += perConnection;
            if (paths.length < perConnection) throw new Error('fresh-pages: out of pages');
            return paths;
          });
          const l = await loadApp(app, lists, secs);
          if (l.failures > 0) throw new Error(`${s.name}: ${l.failures} failures under load`);
          return l;
        };
        ctx.log(`fresh-pages: ${s.name}: warming up, then ${rounds} x ${seconds} s alternating`);
        await appLoad(2);
        await loadSql(pool, s, 2, 0);
        const appRounds: Load[] = [];
        const sqlRounds: Load[] = [];
        for (let round = 0; round < rounds; round++) {
          const sqlLoad = () => loadSql(pool, s, seconds, round * 50_000);
          if (round % 2 === 0) {
            sqlRounds.push(await sqlLoad());
            appRounds.push(await appLoad(seconds));
          } else {
            appRounds.push(await appLoad(seconds));
            sqlRounds.push(await sqlLoad());
          }
        }
        const appRate = median(appRounds.map((l) => l.perSecond));
        const sqlRate = median(sqlRounds.map((l) => l.perSecond));
        const ratio = median(appRounds.map((l, r) => l.perSecond / sqlRounds[r]!.perSecond));
        const of = `median of ${rounds}; ratio: median of the rounds' ratios`;
        rows.push(
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages (random cursor, limit 150-200): throughput (${of}; reference: its SQL alone)`,
            value: Math.round(appRate),
            unit: 'req/s',
            reference: Math.round(sqlRate),
            ratio,
            target: `>= ${RATIO_TARGET}x its SQL`,
            pass: ratio >= RATIO_TARGET,
          },
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages: p99 latency (median of ${rounds}; reference: its SQL alone)`,
            value: median(appRounds.map((l) => l.p99Ms)),
            unit: 'ms',
            reference: Math.round(median(sqlRounds.map((l) => l.p99Ms)) * 100) / 100,
          },
          // What bounds the ratio when the cores run out (cpu-time.ts): a request's CPU in
          // Postgres and in the load generator alone, against all the CPU of the floor's query.
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages: CPU per request of the API process, us (median of ${rounds})`,
            value: medianUs(appRounds, (c) => c.server),
            unit: 'us',
          },
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages: CPU per request of Postgres, us (median of ${rounds}; reference: per query of the floor)`,
            value: medianUs(appRounds, (c) => c.postgres),
            unit: 'us',
            reference: medianUs(sqlRounds, (c) => c.postgres),
          },
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages: CPU per request, API + Postgres + load generator, us (median of ${rounds}; reference: the floor's Postgres + client)`,
            value: medianUs(appRounds, totalUs),
            unit: 'us',
            reference: medianUs(sqlRounds, totalUs),
            ratio: median(appRounds.map((l, r) => totalUs(sqlRounds[r]!.cpu) / totalUs(l.cpu))),
          },
          {
            suite: 'fresh-pages',
            metric: `${s.name}, never-served pages: CPU per request without the API process, Postgres + load generator, us (median of ${rounds}; reference: the floor's Postgres + client)`,
            value: medianUs(appRounds, (c) => c.postgres + c.self),
            unit: 'us',
            reference: medianUs(sqlRounds, totalUs),
            ratio: median(
              appRounds.map((l, r) => totalUs(sqlRounds[r]!.cpu) / (l.cpu.postgres + l.cpu.self)),
            ),
          },
        );
      }
      return rows;
    } finally {
      await app.stop();
      const left = await redis.keys(`${quotaPrefix}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await pool.close();
      await bench.drop();
    }
  },
};

function historyParams(page: FreshPage): unknown[] {
  const [day, id] = page.cursor.split(':').map(Number) as [number, number];
  return historyQueryParams(page.key, {
    limit: page.limit,
    before: { serviceDay: day, id },
  });
}
