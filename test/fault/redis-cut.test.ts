import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob } from '../../jobs/index.js';
import { buildApp } from '../../src/http/api/app.js';
import { createQuotaRedis } from '../../src/http/quota/create-quota-store.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { JobQueues } from '../../src/worker/job-queues.js';
import { jobRetentionFromConfig } from '../../src/shared/queues/job-options.js';
import { JobWorkers } from '../../src/worker/job-workers.js';
import {
  closeRedisConnection,
  createRedisConnection,
} from '../../src/shared/queues/redis-connection.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { jobRuns, recordCount, seedDay } from '../worker/support/day-data.js';
import { useQueueEnv } from '../worker/support/queue-env.js';
import { waitFor } from '../worker/support/wait-for.js';
import { hold, longest, printFigures, startLoad } from './support/api-load.js';
import { TcpProxy } from './tcp-proxy.js';

const env = useQueueEnv();
const CUT_MS = 30_000;
const silent = pino({ level: 'silent' });

describe('Redis cut for 30 s under API load with a worker waiting for jobs', () => {
  it('keeps the API answering on the in-process quota; the worker reconnects and runs the queued jobs once each', async () => {
    const { db } = env.database;
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 6379 });
    env.defer(() => proxy.close());
    const redisUrl = proxy.url(TEST_REDIS_URL);

    const readDay = await seedDay(db, serviceDayFromYmd('20261201'), 30);
    await buildDailyRecords(db, readDay.serviceDay);
    const days = await Promise.all(
      ['20261202', '20261203', '20261204'].map((ymd) => seedDay(db, serviceDayFromYmd(ymd), 10)),
    );

    const config = {
      ...env.config({ QUOTA_ANONYMOUS_CAPACITY: '1000000000' }),
      REDIS_URL: redisUrl,
    };
    const quotaRedis = createQuotaRedis(redisUrl, config);
    env.defer(async () => quotaRedis.disconnect());
    const app = await buildApp({ db, config, logger: silent, redis: quotaRedis });
    env.defer(() => app.close());

    // The worker and its queues reach Redis through the proxy only.
    const queues = new JobQueues({
      connection: createRedisConnection(redisUrl, 'worker'),
      ownsConnection: true,
      prefix: env.prefix,
      retention: jobRetentionFromConfig(config),
    });
    env.defer(() => queues.close());
    const workerConnection = createRedisConnection(redisUrl, 'worker');
    const workers = new JobWorkers(
      { config, db, logger: silent },
      { connection: workerConnection, queues, tuning: { concurrency: 1 } },
    );
    env.defer(async () => {
      await workers.close();
      await closeRedisConnection(workerConnection);
    });
    await workers.waitUntilReady();

    const load = startLoad(app, [
      '/api/v2/records/daily?date=20261201&limit=20',
      '/api/v2/history/train/G101',
    ]);
    await waitFor('a first answer', () => load.answers.length > 20);

    // Queued just before the cut, due once it has started: they can only run after it.
    const buildQueue = queues.queue(buildDailyRecordsJob.name);
    for (const d of days) {
      await buildQueue.add(
        buildDailyRecordsJob.name,
        { serviceDay: d.serviceDay },
        { ...queues.defaultJobOptions, jobId: `build-${d.serviceDay}`, delay: 1_500 },
      );
    }
    const cutAt = Date.now();
    proxy.cut('blackhole');
    await hold(CUT_MS);
    const restoredAt = Date.now();
    const ranDuringCut = (await jobRuns(db, buildDailyRecordsJob.name)).length;
    proxy.restore();

    const runs = await waitFor(
      'every queued build to complete',
      async () => {
        const r = await jobRuns(db, buildDailyRecordsJob.name);
        return r.filter((x) => x.status === 'completed').length === days.length && r;
      },
      { timeoutMs: 60_000 },
    );
    const completedAt = Math.max(...runs.map((r) => r.finished_at!.getTime()));
    await hold(1_000);
    const answers = await load.stop();
    const during = answers.filter((a) => a.startedAt >= cutAt && a.startedAt < restoredAt);

    printFigures('Redis cut 30 s (blackhole: open connections reset, new ones unanswered)', {
      answers: answers.length,
      'answers during the cut': `${during.length} (${during.filter((a) => a.status === 200).length} x 200)`,
      'longest answer (ms)': longest(answers),
      'longest answer during the cut (ms)': longest(during),
      'non-200 answers': answers.filter((a) => a.status !== 200).length,
      'job runs during the cut': ranDuringCut,
      'time from the end of the cut to the last queued job done (ms)': completedAt - restoredAt,
      'runs per day': days
        .map((d) => `${d.serviceDay}:${runs.filter((r) => r.service_day === d.serviceDay).length}`)
        .join(' '),
    });

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(during.length).toBeGreaterThan(10);
    expect(ranDuringCut).toBe(0);
    for (const d of days) {
      const ofDay = runs.filter((r) => r.service_day === d.serviceDay);
      expect(ofDay.map((r) => [r.attempt, r.status])).toEqual([[1, 'completed']]);
      expect(await recordCount(db, d.serviceDay)).toBe(d.expectedRecords);
      expect(await buildQueue.getJobState(`build-${d.serviceDay}`)).toBe('completed');
    }
  }, 150_000);
});
