import { describe, expect, it } from 'vitest';
import { inferCirculationsJob } from '../../jobs/index.js';
import { ConfigError } from '../../src/shared/config/config.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import {
  CIRCULATION_SCHEDULER_ID,
  nextCronFire,
  upsertCirculationScheduler,
} from '../../src/worker/nightly-schedule.js';
import { startWorkerRuntime } from '../../src/worker/worker-runtime.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { jobRuns } from '../worker/support/day-data.js';
import { useQueueEnv } from '../worker/support/queue-env.js';
import { waitFor } from '../worker/support/wait-for.js';
import { circulationRuns, DAY0, seedRuns } from './support.js';
import { databaseNow } from '../helpers/database-clock.js';

const env = useQueueEnv();

describe('the infer-circulations job', () => {
  it('runs over the window ending with asOf, with the configured rule, recorded in job_runs', async () => {
    await seedRuns(
      env.database.db,
      circulationRuns({ units: ['CRH380B-3701'], days: [['G701', 'G702']], windowDays: 14 }),
    );
    const ctx = env.ctx({ CIRCULATION_WINDOW_DAYS: '7', CIRCULATION_THRESHOLD: '0.9' });
    const r = await runInProcess(ctx, inferCirculationsJob, { asOf: DAY0 + 13 });
    expect(r).toMatchObject({
      windowStart: DAY0 + 7,
      windowEnd: DAY0 + 13,
      threshold: 0.9,
      minSupport: 3,
      routes: 1,
    });
    const run = (await jobRuns(env.database.db, inferCirculationsJob.name)).find(
      (x) => x.job_id === `circulations-${DAY0 + 13}`,
    );
    expect(run).toMatchObject({
      service_day: DAY0 + 13,
      status: 'completed',
      via: 'in-process',
    });
  });

  it('a tick without asOf works on the Shanghai day that ended before it was due', async () => {
    const ctx = env.ctx();
    const dueAt = Date.parse('2026-09-15T02:00:00+08:00');
    const r = await runInProcess(ctx, inferCirculationsJob, {}, dueAt);
    expect(r.windowEnd).toBe(serviceDayFromYmd('20260914'));
    expect(r.windowStart).toBe(serviceDayFromYmd('20260901'));
  });
});

describe('the circulation Job Scheduler', () => {
  it('is upserted at CIRCULATION_CRON (default 02:00 Shanghai) by the worker, next to the nightly one', async () => {
    const ctx = env.ctx();
    const before = Date.now();
    const runtime = await startWorkerRuntime(ctx, { connection: env.connection() });
    env.defer(() => runtime.close());
    const schedulers = await runtime.queues!.queue(inferCirculationsJob.name).getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.pattern, s.tz])).toEqual([
      [CIRCULATION_SCHEDULER_ID, '0 2 * * *', 'Asia/Shanghai'],
    ]);
    expect(schedulers[0]!.next).toBe(nextCronFire('0 2 * * *', before));
    // Upserting again with another pattern replaces it.
    await upsertCirculationScheduler(runtime.queues!, '30 3 * * *');
    const again = await runtime.queues!.queue(inferCirculationsJob.name).getJobSchedulers();
    expect(again.map((s) => s.pattern)).toEqual(['30 3 * * *']);
  });

  it('fires through BullMQ, and in-process without Redis', async () => {
    // Job runs are stamped by the database's clock.
    const since = await databaseNow(env.database.db);
    const bull = await startWorkerRuntime(env.ctx({ CIRCULATION_CRON: '* * * * * *' }), {
      connection: env.connection(),
    });
    env.defer(() => bull.close());
    await waitFor('a circulation tick through BullMQ', async () =>
      (await jobRuns(env.database.db, inferCirculationsJob.name)).find(
        (r) => r.via === 'bullmq' && r.status === 'completed' && r.started_at >= since,
      ),
    );
    await bull.close();
    const later = await databaseNow(env.database.db);

    const local = await startWorkerRuntime(
      env.ctx({ REDIS_URL: '', CIRCULATION_CRON: '* * * * * *' }),
    );
    env.defer(() => local.close());
    expect(local.mode).toBe('in-process');
    await waitFor('a circulation tick in-process', async () =>
      (await jobRuns(env.database.db, inferCirculationsJob.name)).find(
        (r) => r.via === 'in-process' && r.status === 'completed' && r.started_at >= later,
      ),
    );
  });

  it('refuses a bad CIRCULATION_CRON, naming it', async () => {
    const err = await startWorkerRuntime(env.ctx({ REDIS_URL: '', CIRCULATION_CRON: '61 * * * *' }))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^configuration: CIRCULATION_CRON: not a cron pattern/);
  });
});
