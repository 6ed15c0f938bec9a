import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob } from '../../jobs/index.js';
import { closeWithin } from '../../src/worker/graceful-shutdown.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import {
  childBackends,
  startChildWorker,
  waitUntilChildSleepsInBuild,
} from './support/child-worker.js';
import { jobRuns, recordCount, seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('graceful shutdown', () => {
  it('on SIGTERM, lets the running build finish, then exits 0', async () => {
    const { db } = env.database;
    const day = await seedDay(db, serviceDayFromYmd('20261101'));
    const queues = env.queues();
    const { jobId } = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    const child = await startChildWorker(
      env.childEnv({ SLOW_BUILD_SECONDS: '2', SHUTDOWN_TIMEOUT_MS: '60000', LOG_LEVEL: 'info' }),
    );
    env.defer(async () => child.process.kill('SIGKILL'));
    await waitUntilChildSleepsInBuild(db, child);

    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });

    // It exited only after the build committed and BullMQ recorded it as completed.
    expect(await recordCount(db, day.serviceDay)).toBe(day.expectedRecords);
    const runs = await jobRuns(db, buildDailyRecordsJob.name, day.serviceDay);
    expect(runs.map((r) => r.status)).toEqual(['completed']);
    const job = await queues.getJob(buildDailyRecordsJob.name, jobId);
    expect(await job!.getState()).toBe('completed');
    expect(child.stderr()).toMatch(/"msg":"shutting down: finishing running jobs"/);
    expect(child.stderr()).toMatch(/"msg":"shut down cleanly"/);
    // Its database connections were closed, not left to the process's end.
    expect(await childBackends(db, child)).toBe(0);
  }, 120_000);

  it('exits non-zero when running jobs outlast SHUTDOWN_TIMEOUT_MS', async () => {
    const { db } = env.database;
    const day = await seedDay(db, serviceDayFromYmd('20261102'));
    const queues = env.queues();
    const { jobId } = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    const child = await startChildWorker(
      env.childEnv({ SLOW_BUILD_SECONDS: '60', SHUTDOWN_TIMEOUT_MS: '300', LOG_LEVEL: 'info' }),
    );
    env.defer(async () => child.process.kill('SIGKILL'));
    await waitUntilChildSleepsInBuild(db, child);

    const signalled = Date.now();
    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(child.stderr()).toMatch(/shutdown time limit passed/);
    // The unfinished build left nothing behind; its job stays with BullMQ for another worker.
    await waitFor(
      'the child’s connections to close',
      async () => (await childBackends(db, child)) === 0,
    );
    expect(await recordCount(db, day.serviceDay)).toBe(0);
    const job = await queues.getJob(buildDailyRecordsJob.name, jobId);
    expect(await job!.getState()).toBe('active');
  }, 120_000);

  it('closeWithin reports whether close() finished in time', async () => {
    await expect(closeWithin(async () => {}, 1000)).resolves.toBe('closed');
    await expect(closeWithin(() => new Promise((r) => setTimeout(r, 2000)), 50)).resolves.toBe(
      'timed-out',
    );
  });
});
