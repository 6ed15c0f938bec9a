import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { buildApp } from '../../src/http/api/app.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { createRedisConnection } from '../../src/shared/queues/redis-connection.js';
import { startWebhookRuntime } from '../../src/worker/webhook-runtime.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { readRecordChanges, START } from '../../src/domain/records/record-changes.js';
import { createWebhookEndpoint } from '../../src/domain/webhooks/webhook-endpoints.js';
import { createUser } from '../../src/domain/accounts/users.js';
import type { BenchContext, BenchRow, BenchSuite } from '../bench-types.js';
import { median } from '../repeat.js';

const PAGE = 5_000;

function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The change feed and webhooks:
 * - the feed read from the start in pages of 5,000 (the route's largest), by the domain read and
 *   through the API, against the floor: the same keyset pages of record_changes read by a bare
 *   SELECT through the same pool;
 * - what capturing changes costs a day's first build: 12,000 records inserted with the capture
 *   triggers and with them disabled;
 * - the delay from a build's commit to a webhook delivery on a loopback receiver (BullMQ
 *   deliveries, the dispatcher woken by NOTIFY, polling every WEBHOOK_POLL_MS as fallback).
 */
export const feedSuite: BenchSuite = {
  name: 'feed',
  async run(ctx) {
    const rows: BenchRow[] = [];
    rows.push(...(await feedThroughput(ctx)));
    rows.push(...(await deliveryDelay(ctx)));
    return rows;
  },
};

async function feedThroughput(ctx: BenchContext): Promise<BenchRow[]> {
  const bench = await ctx.createDatabase();
  const db = bench.db;
  const days = ctx.quick ? 4 : 20;
  const perDay = 12_000;
  try {
    await db.query(
      `INSERT INTO emus (code, registered_by)
       SELECT 'CR400AF-' || (1000 + g), 'fleet' FROM generate_series(1, 4500) g`,
    );
    const insertDay = (day: number) =>
      db.query(
        `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                    first_observed_at, last_observed_at, status)
         SELECT $1, 'G' || g, 1 + (g * 7 + $1) % 4500, 2, '{report}', 0, 60, 1
           FROM generate_series(1, ${perDay}) g`,
        [day],
      );
    // Capture cost: one day's records inserted with and without the triggers, rolled back.
    const withCapture: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < 5; i++) {
      withCapture.push(await measureInsert(db, true, perDay));
      without.push(await measureInsert(db, false, perDay));
    }
    ctx.log(`feed: ${days} days x ${perDay} records`);
    for (let d = 0; d < days; d++) await insertDay(20000 + d);
    await db.query('ANALYZE record_changes');
    const total = days * perDay;

    const readAll = async () => {
      const start = performance.now();
      let cursor = START;
      let n = 0;
      for (;;) {
        const page = await readRecordChanges(db, cursor, PAGE);
        n += page.changes.length;
        cursor = page.next;
        if (!page.more) break;
      }
      if (n !== total) throw new Error(`feed read ${n} changes, expected ${total}`);
      return (n / (performance.now() - start)) * 1000;
    };
    const floor = async () => {
      const start = performance.now();
      let position = '0';
      let recordId = '0';
      let n = 0;
      for (;;) {
        const r = await db.query<{ position: string; record_id: string }>(
          `SELECT position::text, record_id::text, kind, service_day, train_code, emu_id, support,
                  sources, first_observed_at, last_observed_at, status, timetable_id
             FROM record_changes WHERE (position, record_id) > ($1::bigint, $2::bigint)
            ORDER BY position, record_id LIMIT ${PAGE}`,
          [position, recordId],
        );
        n += r.rows.length;
        if (r.rows.length < PAGE) break;
        position = r.rows.at(-1)!.position;
        recordId = r.rows.at(-1)!.record_id;
      }
      return (n / (performance.now() - start)) * 1000;
    };
    const app = await buildApp({
      db,
      config: loadConfig({
        LOG_LEVEL: 'silent',
        QUOTA_ANONYMOUS_CAPACITY: '1000000',
        QUOTA_KEY_PREFIX: `emutrack-bench:${randomBytes(4).toString('hex')}:`,
        REDIS_URL: ctx.redisUrl,
      }),
      logger: pino({ level: 'silent' }),
    });
    const viaApi = async () => {
      const start = performance.now();
      let cursor = '';
      let n = 0;
      for (;;) {
        const res = await app.inject(`/api/v2/records/changes?limit=${PAGE}&cursor=${cursor}`);
        if (res.statusCode !== 200) throw new Error(`feed answered ${res.statusCode}`);
        const data = res.json<{ data: { items: unknown[]; nextCursor: string; more: boolean } }>()
          .data;
        n += data.items.length;
        cursor = data.nextCursor;
        if (!data.more) break;
      }
      return (n / (performance.now() - start)) * 1000;
    };
    const domain: number[] = [];
    const floors: number[] = [];
    const api: number[] = [];
    for (let i = 0; i < 3; i++) {
      floors.push(await floor());
      domain.push(await readAll());
      api.push(await viaApi());
    }
    await app.close();
    const f = median(floors);
    return [
      {
        suite: 'feed',
        metric: `capture: first build's insert of ${perDay} records (median of 5), with / without triggers`,
        value: median(withCapture),
        unit: 'ms',
        reference: median(without),
        ratio: median(without) / median(withCapture),
      },
      {
        suite: 'feed',
        metric: `feed read from the start, ${total} changes in pages of ${PAGE} (domain)`,
        value: Math.round(median(domain)),
        unit: 'changes/s',
        reference: Math.round(f),
        ratio: median(domain) / f,
      },
      {
        suite: 'feed',
        metric: `feed read from the start through GET /api/v2/records/changes (JSON)`,
        value: Math.round(median(api)),
        unit: 'changes/s',
        reference: Math.round(f),
        ratio: median(api) / f,
      },
    ];
  } finally {
    await bench.drop();
  }
}

