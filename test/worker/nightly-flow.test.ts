import { describe, expect, it } from 'vitest';
import {
  buildDailyRecordsJob,
  refreshReferenceModelsJob,
  renderDailyExportJob,
} from '../../jobs/index.js';
import { runNightlyInProcess } from '../../src/worker/in-process-runner.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, shanghai } from '../helpers/observations.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { jobRuns, recordCount, seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { completedJob } from './support/completed-job.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('the nightly flow', () => {
  it('on BullMQ: rebuilds the day before, builds and exports the day, then refreshes reference models', async () => {
    const day = serviceDayFromYmd('20261101');
    await seedDay(env.database.db, day - 1);
    const seeded = await seedDay(env.database.db, day);
    const queues = env.queues();
    const night = await queues.enqueueNightlyFlow(day);
    expect(night.outcome).toBe('added');
    expect(night.jobId).toMatch(new RegExp(`^refmodels-${day}-`));
    // While its builds are pending, the same night is not added twice.
    expect(await queues.enqueueNightlyFlow(day)).toEqual({ ...night, outcome: 'already-pending' });
    const refresh = await queues.getJob(refreshReferenceModelsJob.name, night.jobId);
    expect(await refresh!.getState()).toBe('waiting-children');
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(2);

    env.workers(env.ctx(), queues);
    const done = await completedJob(
      queues,
      refreshReferenceModelsJob.name,
      night.jobId,
      'the reference models to be refreshed',
    );
    expect(done.returnvalue).toMatchObject({ windowStart: day - 13, windowEnd: day, trains: 20 });
    const exported = (await jobRuns(env.database.db, renderDailyExportJob.name, day))[0]!;
    expect(done.processedOn!).toBeGreaterThanOrEqual(exported.finished_at!.getTime());
    expect(await recordCount(env.database.db, day)).toBe(seeded.expectedRecords);
    const dayBefore = await jobRuns(env.database.db, renderDailyExportJob.name, day - 1);
    expect(dayBefore.map((r) => r.status)).toEqual(['completed']);
    expect((await jobRuns(env.database.db, 'build-daily-records', day - 1)).length).toBe(1);
    expect((await jobRuns(env.database.db, 'refresh-reference-models', day))[0]).toMatchObject({
      status: 'completed',
      via: 'bullmq',
    });
  });

  it('on BullMQ, with a day already pending: the night waits for that day’s own build and export', async () => {
    const day = serviceDayFromYmd('20261105');
    await seedDay(env.database.db, day - 1, 3);
    await seedDay(env.database.db, day, 3);
    const queues = env.queues();
    const lone = await queues.enqueue(buildDailyRecordsJob, { serviceDay: day - 1 });
    const flow = await queues.enqueueDayFlow(day);

    const night = await queues.enqueueNightlyFlow(day);
    expect(night.outcome).toBe('added');
    // No build added: BullMQ answered the pending ones, and the night waits for them.
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(2);
    expect(await queues.queue(renderDailyExportJob.name).getWaitingChildrenCount()).toBe(2);
    const refresh = (await queues.getJob(refreshReferenceModelsJob.name, night.jobId))!;
    expect(await refresh.getDependenciesCount()).toMatchObject({ unprocessed: 2 });
    const dayExport = (await queues.getJob(renderDailyExportJob.name, flow.jobId))!;
    expect(dayExport.parentKey).toBe(
      `${env.prefix}:${refreshReferenceModelsJob.name}:${night.jobId}`,
    );

    env.workers(env.ctx(), queues);
    const done = await completedJob(
      queues,
      refreshReferenceModelsJob.name,
      night.jobId,
      'the reference models to be refreshed',
    );
    for (const d of [day - 1, day]) {
      const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, d);
      const exports = await jobRuns(env.database.db, renderDailyExportJob.name, d);
      expect(builds.map((r) => r.status)).toEqual(['completed']);
      expect(exports.map((r) => r.status)).toEqual(['completed']);
      expect(done.processedOn!).toBeGreaterThanOrEqual(exports[0]!.finished_at!.getTime());
    }
    expect((await jobRuns(env.database.db, buildDailyRecordsJob.name, day - 1))[0]!.job_id).toBe(
      lone.jobId,
    );
    expect((await jobRuns(env.database.db, renderDailyExportJob.name, day))[0]!.job_id).toBe(
      flow.jobId,
    );
  });

  it('on BullMQ, two nights pending at once: the day they share is built once, for the first night', async () => {
    const day = serviceDayFromYmd('20261108');
    for (const d of [day - 1, day, day + 1]) await seedDay(env.database.db, d, 3);
    const queues = env.queues();
    const first = await queues.enqueueNightlyFlow(day);
    const second = await queues.enqueueNightlyFlow(day + 1);
    expect([first.outcome, second.outcome]).toEqual(['added', 'added']);
    expect(await queues.queue(buildDailyRecordsJob.name).count()).toBe(3);
    // The day they share already waits for the first night (a BullMQ job has one parent).
    const secondRefresh = (await queues.getJob(refreshReferenceModelsJob.name, second.jobId))!;
    expect(await secondRefresh.getDependenciesCount()).toMatchObject({ unprocessed: 1 });

    env.workers(env.ctx(), queues);
    for (const night of [first, second]) {
      await waitFor('the night’s reference models', async () => {
        const job = await queues.getJob(refreshReferenceModelsJob.name, night.jobId);
        return (await job?.getState()) === 'completed';
      });
    }
    for (const d of [day - 1, day, day + 1]) {
      const builds = await jobRuns(env.database.db, buildDailyRecordsJob.name, d);
      const exports = await jobRuns(env.database.db, renderDailyExportJob.name, d);
      expect([d, builds.map((r) => r.status), exports.map((r) => r.status)]).toEqual([
        d,
        ['completed'],
        ['completed'],
      ]);
    }
  });

  it('in-process: the sightings after midnight of last night’s late train reach the day it left', async () => {
    const ctx = env.ctx({ REDIS_URL: '' });
    await ingestTimetableLines(env.database.db, [
      timetable('D3125', '20260201', [
        ['上海虹桥', undefined, '21:40'],
        ['蚌埠南', '25:10'],
      ]),
    ]);
    const first = serviceDayFromYmd('20260310');
    await ingestSightings(env.database.db, [
      {
        observedAt: shanghai('20260310', '21:50'),
        trainCode: 'D3125',
        emuCode: 'CRH380AL-2541',
        source: 'report',
        ref: 'nf-1',
      },
    ]);
    // The nightly of 03-10 runs at 00:00 on 03-11, before the train has arrived.
    const night1 = await runNightlyInProcess(ctx, midnightOfServiceDay(first + 1) * 1000);
    expect(night1.serviceDay).toBe(first);
    expect(night1.build.records).toBe(1);
    const support = async () =>
      (
        await env.database.db.query<{ support: number }>(
          "SELECT support FROM daily_records WHERE service_day = $1 AND train_code = 'D3125'",
          [first],
        )
      ).rows[0]!.support;
    expect(await support()).toBe(1);

    // At 01:00 on 03-11 it is seen once more, still on the run of 03-10.
    await ingestSightings(env.database.db, [
      {
        observedAt: shanghai('20260311', '01:00'),
        trainCode: 'D3125',
        emuCode: 'CRH380AL-2541',
        source: 'travel-code',
        ref: 'nf-2',
      },
    ]);
    const night2 = await runNightlyInProcess(ctx, midnightOfServiceDay(first + 2) * 1000);
    expect(night2.serviceDay).toBe(first + 1);
    expect(night2.previousDay).toMatchObject({
      serviceDay: first,
      build: { updated: 1 },
      export: { changed: false },
    });
    expect(night2.build.records).toBe(0);
    expect(await support()).toBe(2);
    expect(night2.referenceModels).toMatchObject({ windowEnd: first + 1, trains: 1, rows: 1 });
    const runs = await jobRuns(env.database.db, 'refresh-reference-models');
    expect(
      runs
        .filter((r) => r.service_day! >= first && r.service_day! <= first + 1)
        .map((r) => [r.service_day, r.via, r.status]),
    ).toEqual([
      [first, 'in-process', 'completed'],
      [first + 1, 'in-process', 'completed'],
    ]);
  });
});
