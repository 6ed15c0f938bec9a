import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { buildApp } from '../../src/http/api/app.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { jobRuns, recordCount, seedDay, storedExport } from '../worker/support/day-data.js';
import { slowBuilds } from '../worker/support/db-faults.js';
import { useQueueEnv } from '../worker/support/queue-env.js';
import { waitFor } from '../worker/support/wait-for.js';
import { hold, longest, printFigures, startLoad, took } from './support/api-load.js';
import { TcpProxy } from './tcp-proxy.js';

const env = useQueueEnv();
const CUT_MS = 10_000;
const silent = pino({ level: 'silent' });

describe('Postgres cut for 10 s under API load and a building worker', () => {
  it('answers 503 unavailable (never a hang past 5 s), recovers within 5 s, and builds the day once', async () => {
    const direct = env.database.db;
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5432 });
    env.defer(() => proxy.close());
    const url = proxy.url(env.database.url);

    // A built day the API reads, and a day for the worker to build during the cut.
    const readDay = await seedDay(direct, serviceDayFromYmd('20261101'), 30);
    await buildDailyRecords(direct, readDay.serviceDay);
    const day = await seedDay(direct, serviceDayFromYmd('20261102'), 30);

    const vars = {
      JOB_ATTEMPTS: '10',
      JOB_BACKOFF_MS: '500',
      QUOTA_ANONYMOUS_CAPACITY: '1000000000',
    };
    const config = env.config(vars);
    const apiDb = createPostgresDb({ connectionString: url, max: 4, logger: silent });
    const workerApp = `emutrack-fault-${randomBytes(4).toString('hex')}`;
    const workerDb = createPostgresDb({
      connectionString: url,
      max: 4,
      applicationName: workerApp,
      logger: silent,
    });
    env.defer(() => Promise.all([apiDb.close(), workerDb.close()]));
    const app = await buildApp({ db: apiDb, config, logger: silent });
    env.defer(() => app.close());

    const queues = env.queues(vars);
    env.workers({ config, db: slowBuilds(workerDb, 3), logger: silent }, queues);
    const flow = await queues.enqueueDayFlow(day.serviceDay);
    await waitFor('the worker to be inside the build', async () => {
      const r = await direct.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE application_name = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
        [workerApp],
      );
      return r.rowCount > 0;
    });

    const load = startLoad(app, [
      '/api/v2/records/daily?date=20261101&limit=20',
      '/api/v2/history/train/G101',
      '/api/v2/exports/daily',
    ]);
    await waitFor('a first answer', () => load.answers.length > 20);
    const cutAt = Date.now();
    proxy.cut('blackhole');
    await hold(CUT_MS);
    const restoredAt = Date.now();
    proxy.restore();
    const firstOk = await waitFor(
      'a 200 after the cut',
      () => load.answers.find((a) => a.startedAt >= restoredAt && a.status === 200),
      { timeoutMs: 15_000 },
    );
    // Run on for as long again as recovery may take, to see the answers stay good.
    await hold(5_000);
    const answers = await load.stop();

    const during = answers.filter((a) => a.startedAt >= cutAt && a.startedAt < restoredAt);
    const slowest = longest(answers);
    const bad = answers.filter(
      (a) =>
        !(
          a.status === 200 ||
          (a.status === 503 && a.code === 'unavailable' && a.retryAfter === '5')
        ),
    );
    const recoveryMs = firstOk.endedAt - restoredAt;
    const afterRecovery = answers.filter((a) => a.startedAt >= restoredAt + 5_000);

    await waitFor(
      'the day flow to complete',
      async () =>
        (await queues.queue(renderDailyExportJob.name).getJobState(flow.jobId)) === 'completed',
      { timeoutMs: 60_000 },
    );
    const builds = await jobRuns(direct, buildDailyRecordsJob.name, day.serviceDay);
    const buildJob = await queues.getJob(buildDailyRecordsJob.name, flow.buildJobId);
    const keys = await direct.query<{ n: number; keys: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (train_code, emu_id))::int AS keys
         FROM daily_records WHERE service_day = $1`,
      [day.serviceDay],
    );

    printFigures('Postgres cut 10 s (blackhole: open connections reset, new ones unanswered)', {
      answers: answers.length,
      'answers during the cut': `${during.length} (${during.filter((a) => a.status === 503).length} x 503 unavailable, ${during.filter((a) => a.status === 200).length} x 200)`,
      'longest answer (ms)': slowest,
      'slowest answers': [...answers]
        .sort((a, b) => took(b) - took(a))
        .slice(0, 3)
        .map(
          (a) =>
            `${took(a)} ms ${a.status} ${a.url} (started ${a.startedAt - cutAt} ms after the cut)`,
        )
        .join('; '),
      'time to the first 200 after the cut (ms)': recoveryMs,
      'other answers (not 200, not 503 unavailable with Retry-After)': bad.length,
      'build attempts': buildJob?.attemptsMade,
      'build runs (job_runs)': builds.map((r) => `${r.attempt}:${r.status}`).join(' '),
      'records of the day': `${keys.rows[0]!.n} (expected ${day.expectedRecords}, distinct keys ${keys.rows[0]!.keys})`,
    });

    expect(bad).toEqual([]);
    expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(slowest).toBeLessThanOrEqual(5_000);
    expect(recoveryMs).toBeLessThanOrEqual(5_000);
    expect(afterRecovery.length).toBeGreaterThan(0);
    expect(afterRecovery.every((a) => a.status === 200)).toBe(true);

    expect(buildJob!.attemptsMade).toBeGreaterThan(1);
    expect(builds.filter((r) => r.status === 'completed')).toHaveLength(1);
    expect(keys.rows[0]).toEqual({ n: day.expectedRecords, keys: day.expectedRecords });
    expect(await recordCount(direct, day.serviceDay)).toBe(day.expectedRecords);
    expect((await storedExport(direct, day.serviceDay))?.row_count).toBe(day.expectedRecords);
  }, 120_000);
});
