import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pinyin } from 'pinyin-pro';
import { buildApp } from '../../src/http/api/app.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { OUTPUT_FILES } from '../../src/generator/outputs.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { SearchService } from '../../src/domain/search/search-service.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import { benchApiConfig } from '../bench-api-config.js';
import { benchDataset } from '../bench-dataset.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';

const P99_TARGET_MS = 10;
/** Queries of each form in the mix. */
const PER_FORM = 40;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * GET /api/v2/search on the generated network (4,500 EMUs and their trains and stations, as the
 * pipeline suite's; --quick: 300): the fleet imported, the timetables and one day of sightings
 * ingested (so the units carry the forms they were written in). A mix of query forms in turn:
 * train numbers (lower case, paired), number prefixes, EMU codes (canonical, without dashes,
 * unit number), station names, name prefixes, full pinyin and initials. Measured through the
 * whole app (HTTP on a listening server, Redis quota), one request at a time, and the index alone
 * (SearchService.search in this process); the index's build is a row of its own.
 */
export const searchSuite: BenchSuite = {
  name: 'search',
  async run(ctx) {
    const emus = ctx.quick ? 300 : 4500;
    const requests = ctx.quick ? 400 : 4000;
    const dataset = await benchDataset({ emus, days: 1, seed: 1, log: ctx.log });
    const bench = await ctx.createDatabase();
    ctx.log(`search: importing ${emus} EMUs, their timetables and a day of sightings`);
    await importFleet(bench.db, path.join(dataset.dir, OUTPUT_FILES.fleet));
    await ingestTimetables(bench.db, path.join(dataset.dir, OUTPUT_FILES.timetables));
    await ingestObservations(bench.db, path.join(dataset.dir, dataset.manifest.files[0]!.path));

    const rows = async <T>(sql: string) => (await bench.db.query<T>(sql)).rows;
    const trains = await rows<{ code: string; all: string[] }>(
      `SELECT train_code AS code, all_codes AS all FROM timetables ORDER BY md5(train_code) LIMIT ${PER_FORM}`,
    );
    const units = await rows<{ code: string; no: string }>(
      `SELECT code, train_set_no AS no FROM emus ORDER BY md5(code) LIMIT ${PER_FORM}`,
    );
    const stations = await rows<{ name: string }>(
      `SELECT DISTINCT station_name AS name FROM timetable_stops ORDER BY 1 LIMIT ${PER_FORM}`,
    );
    const spell = (name: string, pattern: 'pinyin' | 'first') =>
      pinyin(name, { pattern, toneType: 'none', type: 'array' }).join('');
    const queries = [
      ...trains.map((t) => t.code.toLowerCase()),
      ...trains.map((t) =>
        t.all.length > 1 ? `${t.all[0]}/${t.all[1]!.slice(-2)}` : t.code.slice(0, 3),
      ),
      ...units.map((u) => u.code),
      ...units.map((u) => u.code.replace(/-/g, '')),
      ...units.map((u) => u.no),
      ...stations.map((s) => s.name),
      ...stations.map((s) => s.name.slice(0, 1)),
      ...stations.map((s) => spell(s.name, 'pinyin')),
      ...stations.map((s) => spell(s.name, 'first')),
    ];
    const paths = queries.map((q) => `/api/v2/search?q=${encodeURIComponent(q)}&limit=10`);

    // The index alone: its build, then searches in this process.
    const service = new SearchService(bench.db, { checkEveryMs: 60_000 });
    const buildStarted = performance.now();
    const index = await service.current();
    const buildMs = performance.now() - buildStarted;
    for (let i = 0; i < requests; i++) index.search(queries[i % queries.length]!, 10); // warm-up
    const inProcess: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      index.search(queries[i % queries.length]!, 10);
      inProcess.push(performance.now() - started);
    }
    inProcess.sort((a, b) => a - b);

    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const db = createPostgresDb({ connectionString: bench.url, max: config.PG_POOL_MAX });
    const redis = createQuotaRedis(ctx.redisUrl, config);
    const app = await buildApp({ db, config, logger: createLogger(config.LOG_LEVEL), redis });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const measure = async (count: number) => {
        const latencies: number[] = [];
        for (let i = 0; i < count; i++) {
          const url = paths[i % paths.length]!;
          const started = performance.now();
          const res = await fetch(base + url);
          const body = await res.text();
          latencies.push(performance.now() - started);
          if (res.status !== 200)
            throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 200)}`);
          const items = (JSON.parse(body) as { data: { items: unknown[] } }).data.items;
          if (items.length === 0) throw new Error(`GET ${url}: nothing found`);
        }
        return latencies.sort((a, b) => a - b);
      };
      ctx.log(
        `search: ${queries.length} queries of 9 forms; warming up, then ${requests} requests`,
      );
      await measure(Math.min(500, requests));
      const http = await measure(requests);
      const p99 = percentile(http, 99);
      const result: BenchRow[] = [
        {
          suite: 'search',
          metric: `index: ${index.size} entries (${emus} EMUs, their trains and stations), build`,
          value: round(buildMs),
          unit: 'ms',
        },
        {
          suite: 'search',
          metric: 'index alone, mixed query forms: p50',
          value: round(percentile(inProcess, 50)),
          unit: 'ms',
        },
        {
          suite: 'search',
          metric: 'index alone, mixed query forms: p99',
          value: round(percentile(inProcess, 99)),
          unit: 'ms',
        },
        {
          suite: 'search',
          metric: 'GET /api/v2/search, mixed query forms: p50',
          value: round(percentile(http, 50)),
          unit: 'ms',
        },
        {
          suite: 'search',
          metric: 'GET /api/v2/search, mixed query forms: p99',
          value: round(p99),
          unit: 'ms',
          target: `<= ${P99_TARGET_MS} ms`,
          pass: p99 <= P99_TARGET_MS,
        },
      ];
      return result;
    } finally {
      await app.close();
      redis.disconnect();
      await db.close();
      await bench.drop();
    }
  },
};
