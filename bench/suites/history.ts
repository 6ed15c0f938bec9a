import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/http/api/app.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { refreshReferenceModels } from '../../src/domain/records/reference-models.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { stationBoard } from '../../src/domain/timetables/station-board.js';
import { benchApiConfig } from '../bench-api-config.js';
import type { BenchRow, BenchSuite } from '../bench-types.js';
import { DAYS, EMUS, HUB, HUB_TRAINS, TRAINS, loadHistoryDataset } from '../history-data.js';

/** Page size (the maximum); a --quick run's few days hold too few records for it: 20. */
const LIMIT = 200;
const QUICK_LIMIT = 20;
/** Keys (EMUs, trains) each scenario cycles through, so that no single page is measured. */
const KEYS = 200;
/** A deep page starts after this many records of the history (of ~975 per EMU, ~365 per train). */
const EMU_DEEP_OFFSET = { full: 700, quick: 40 };
const TRAIN_DEEP_OFFSET = { full: 160, quick: 5 };
const P99_TARGET_MS = 20;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Sequential GETs (one at a time, keep-alive) cycling through `paths`: the latency of each,
 * from sending the request to the last byte of the body. Every answer must be a 200 whose page
 * holds `expectItems(path)` items.
 */
async function measure(
  base: string,
  paths: readonly string[],
  requests: number,
  expectItems: (path: string) => number,
  before?: () => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const path = paths[i % paths.length]!;
    if (before) await before();
    const started = performance.now();
    const res = await fetch(base + path);
    const body = await res.text();
    latencies.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${body.slice(0, 200)}`);
    const items = (JSON.parse(body) as { data: { items: unknown[] } }).data.items.length;
    if (items !== expectItems(path)) {
      throw new Error(`GET ${path}: ${items} items, expected ${expectItems(path)}`);
    }
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * The read API's large queries on a year of a national network: history by EMU and by train
 * (first page and a page deep into the cursor, 200 records each) and the timetable of a station
 * 600 trains call at (its three pages of 200 in turn; the app keeps a board while the timetable
 * coverage does not change, so it is measured both kept and read again for every request, and
 * the board read whole, as a station's first in a process, by the query alone),
 * through the whole app (HTTP on a listening server, Redis quota, Postgres pool), one request at
 * a time. Records, timetables and stops are generated in SQL for every run
 * (bench/history-data.ts).
 */
export const historySuite: BenchSuite = {
  name: 'history',
  async run(ctx) {
    const days = ctx.quick ? 30 : DAYS;
    const requests = ctx.quick ? 200 : 1_000;
    const limit = ctx.quick ? QUICK_LIMIT : LIMIT;
    const emuOffset = ctx.quick ? EMU_DEEP_OFFSET.quick : EMU_DEEP_OFFSET.full;
    const trainOffset = ctx.quick ? TRAIN_DEEP_OFFSET.quick : TRAIN_DEEP_OFFSET.full;
    const bench = await ctx.createDatabase();
    const firstDay = serviceDayFromYmd('20250101');
    ctx.log(`history: generating ${EMUS} EMUs x ${days} days, ${TRAINS} trains a day`);
    const data = await loadHistoryDataset(bench.url, firstDay, days);
    ctx.log(
      `history: ${data.records} records in ${data.loadSeconds.toFixed(1)} s, indexes and vacuum ${data.indexSeconds.toFixed(1)} s`,
    );
    await refreshReferenceModels(bench.db, { windowEnd: data.lastDay });
    const today = firstDay + Math.floor(days / 2) + 10;

    const sample = async <T>(sql: string, params: unknown[]): Promise<T[]> =>
      (await bench.db.query<T>(sql, params)).rows;
    const emus = await sample<{ id: number; code: string }>(
      'SELECT id, code FROM emus ORDER BY id % 97, id LIMIT $1',
      [KEYS],
    );
    const trains = await sample<{ code: string }>(
      `SELECT train_code AS code FROM timetable_coverage GROUP BY train_code
        ORDER BY md5(train_code) LIMIT $1`,
      [KEYS],
    );
    // The cursor a client holds after paging this far: the last record before the deep page.
    const cursorAfter = async (column: string, key: string | number, offset: number) => {
      const [row] = await sample<{ service_day: number; id: number }>(
        `SELECT service_day, id FROM daily_records WHERE ${column} = $1
          ORDER BY service_day DESC, id DESC OFFSET $2 LIMIT 1`,
        [key, offset - 1],
      );
      return `${row!.service_day}:${row!.id}`;
    };
    const scenarios: {
      name: string;
      paths: string[];
      items: (path: string) => number;
      before?: () => Promise<unknown>;
    }[] = [
      {
        name: 'history by EMU, first page',
        paths: emus.map((e) => `/api/v2/history/emu/${e.code}?limit=${limit}`),
        items: () => limit,
      },
      {
        name: `history by EMU, page after ${emuOffset} records`,
        paths: await Promise.all(
          emus.map(
            async (e) =>
              `/api/v2/history/emu/${e.code}?limit=${limit}&cursor=${await cursorAfter('emu_id', e.id, emuOffset)}`,
          ),
        ),
        items: () => limit,
      },
      {
        name: 'history by train, first page',
        paths: trains.map((t) => `/api/v2/history/train/${t.code}?limit=${limit}`),
        items: () => limit,
      },
      {
        name: `history by train, page after ${trainOffset} records`,
        paths: await Promise.all(
          trains.map(
            async (t) =>
              `/api/v2/history/train/${t.code}?limit=${limit}&cursor=${await cursorAfter('train_code', t.code, trainOffset)}`,
          ),
        ),
        items: () => limit,
      },
    ];

    const config = benchApiConfig(bench.url, ctx.redisUrl);
    const db = createPostgresDb({ connectionString: bench.url, max: config.PG_POOL_MAX });
    const redis = createQuotaRedis(ctx.redisUrl, config);
    const clock = () => (midnightOfServiceDay(today) + 8 * 3600) * 1000;
    const app = await buildApp({
      db,
      config,
      logger: createLogger(config.LOG_LEVEL),
      redis,
      clock,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        if (redis.status === 'ready') resolve();
        redis.once('ready', resolve);
        redis.once('error', reject);
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

      // The hub's board, walked once through the API: the three pages a client would ask for.
      const station = `/api/v2/timetable/station/${encodeURIComponent(HUB)}?limit=${limit}`;
      const boardPages = [station];
      for (;;) {
        const res = await fetch(base + boardPages[boardPages.length - 1]!);
        const { data } = (await res.json()) as { data: { nextCursor: string; items: unknown[] } };
        if (data.nextCursor === '') break;
        boardPages.push(`${station}&cursor=${data.nextCursor}`);
      }
      if (boardPages.length !== HUB_TRAINS / limit) {
        throw new Error(
          `the hub's board has ${boardPages.length} pages, expected ${HUB_TRAINS / limit}`,
        );
      }
      scenarios.push(
        {
          name: `station timetable, ${HUB_TRAINS} trains, its ${boardPages.length} pages in turn`,
          paths: boardPages,
          items: () => limit,
        },
        {
          // The worst case: the coverage changed before every request, so each one reads the
          // whole board again (as the first request of a day, or the first after an ingestion).
          name: `station timetable, ${HUB_TRAINS} trains, board read again each time`,
          paths: boardPages,
          items: () => limit,
          before: () =>
            bench.db.query(
              `UPDATE data_versions SET version = version + 1 WHERE name = 'timetables'`,
            ),
        },
      );

      const rows: BenchRow[] = [
        {
          suite: 'history',
          metric: `dataset: ${EMUS} EMUs x ${days} days, ${TRAINS} trains a day`,
          value: data.records,
          unit: 'records',
        },
        {
          suite: 'history',
          metric: 'dataset: generate in SQL + build indexes, vacuum, analyze',
          value: Math.round(data.loadSeconds + data.indexSeconds),
          unit: 's',
        },
      ];
      // The board kept is the reference of the board read afresh (same pages, same run).
      let keptBoardP99: number | undefined;
      for (const s of scenarios) {
        ctx.log(`history: ${s.name}: warming up, then ${requests} requests`);
        await measure(base, s.paths, Math.min(200, requests), s.items, s.before);
        const { p50, p99 } = await measure(base, s.paths, requests, s.items, s.before);
        const metric = `${s.name} (limit ${limit})`;
        rows.push(
          { suite: 'history', metric: `${metric}: p50`, value: round(p50), unit: 'ms' },
          {
            suite: 'history',
            metric: `${metric}: p99`,
            value: round(p99),
            unit: 'ms',
            ...(s.before && keptBoardP99 !== undefined
              ? { reference: round(keptBoardP99), ratio: keptBoardP99 / p99 }
              : {}),
            target: `<= ${P99_TARGET_MS} ms`,
            pass: p99 <= P99_TARGET_MS,
          },
        );
        if (s.name.startsWith('station timetable') && !s.before) keptBoardP99 = p99;
      }
      // A board read again keeps what each timetable shows at the station (it never changes);
      // a station's first board in an API process reads that too: stationBoard without a cache,
      // through the app's pool, no HTTP. Reported beside the target, which is the read afresh.
      const whole: number[] = [];
      for (let i = 0; i < Math.min(200, requests); i++) {
        const started = performance.now();
        const board = await stationBoard(db, HUB, today - (i % 7));
        whole.push(performance.now() - started);
        if (board.length !== HUB_TRAINS) throw new Error(`the hub's board has ${board.length}`);
      }
      whole.sort((a, b) => a - b);
      const wholeMetric = `station timetable, ${HUB_TRAINS} trains, a station's first board in a process (query only, no HTTP)`;
      rows.push(
        {
          suite: 'history',
          metric: `${wholeMetric}: p50`,
          value: round(percentile(whole, 50)),
          unit: 'ms',
        },
        {
          suite: 'history',
          metric: `${wholeMetric}: p99`,
          value: round(percentile(whole, 99)),
          unit: 'ms',
        },
      );
      return rows;
    } finally {
      await app.close();
      const left = await redis.keys(`${config.QUOTA_KEY_PREFIX}*`).catch(() => []);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await db.close();
      await bench.drop();
    }
  },
};

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
