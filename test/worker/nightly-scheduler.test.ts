import { describe, expect, it } from 'vitest';
import { nightlyJob, nightlyServiceDay } from '../../jobs/index.js';
import { dueAtOf } from '../../src/worker/due-at.js';
import {
  NIGHTLY_SCHEDULER_ID,
  nextCronFire,
  upsertNightlyScheduler,
} from '../../src/worker/nightly-schedule.js';
import { startWorkerRuntime } from '../../src/worker/worker-runtime.js';
import { ConfigError } from '../../src/shared/config/config.js';
import { serviceDayOf } from '../../src/shared/time/service-day.js';
import { jobRuns, recordCount, seedDay, storedExport } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('the nightly Job Scheduler', () => {
  it('fires, and each tick builds and exports the day that just ended', async () => {
    // A tick works on the day before the one it is due in; the test may straddle midnight.
    const today = serviceDayOf(Math.floor(Date.now() / 1000));
    const seeded = [
      await seedDay(env.database.db, today - 1),
      await seedDay(env.database.db, today),
    ];

    const ctx = env.ctx({ NIGHTLY_CRON: '* * * * * *' });
    const runtime = await startWorkerRuntime(ctx, { connection: env.connection() });
    env.defer(() => runtime.close());
    expect(runtime.mode).toBe('bullmq');

    const tick = await waitFor('a nightly tick to complete', async () => {
      const runs = await jobRuns(env.database.db, nightlyJob.name);
      return runs.find((r) => r.status === 'completed');
    });
    const dueAt = Number(/^repeat:nightly:(\d+)$/.exec(tick.job_id)![1]);
    const day = nightlyServiceDay(dueAt);
    expect(tick.result).toEqual({ serviceDay: day });
    const expected = seeded.find((s) => s.serviceDay === day)!;
    expect(expected).toBeDefined();

    const stored = await waitFor('the day export from the tick', () =>
      storedExport(env.database.db, day),
    );
    expect(stored.row_count).toBe(expected.expectedRecords);
    expect(await recordCount(env.database.db, day)).toBe(expected.expectedRecords);
    const [build] = await jobRuns(env.database.db, 'build-daily-records', day);
    const [exp] = await jobRuns(env.database.db, 'render-daily-export', day);
    expect(exp!.started_at.getTime()).toBeGreaterThanOrEqual(build!.finished_at!.getTime());

    // Ticks keep coming, a second apart.
    const ticks = await waitFor('a second tick', async () => {
      const runs = await jobRuns(env.database.db, nightlyJob.name);
      return runs.length >= 2 && runs;
    });
    const [a, b] = ticks.map((r) => Number(r.job_id.split(':')[2]));
    expect(b! - a!).toBe(1000);
  });

  it('is upserted, not added: a changed pattern replaces the one scheduler and its next tick', async () => {
    const queues = env.queues();
    await upsertNightlyScheduler(queues, '0 0 * * *');
    const before = Date.now();
    const second = await upsertNightlyScheduler(queues, '30 2 * * *');
    const queue = queues.queue(nightlyJob.name);

    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({
      key: NIGHTLY_SCHEDULER_ID,
      pattern: '30 2 * * *',
      tz: 'Asia/Shanghai',
    });
    const delayed = await queue.getDelayed();
    expect(delayed).toHaveLength(1);
    expect(dueAtOf(delayed[0]!)).toBe(nextCronFire('30 2 * * *', before));
    expect(second.nextDueAt).toBe(dueAtOf(delayed[0]!));
    expect(new Date(second.nextDueAt).toISOString()).toMatch(/T18:30:00\.000Z$/);
    // Tick jobs carry the project's retry settings.
    expect(delayed[0]!.opts).toMatchObject({ attempts: 3, backoff: { type: 'exponential' } });
  });

  it('refuses a bad pattern with an error naming NIGHTLY_CRON', async () => {
    const queues = env.queues();
    const err = await upsertNightlyScheduler(queues, '61 * * * *').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('NIGHTLY_CRON');
    expect(await queues.queue(nightlyJob.name).getJobSchedulersCount()).toBe(0);
  });
});
