import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { upsertNightlyScheduler } from '../../src/worker/nightly-schedule.js';
import { queueStatus } from '../../src/worker/queue-status.js';
import { printStatus } from '../../src/cli/print-status.js';
import { refreshReferenceModelsJob } from '../../jobs/index.js';
import { runDayInProcess } from '../../src/worker/in-process-runner.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('queueStatus', () => {
  it('reports queue counts, schedulers and the last run of each job per day', async () => {
    const ctx = env.ctx();
    const first = serviceDayFromYmd('20260801');
    const second = first + 1;
    await seedDay(env.database.db, first);
    await seedDay(env.database.db, second);
    // The first day ran in-process once, then through BullMQ: the later run is the one shown.
    await runDayInProcess(ctx, first);
    const queues = env.queues();
    await upsertNightlyScheduler(queues, '0 0 * * *');
    env.workers(ctx, queues);
    const firstFlow = await queues.enqueueDayFlow(first);
    await waitFor('the first day’s export', async () => {
      const job = await queues.getJob(renderDailyExportJob.name, firstFlow.jobId);
      return (await job?.getState()) === 'completed';
    });
    // The second day is still pending (no worker for it: a queue paused globally).
    await queues.queue(buildDailyRecordsJob.name).pause();
    await queues.enqueueDayFlow(second);

    const status = await queueStatus(ctx, env.connection());
    expect(status.redis).toMatchObject({ configured: true, prefix: env.prefix });
    if (!('queues' in status.redis)) throw new Error('no queue counts');
    const counts = Object.fromEntries(status.redis.queues.map((q) => [q.queue, q.counts]));
    expect(counts['build-daily-records']).toMatchObject({ completed: 1, waiting: 1 });
    expect(counts['render-daily-export']).toMatchObject({ completed: 1, waitingChildren: 1 });
    expect(counts['nightly']).toMatchObject({ delayed: 1 });
    expect(status.redis.schedulers).toEqual([
      expect.objectContaining({ queue: 'nightly', id: 'nightly', pattern: '0 0 * * *' }),
    ]);

    expect(status.days.map((r) => [r.serviceDay, r.job, r.via, r.status])).toEqual([
      [first, 'build-daily-records', 'bullmq', 'completed'],
      [first, 'render-daily-export', 'bullmq', 'completed'],
    ]);
    expect(status.days[0]!.jobId).toBe(firstFlow.buildJobId);
    expect(Date.parse(status.days[0]!.startedAt)).not.toBeNaN();

    const limited = await queueStatus(ctx, env.connection(), { days: 0 });
    expect(limited.days).toEqual([]);
  });

  it('shows failed jobs with their reasons and the days with sightings but no export', async () => {
    const ctx = env.ctx();
    const exported = serviceDayFromYmd('20260810');
    await seedDay(env.database.db, exported);
    await seedDay(env.database.db, exported + 1);
    await seedDay(env.database.db, exported + 3);
    await runDayInProcess(ctx, exported);
    const queues = env.queues();
    env.workers(ctx, queues);
    // A job that fails for good: its payload fails the schema (no retries).
    const bad = await queues
      .queue(refreshReferenceModelsJob.name)
      .add(refreshReferenceModelsJob.name, { serviceDay: 'last week' });
    await waitFor(
      'the bad job to fail',
      async () =>
        (await queues.queue(refreshReferenceModelsJob.name).getJobState(bad.id!)) === 'failed',
    );

    // The latest 5 days (this file's first test left a day unexported a week earlier).
    const status = await queueStatus(ctx, env.connection(), { days: 5 });
    expect(status.daysMissingExport).toEqual([exported + 1, exported + 3]);
    if (!('failed' in status.redis)) throw new Error('no failed jobs');
    expect(status.redis.failed).toEqual([
      {
        queue: 'refresh-reference-models',
        jobId: bad.id,
        reason: expect.stringMatching(/^refresh-reference-models: invalid payload: serviceDay: /),
        attemptsMade: 1,
        failedAt: expect.any(String),
      },
    ]);

    const lines: string[] = [];
    await printStatus(ctx, { days: 5 }, (l) => lines.push(l));
    expect(lines).toContain('days missing an export: 20260811, 20260813');
    expect(lines).toContain(
      'failed jobs (all attempts used; retry or remove them at /admin/queues):',
    );
    expect(lines.find((l) => l.includes(`refresh-reference-models  ${bad.id} `))).toMatch(
      /after 1 attempt\(s\): refresh-reference-models: invalid payload: serviceDay: /,
    );
  });

  it('without REDIS_URL reports only the runs', async () => {
    const status = await queueStatus(env.ctx({ REDIS_URL: '' }));
    expect(status.redis).toEqual({ configured: false });
  });

  it('reports an unreachable Redis as an error, and still the runs', async () => {
    const status = await queueStatus(env.ctx({ REDIS_URL: 'redis://127.0.0.1:1' }));
    expect(status.redis).toMatchObject({
      configured: true,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(Array.isArray(status.days)).toBe(true);
  });
});
