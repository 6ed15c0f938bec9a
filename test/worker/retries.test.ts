import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { jobRuns, recordCount, seedDay, storedExport } from './support/day-data.js';
import { failingTransactions } from './support/db-faults.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();
const BACKOFF_MS = 300;

describe('retries', () => {
  it('retries a failing job with exponential backoff until it succeeds', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20260901'));
    const config = { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: String(BACKOFF_MS) };
    const ctx = { ...env.ctx(config), db: failingTransactions(env.database.db, 2) };
    const queues = env.queues(config);
    env.workers(ctx, queues);
    const { jobId } = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });

    const runs = await waitFor('the third attempt to complete', async () => {
      const r = await jobRuns(env.database.db, buildDailyRecordsJob.name, day.serviceDay);
      return r.some((x) => x.status === 'completed') && r;
    });
    expect(runs.map((r) => [r.attempt, r.status, r.error])).toEqual([
      [1, 'failed', 'injected failure 1'],
      [2, 'failed', 'injected failure 2'],
      [3, 'completed', null],
    ]);
    const gap = (i: number) => runs[i]!.started_at.getTime() - runs[i - 1]!.finished_at!.getTime();
    expect(gap(1)).toBeGreaterThanOrEqual(BACKOFF_MS - 2);
    expect(gap(2)).toBeGreaterThanOrEqual(2 * BACKOFF_MS - 2);
    expect(await recordCount(env.database.db, day.serviceDay)).toBe(day.expectedRecords);
    const job = await queues.getJob(buildDailyRecordsJob.name, jobId);
    expect([job!.attemptsMade, job!.attemptsStarted]).toEqual([3, 3]);
    expect(await job!.getState()).toBe('completed');
  });

  it('fails a day flow whose build keeps failing, and runs it afresh when enqueued again', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20260902'));
    const config = { JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' };
    const flaky = failingTransactions(env.database.db, 2);
    const queues = env.queues(config);
    env.workers({ ...env.ctx(config), db: flaky }, queues);
    const { jobId: exportId } = await queues.enqueueDayFlow(day.serviceDay);

    await waitFor('the export to fail with its build', async () => {
      return (await queues.queue(renderDailyExportJob.name).getJobState(exportId)) === 'failed';
    });
    const exportJob = (await queues.getJob(renderDailyExportJob.name, exportId))!;
    expect(exportJob.failedReason).toMatch(/child .*build-/i);
    expect(await jobRuns(env.database.db, renderDailyExportJob.name, day.serviceDay)).toEqual([]);
    expect(await storedExport(env.database.db, day.serviceDay)).toBeUndefined();

    // The database has recovered (the injected failures are used up): the day runs again.
    expect((await queues.enqueueDayFlow(day.serviceDay)).outcome).toBe('added');
    const stored = await waitFor('the export', () => storedExport(env.database.db, day.serviceDay));
    expect(stored.row_count).toBe(day.expectedRecords);
    const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, day.serviceDay);
    expect(builds.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [1, 'completed'],
    ]);
  });

  it('does not retry a job whose payload fails its schema', async () => {
    const queues = env.queues({ JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50' });
    env.workers(env.ctx(), queues);
    // Added behind enqueue()'s back, as an older producer or a hand-edited job might.
    const job = await queues
      .queue(buildDailyRecordsJob.name)
      .add(buildDailyRecordsJob.name, { serviceDay: 'yesterday' });
    await waitFor('the job to fail', async () => {
      return (await queues.queue(buildDailyRecordsJob.name).getJobState(job.id!)) === 'failed';
    });
    // Read the job only once it has failed: a copy read before (while it was still active) has
    // attemptsMade 0 even if the state read right after it says failed (the race that made
    // this test flaky).
    const failed = (await queues.getJob(buildDailyRecordsJob.name, job.id!))!;
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(/build-daily-records: invalid payload: serviceDay:/);
  });
});
