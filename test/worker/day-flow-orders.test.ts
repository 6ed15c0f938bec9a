import { FlowProducer } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { jobRuns, seedDay } from './support/day-data.js';
import { failingTransactions } from './support/db-faults.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

/** Runs the workers and checks that the day was built once, then exported once after it. */
async function runsOnce(serviceDay: number, exportJobId: string) {
  const queues = env.queues();
  env.workers(env.ctx(), queues);
  await waitFor(
    'the export',
    async () =>
      (await queues.queue(renderDailyExportJob.name).getJobState(exportJobId)) === 'completed',
  );
  const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, serviceDay);
  const exports = await jobRuns(env.database.db, renderDailyExportJob.name, serviceDay);
  expect(builds.map((r) => r.status)).toEqual(['completed']);
  expect(exports.map((r) => [r.job_id, r.status])).toEqual([[exportJobId, 'completed']]);
  expect(exports[0]!.started_at.getTime()).toBeGreaterThanOrEqual(
    builds[0]!.finished_at!.getTime(),
  );
}

describe('one pending build per day, by BullMQ deduplication, whichever comes first', () => {
  it('a lone build pending, then the day flow: the flow’s export waits for that build', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261111'), 3);
    const queues = env.queues();
    const lone = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    expect(lone.outcome).toBe('added');
    expect(lone.jobId).toMatch(new RegExp(`^build-${day.serviceDay}-`));
    const flow = await queues.enqueueDayFlow(day.serviceDay);
    expect(flow).toMatchObject({ outcome: 'added', buildJobId: lone.jobId });
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
    const exportJob = await queues.getJob(renderDailyExportJob.name, flow.jobId);
    expect(await exportJob!.getState()).toBe('waiting-children');
    expect(await exportJob!.getDependenciesCount()).toMatchObject({ unprocessed: 1 });
    await runsOnce(day.serviceDay, flow.jobId);
  });

  it('the day flow pending, then a lone build: BullMQ answers the flow’s build', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261112'), 3);
    const queues = env.queues();
    const flow = await queues.enqueueDayFlow(day.serviceDay);
    expect(flow.outcome).toBe('added');
    expect(await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay })).toEqual({
      jobId: flow.buildJobId,
      outcome: 'already-pending',
    });
    expect(await queues.enqueueDayFlow(day.serviceDay)).toEqual({
      ...flow,
      outcome: 'already-pending',
    });
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
    expect(await queues.queue(renderDailyExportJob.name).getWaitingChildrenCount()).toBe(1);
    await runsOnce(day.serviceDay, flow.jobId);
  });

  it('a lone build that became a flow’s child and fails for good fails that export', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261116'), 3);
    const config = { JOB_ATTEMPTS: '1' };
    const queues = env.queues(config);
    const lone = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    const flow = await queues.enqueueDayFlow(day.serviceDay);
    env.workers({ ...env.ctx(config), db: failingTransactions(env.database.db, 1) }, queues);
    await waitFor(
      'the export to fail with its build',
      async () =>
        (await queues.queue(renderDailyExportJob.name).getJobState(flow.jobId)) === 'failed',
    );
    expect(await queues.queue(buildDailyRecordsJob.name).getJobState(lone.jobId)).toBe('failed');
    expect(await jobRuns(env.database.db, renderDailyExportJob.name, day.serviceDay)).toEqual([]);
  });

  it('adds one build and one export when the same day is enqueued many times at once', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261113'), 3);
    const queues = env.queues();
    const [lone, flows] = await Promise.all([
      Promise.all(
        Array.from({ length: 4 }, () =>
          queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay }),
        ),
      ),
      Promise.all(Array.from({ length: 4 }, () => queues.enqueueDayFlow(day.serviceDay))),
    ]);
    const buildIds = new Set([...lone.map((r) => r.jobId), ...flows.map((r) => r.buildJobId)]);
    expect(buildIds.size).toBe(1);
    expect([...lone, ...flows].filter((r) => r.outcome === 'added').length).toBeGreaterThan(0);
    expect(lone.filter((r) => r.outcome === 'added').length).toBeLessThanOrEqual(1);
    expect(new Set(flows.map((r) => r.jobId)).size).toBe(1);
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
    expect(await queues.queue(renderDailyExportJob.name).getWaitingChildrenCount()).toBe(1);
    await runsOnce(day.serviceDay, flows[0]!.jobId);
  });

  it('two lone builds of one day at once: one added, the other answered with its id', async () => {
    const day = serviceDayFromYmd('20261114');
    const queues = env.queues();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => queues.enqueue(buildDailyRecordsJob, { serviceDay: day })),
    );
    const added = results.filter((r) => r.outcome === 'added');
    expect(added).toHaveLength(1);
    expect(results.every((r) => r.jobId === added[0]!.jobId)).toBe(true);
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
  });

  it('runs a finished build again: BullMQ released the deduplication id when it finished', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261115'), 3);
    const queues = env.queues();
    env.workers(env.ctx(), queues);
    const first = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    const buildQueue = queues.queue(buildDailyRecordsJob.name);
    await waitFor(
      'the first build',
      async () => (await buildQueue.getJobState(first.jobId)) === 'completed',
    );
    expect(await buildQueue.getDeduplicationJobId(`build-${day.serviceDay}`)).toBeNull();
    const second = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay });
    expect(second.outcome).toBe('added');
    expect(second.jobId).not.toBe(first.jobId);
    await waitFor(
      'the second build',
      async () => (await buildQueue.getJobState(second.jobId)) === 'completed',
    );
    const runs = await jobRuns(env.database.db, buildDailyRecordsJob.name, day.serviceDay);
    expect(runs.map((r) => [r.job_id, r.status])).toEqual([
      [first.jobId, 'completed'],
      [second.jobId, 'completed'],
    ]);
    // The finished job stays in Redis as history beside the new one.
    expect(await buildQueue.getJobState(first.jobId)).toBe('completed');
  });
});

describe('what BullMQ 6.7 refuses, and why the flows deduplicate through their builds', () => {
  it('refuses deduplication on a flow node with children and on a flow node with a parent', async () => {
    const flows = new FlowProducer({ connection: env.connection(), prefix: env.prefix });
    env.defer(() => flows.close());
    const build = { name: 'b', queueName: buildDailyRecordsJob.name, data: {} };
    await expect(
      flows.add({
        name: 'e',
        queueName: renderDailyExportJob.name,
        data: {},
        opts: { deduplication: { id: 'export-1' } },
        children: [build],
      }),
    ).rejects.toThrow('Deduplication options cannot be used on flow nodes with children');
    await expect(
      flows.add({
        name: 'e',
        queueName: renderDailyExportJob.name,
        data: {},
        children: [{ ...build, opts: { deduplication: { id: 'build-1' } } }],
      }),
    ).rejects.toThrow('Deduplication and parent options cannot be used together');
  });
});
