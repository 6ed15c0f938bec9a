import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { InvalidJobPayloadError } from '../../src/worker/execute-job.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useQueueEnv } from './support/queue-env.js';
import { jobRuns, recordCount, seedDay, storedExport } from './support/day-data.js';
import { completedJob } from './support/completed-job.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('the day flow on BullMQ', () => {
  it('builds the day, then exports it', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20260801'));
    const queues = env.queues();
    const enqueued = await queues.enqueueDayFlow(day.serviceDay);
    expect(enqueued.outcome).toBe('added');
    // Each job id is the job's deduplication id and a token; the export's is its build's.
    const token = enqueued.buildJobId.slice(`build-${day.serviceDay}-`.length);
    expect(enqueued.buildJobId).toBe(`build-${day.serviceDay}-${token}`);
    expect(enqueued.jobId).toBe(`export-${day.serviceDay}-${token}`);
    // The export waits for its child before any worker exists.
    const exportJob = await queues.getJob(renderDailyExportJob.name, enqueued.jobId);
    expect(await exportJob!.getState()).toBe('waiting-children');

    env.workers(env.ctx(), queues);
    const exported = await completedJob(
      queues,
      renderDailyExportJob.name,
      enqueued.jobId,
      'the export to be stored',
    );

    expect(await recordCount(env.database.db, day.serviceDay)).toBe(day.expectedRecords);
    expect((await storedExport(env.database.db, day.serviceDay))?.row_count).toBe(
      day.expectedRecords,
    );
    const build = await queues.getJob(buildDailyRecordsJob.name, enqueued.buildJobId);
    expect(build!.returnvalue).toMatchObject({ records: day.expectedRecords });
    expect(exported.processedOn!).toBeGreaterThanOrEqual(build!.finishedOn!);

    const runs = await jobRuns(env.database.db, undefined, day.serviceDay);
    expect(runs.map((r) => [r.job, r.job_id, r.status, r.via])).toEqual([
      ['build-daily-records', enqueued.buildJobId, 'completed', 'bullmq'],
      ['render-daily-export', enqueued.jobId, 'completed', 'bullmq'],
    ]);
    expect(runs[1]!.started_at.getTime()).toBeGreaterThanOrEqual(runs[0]!.finished_at!.getTime());
  });

  it('runs a day enqueued twice while pending once', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20260802'));
    const queues = env.queues();
    const flow = await queues.enqueueDayFlow(day.serviceDay);
    expect(flow.outcome).toBe('added');
    expect(await queues.enqueueDayFlow(day.serviceDay)).toEqual({
      ...flow,
      outcome: 'already-pending',
    });
    // A lone build of the same day is the flow's own child: pending too.
    expect(await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay })).toEqual({
      jobId: flow.buildJobId,
      outcome: 'already-pending',
    });

    env.workers(env.ctx(), queues);
    await waitFor('the export to complete', async () => {
      const job = await queues.getJob(renderDailyExportJob.name, flow.jobId);
      return (await job?.getState()) === 'completed';
    });
    const counts = await queues.queue(buildDailyRecordsJob.name).getJobCounts();
    expect(counts).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 1 });
    const runs = await jobRuns(env.database.db, undefined, day.serviceDay);
    expect(runs.map((r) => r.job)).toEqual(['build-daily-records', 'render-daily-export']);
  });

  it('runs a finished day again when it is enqueued again', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20260803'));
    const queues = env.queues();
    env.workers(env.ctx(), queues);
    const first = await queues.enqueueDayFlow(day.serviceDay);
    await waitFor('the export to complete', async () => {
      const job = await queues.getJob(renderDailyExportJob.name, first.jobId);
      return (await job?.getState()) === 'completed';
    });
    const again = await queues.enqueueDayFlow(day.serviceDay);
    expect(again.outcome).toBe('added');
    expect(again.jobId).not.toBe(first.jobId);
    expect(again.buildJobId).not.toBe(first.buildJobId);
    await waitFor('the second export run', async () => {
      const runs = await jobRuns(env.database.db, renderDailyExportJob.name, day.serviceDay);
      return runs.length === 2 && runs.every((r) => r.status === 'completed');
    });
    const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, day.serviceDay);
    expect(builds.map((r) => [r.status, (r.result as { inserted: number }).inserted])).toEqual([
      ['completed', day.expectedRecords],
      ['completed', 0],
    ]);
    expect(await recordCount(env.database.db, day.serviceDay)).toBe(day.expectedRecords);
  });

  it('refuses a bad payload before it reaches Redis, naming the field', async () => {
    const queues = env.queues();
    await expect(queues.enqueue(buildDailyRecordsJob, { serviceDay: -3 } as never)).rejects.toThrow(
      InvalidJobPayloadError,
    );
    await expect(queues.enqueue(buildDailyRecordsJob, {} as never)).rejects.toThrow(
      /build-daily-records: invalid payload: serviceDay:/,
    );
    const counts = await queues.queue(buildDailyRecordsJob.name).getJobCounts();
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  });
});