async function measureInsert(
  db: import('../../src/shared/db/db.js').Db,
  capture: boolean,
  perDay: number,
): Promise<number> {
  let ms = 0;
  const rollback = new Error('rollback');
  await db
    .transaction(async (tx) => {
      if (!capture) await tx.query('ALTER TABLE daily_records DISABLE TRIGGER USER');
      const start = performance.now();
      await tx.query(
        `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                    first_observed_at, last_observed_at, status)
         SELECT 30000, 'G' || g, 1 + g % 4500, 2, '{report}', 0, 60, 1
           FROM generate_series(1, ${perDay}) g`,
      );
      ms = performance.now() - start;
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return ms;
}

async function deliveryDelay(ctx: BenchContext): Promise<BenchRow[]> {
  const bench = await ctx.createDatabase();
  const rounds = ctx.quick ? 10 : 40;
  const received = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { date: string };
      };
      if (!received.has(body.data.date)) received.set(body.data.date, at);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const connection = createRedisConnection(ctx.redisUrl, 'worker');
  const appCtx = {
    db: bench.db,
    logger: pino({ level: 'silent' }),
    config: loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_LOOPBACK: 'true' }),
  };
  const runtime = await startWebhookRuntime(appCtx, {
    connection,
    prefix: `emutrack-bench-${randomBytes(4).toString('hex')}`,
    concurrency: 2,
  });
  try {
    const user = await createUser(
      bench.db,
      { username: 'bench', password: 'a long bench password 1' },
      { scrypt: { N: 1024, r: 8, p: 1 } },
    );
    await createWebhookEndpoint(
      bench.db,
      { userId: user.userId, oauthClientId: null },
      { url, events: ['day.rebuilt'] },
      { allowLoopback: true, maxEndpoints: 10 },
    );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-bench-feed-'));
    const delays: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const day = 20400 + i;
      const file = path.join(dir, `day-${i}.ndjson`);
      // 10:00 Shanghai on the day.
      const observedAt = day * 86_400 + 2 * 3_600;
      await writeFile(
        file,
        `${JSON.stringify({ observedAt, trainCode: 'G1', emuCode: 'CR400AF-9001', source: 'bench', ref: `r${i}` })}\n`,
      );
      await ingestObservations(bench.db, file);
      await buildDailyRecords(bench.db, day);
      const committed = performance.now();
      const date = new Date(day * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
      const end = Date.now() + 10_000;
      while (!received.has(date)) {
        if (Date.now() > end) throw new Error(`no delivery for ${date} within 10 s`);
        await new Promise((r) => setTimeout(r, 1));
      }
      delays.push(received.get(date)! - committed);
    }
    await rm(dir, { recursive: true, force: true });
    return [
      {
        suite: 'feed',
        metric: `webhook: build commit to delivery on loopback, median (${rounds} builds)`,
        value: Number(median(delays).toFixed(1)),
        unit: 'ms',
      },
      {
        suite: 'feed',
        metric: 'webhook: build commit to delivery, p99',
        value: Number(percentile(delays, 99).toFixed(1)),
        unit: 'ms',
      },
    ];
  } finally {
    await runtime.close();
    await connection.quit();
    await new Promise<void>((r) => server.close(() => r()));
    await bench.drop();
  }
}
