import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { serviceDayFromYmd } from '../../src/time/service-day.js';
import { jobRuns, seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

async function runsOnce(serviceDay: number) {
  const queues = env.queues();
  env.workers(env.ctx(), queues);
  await waitFor(
    'the export',
    async () =>
      (await queues.queue(renderDailyExportJob.name).getJobState(`export-${serviceDay}`)) ===
      'completed',
  );
  const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, serviceDay);
  const exports = await jobRuns(env.database.db, renderDailyExportJob.name, serviceDay);
  expect(builds.map((r) => r.status)).toEqual(['completed']);
  expect(exports.map((r) => r.status)).toEqual(['completed']);
  expect(exports[0]!.started_at.getTime()).toBeGreaterThanOrEqual(
    builds[0]!.finished_at!.getTime(),
  );
}

describe('one pending build per day, whichever comes first', () => {
  it('a lone build pending, then the day flow: the flow takes that build as its own', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261111'), 3);
    const queues = env.queues();
    expect(await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay })).toEqual({
      jobId: `build-${day.serviceDay}`,
      outcome: 'added',
    });
    expect((await queues.enqueueDayFlow(day.serviceDay)).outcome).toBe('added');
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
    await runsOnce(day.serviceDay);
  });

  it('the day flow pending, then a lone build: nothing is added', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261112'), 3);
    const queues = env.queues();
    expect((await queues.enqueueDayFlow(day.serviceDay)).outcome).toBe('added');
    expect(await queues.enqueue(buildDailyRecordsJob, { serviceDay: day.serviceDay })).toEqual({
      jobId: `build-${day.serviceDay}`,
      outcome: 'already-pending',
    });
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(1);
    await runsOnce(day.serviceDay);
  });
});
