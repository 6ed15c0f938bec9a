import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config/config.js';
import { jobRetentionFromConfig } from '../../src/shared/queues/job-options.js';
import { JobQueues } from '../../src/worker/job-queues.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { startChild, waitFor, type Child } from './support/processes.js';

/**
 * The product's own scale-out, for real: two API processes and two worker processes (each
 * started as `npm start` / `npm run worker` start them) on one Postgres database and one Redis,
 * under this test's own BullMQ and quota prefixes. Day flows enqueued once are built and
 * exported once, by whichever worker takes them; both APIs serve the same bytes; after a
 * rebuild that changes a day, the very next request to either API has the new records; a
 * rebuild of an unchanged day is skipped and both keep serving the same bytes.
 */
const t = useTestDatabase();
const prefix = `emutrack-scale-${randomBytes(4).toString('hex')}`;
const children: Child[] = [];
const apis: string[] = [];
let queues: JobQueues;
let redis: Redis;

// Days that have happened: only those are exported (export-refused-error.ts).
const DAYS = ['20260710', '20260711', '20260712'];

beforeAll(async () => {
  const env = {
    DATABASE_URL: t.current.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    QUOTA_KEY_PREFIX: `${prefix}-quota:`,
    QUOTA_ANONYMOUS_CAPACITY: '1000000',
    LOG_LEVEL: 'warn',
    PG_POOL_MAX: '4',
    // No scheduled flow may start during the test: only what it enqueues runs.
    NIGHTLY_CRON: '0 0 1 1 *',
    CIRCULATION_CRON: '0 0 1 1 *',
    STALE_REBUILD_DELAY_MS: '3600000',
    STALE_REBUILD_MAX_WAIT_MS: '3600000',
  };
  const started = await Promise.all([
    startChild('api-child', env, /listening (\d+)/),
    startChild('api-child', env, /listening (\d+)/),
    startChild('worker-child', env, /ready/),
    startChild('worker-child', env, /ready/),
  ]);
  for (const s of started) children.push(s.child);
  apis.push(...started.slice(0, 2).map((s) => `http://127.0.0.1:${s.match[1]}`));
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const config = loadConfig({ ...env });
  queues = new JobQueues({ connection: redis, prefix, retention: jobRetentionFromConfig(config) });
}, 120_000);

afterAll(async () => {
  await queues?.close();
  await Promise.all(children.map((c) => c.stop()));
  if (redis) {
    for (const pattern of [`${prefix}:*`, `${prefix}-quota:*`]) {
      const keys = await redis.keys(pattern);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  }
});

/** Exports completed per day, from job_runs (both workers record there). */
async function exportsDone(): Promise<Map<number, number>> {
  const r = await t.current.db.query<{ day: number; n: number }>(
    `SELECT service_day AS day, count(*)::int AS n FROM job_runs
      WHERE job = 'render-daily-export' AND status = 'completed' GROUP BY service_day`,
  );
  return new Map(r.rows.map((row) => [row.day, row.n]));
}

async function dayFlows(days: number[], expectedRuns: number): Promise<void> {
  for (const day of days) await queues.enqueueDayFlow(day);
  await waitFor(`exports of ${days.join(', ')} (run ${expectedRuns})`, async () => {
    const done = await exportsDone();
    return days.every((d) => (done.get(d) ?? 0) >= expectedRuns);
  });
}

async function page(base: string, ymd: string) {
  const res = await fetch(`${base}/api/v2/records/daily?date=${ymd}&limit=200`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { items: { trainCode?: { number: number } }[] } };
  return body.data;
}

describe('two API processes and two workers on one Postgres and one Redis', () => {
  it('build each enqueued day once, serve the same bytes, and serve a rebuilt day at once', async () => {
    const days = DAYS.map(serviceDayFromYmd);
    await ingestSightings(
      t.current.db,
      DAYS.flatMap((ymd, i) =>
        Array.from({ length: 40 }, (_, k) =>
          sightings(
            ymd,
            `G${500 + k}`,
            `CR400AF-${String(3000 + ((k + i) % 30)).padStart(4, '0')}`,
            2,
          ),
        ).flat(),
      ),
    );
    // Both workers take jobs from the same queues.
    expect(await queues.queue('build-daily-records').getWorkersCount()).toBe(2);

    await dayFlows(days, 1);
    const builds = await t.current.db.query<{ day: number; n: number }>(
      `SELECT service_day AS day, count(*)::int AS n FROM job_runs
        WHERE job = 'build-daily-records' AND status = 'completed' GROUP BY service_day ORDER BY 1`,
    );
    expect(builds.rows).toEqual(days.map((day) => ({ day, n: 1 })));
    const counts = await t.current.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM daily_records WHERE service_day = ANY($1::int[])',
      [days],
    );
    expect(counts.rows[0]!.n).toBe(120);

    for (const ymd of DAYS) {
      const [a, b] = [await page(apis[0]!, ymd), await page(apis[1]!, ymd)];
      expect(a.items).toHaveLength(40);
      expect(b).toEqual(a);
    }
    const before = await page(apis[0]!, DAYS[1]!);

    // New sightings of day 2; its flow again (and day 1's, whose inputs did not change).
    await ingestSightings(t.current.db, sightings(DAYS[1]!, 'G600', 'CR400AF-3100', 2));
    await dayFlows([days[0]!, days[1]!], 2);
    const results = await t.current.db.query<{ day: number; skipped: boolean }>(
      `SELECT DISTINCT ON (service_day) service_day AS day, (result->>'skipped')::boolean AS skipped
         FROM job_runs WHERE job = 'build-daily-records' AND status = 'completed'
          AND service_day = ANY($1::int[]) ORDER BY service_day, id DESC`,
      [[days[0], days[1]]],
    );
    expect(results.rows).toEqual([
      { day: days[0], skipped: true },
      { day: days[1], skipped: false },
    ]);
    for (const api of apis) {
      const after = await page(api, DAYS[1]!);
      expect(after.items).toHaveLength(41);
      expect(after.items.some((item) => item.trainCode?.number === 600)).toBe(true);
      expect(await page(api, DAYS[0]!)).toEqual(await page(apis[0]!, DAYS[0]!));
    }
    expect(before.items).toHaveLength(40);
  }, 180_000);
});
