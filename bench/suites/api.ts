import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { createPostgresDb } from '../../src/db/postgres-db.js';
import { createLogger } from '../../src/log/logger.js';
import { createQuotaRedis } from '../../src/quota/create-quota-store.js';
import { serviceDayFromYmd } from '../../src/time/service-day.js';
import { benchApiConfig } from '../bench-api-config.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';

const DATE = '20260810';
const RECORDS = 12_000;
const EMUS = 4_500;
const PATH = `/api/v2/records/daily?date=${DATE}&limit=200`;

interface Load {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/**
 * Load from a worker thread (autocannon's `workers`), so that the load generator does not share
 * the servers' event loop; the servers run in this process.
 */
async function load(
  url: string,
  seconds: number,
  connections: number,
  paths?: string[],
): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    // Each connection walks through these requests in turn, and starts over.
    ...(paths ? { requests: paths.map((path) => ({ method: 'GET' as const, path })) } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Mean throughput, worst p99, all failures of several rounds. */
function combine(loads: Load[]): Load {
  return {
    requestsPerSecond: loads.reduce((sum, l) => sum + l.requestsPerSecond, 0) / loads.length,
    p99Ms: Math.max(...loads.map((l) => l.p99Ms)),
    non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
    errors: loads.reduce((sum, l) => sum + l.errors, 0),
  };
}

/**
 * GET /records/daily?limit=200 on a day of 12,000 records, through the whole app (Postgres pool
 * of PG_POOL_MAX connections, quota script in Redis, envelope, serialisation; request logging at
 * warn, i.e. none), against a bare Fastify route that sends a constant payload of the same size
 * from the same process. Each connection pages through the whole day (60 pages, each cursor as
 * the previous page's nextCursor), over and over.
 */
export const apiSuite: BenchSuite = {
  name: 'api',
  async run(ctx) {
    const seconds = ctx.quick ? 2 : 6;
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

    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const db = createPostgresDb({ connectionString: bench.url, max: config.PG_POOL_MAX });
    const redis = createQuotaRedis(ctx.redisUrl, config);
    const app = await buildApp({ db, config, logger: createLogger(config.LOG_LEVEL), redis });
    const bare = Fastify();
    try {
      await new Promise<void>((resolve, reject) => {
        if (redis.status === 'ready') resolve();
        redis.once('ready', resolve);
        redis.once('error', reject);
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const sample = await fetch(appUrl + PATH);
      const payload = await sample.text();
      if (sample.status !== 200 || JSON.parse(payload).data.items.length !== 200) {
        throw new Error(`unexpected sample response ${sample.status}: ${payload.slice(0, 200)}`);
      }
      const pages = [PATH];
      for (let next = JSON.parse(payload).data.nextCursor as string; next !== '';) {
        const path = `${PATH}&cursor=${encodeURIComponent(next)}`;
        pages.push(path);
        next = ((await (await fetch(appUrl + path)).json()) as { data: { nextCursor: string } })
          .data.nextCursor;
      }
      if (pages.length !== RECORDS / 200) throw new Error(`expected 60 pages, got ${pages.length}`);
      bare.get('/bare', (_request, reply) => {
        reply.header('content-type', 'application/json; charset=utf-8').send(payload);
      });
      await bare.listen({ host: '127.0.0.1', port: 0 });
      const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`;

      ctx.log(`api: ${RECORDS} records, payload ${payload.length} bytes; warming up`);
      await load(appUrl, 2, connections, pages);
      await load(bareUrl, 2, connections);
      // Two alternating rounds, so that a burst of other load on the machine hits both routes.
      ctx.log(`api: 2 x ${seconds} s each, alternating, ${connections} connections`);
      const rounds: [Load, Load][] = [];
      for (let round = 0; round < 2; round++) {
        rounds.push([
          await load(appUrl, seconds, connections, pages),
          await load(bareUrl, seconds, connections),
        ]);
      }
      const api = combine(rounds.map((r) => r[0]));
      const ref = combine(rounds.map((r) => r[1]));
      if (api.non2xx > 0 || api.errors > 0) {
        throw new Error(`records/daily under load: ${api.non2xx} non-2xx, ${api.errors} errors`);
      }
      const ratio = api.requestsPerSecond / ref.requestsPerSecond;
      const rows: BenchRow[] = [
        {
          suite: 'api',
          metric: 'records/daily limit=200, paging a 12k-record day: throughput',
          value: Math.round(api.requestsPerSecond),
          unit: 'req/s',
          reference: Math.round(ref.requestsPerSecond),
          ratio,
          target: '>= 3,000 req/s, >= 0.30x bare',
          pass: api.requestsPerSecond >= 3_000 && ratio >= 0.3,
        },
        {
          suite: 'api',
          metric: 'records/daily limit=200, paging a 12k-record day: p99 latency',
          value: api.p99Ms,
          unit: 'ms',
          reference: ref.p99Ms,
          // autocannon measures whole milliseconds: a bare p99 of 0 ms gives no ratio.
          ratio: api.p99Ms > 0 && ref.p99Ms > 0 ? ref.p99Ms / api.p99Ms : undefined,
          target: '<= 25 ms',
          pass: api.p99Ms <= 25,
        },
        {
          suite: 'api',
          metric: `bare Fastify route, same ${payload.length}-byte payload: throughput`,
          value: Math.round(ref.requestsPerSecond),
          unit: 'req/s',
        },
        {
          suite: 'api',
          metric: 'bare Fastify route, same payload: p99 latency',
          value: ref.p99Ms,
          unit: 'ms',
        },
      ];
      return rows;
    } finally {
      await bare.close();
      await app.close();
      const left = await redis.keys(`${config.QUOTA_KEY_PREFIX}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await db.close();
      await bench.drop();
    }
  },
};
