import { describe, expect, it } from 'vitest';
import { refreshReferenceModelsJob, renderDailyExportJob } from '../../jobs/index.js';
import { runNightlyInProcess } from '../../src/queue/in-process-runner.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/time/service-day.js';
import { ingestSightings, shanghai } from '../helpers/observations.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { jobRuns, recordCount, seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

describe('the nightly flow', () => {
  it('on BullMQ: rebuilds the day before, builds and exports the day, then refreshes reference models', async () => {
    const day = serviceDayFromYmd('20261101');
    await seedDay(env.database.db, day - 1);
    const seeded = await seedDay(env.database.db, day);
    const queues = env.queues();
    expect(await queues.enqueueNightlyFlow(day)).toEqual({
      jobId: `refmodels-${day}`,
      outcome: 'added',
    });
    expect((await queues.enqueueNightlyFlow(day)).outcome).toBe('already-pending');
    const refresh = await queues.getJob(refreshReferenceModelsJob.name, `refmodels-${day}`);
    expect(await refresh!.getState()).toBe('waiting-children');

    env.workers(env.ctx(), queues);
    const done = await waitFor('the reference models to be refreshed', async () => {
      const job = await queues.getJob(refreshReferenceModelsJob.name, `refmodels-${day}`);
      return (await job?.getState()) === 'completed' && job;
    });
    expect(done.returnvalue).toMatchObject({ windowStart: day - 13, windowEnd: day, trains: 20 });
    const exported = await queues.getJob(renderDailyExportJob.name, `export-${day}`);
    expect(done.processedOn!).toBeGreaterThanOrEqual(exported!.finishedOn!);
    expect(await recordCount(env.database.db, day)).toBe(seeded.expectedRecords);
    await waitFor('the day before to be exported again', async () => {
      const job = await queues.getJob(renderDailyExportJob.name, `export-${day - 1}`);
      return (await job?.getState()) === 'completed';
    });
    expect((await jobRuns(env.database.db, 'build-daily-records', day - 1)).length).toBe(1);
    expect((await jobRuns(env.database.db, 'refresh-reference-models', day))[0]).toMatchObject({
      status: 'completed',
      via: 'bullmq',
    });
  });

  it('in-process: the sightings after midnight of last night’s late train reach the day it left', async () => {
    const ctx = env.ctx({ REDIS_URL: '' });
    await ingestTimetableLines(env.database.db, [
      timetable('D3125', '20270201', [
        ['上海虹桥', undefined, '21:40'],
        ['蚌埠南', '25:10'],
      ]),
    ]);
    const first = serviceDayFromYmd('20270310');
    await ingestSightings(env.database.db, [
      {
        observedAt: shanghai('20270310', '21:50'),
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
        observedAt: shanghai('20270311', '01:00'),
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
      runs.filter((r) => r.service_day! >= first).map((r) => [r.service_day, r.via, r.status]),
    ).toEqual([
      [first, 'in-process', 'completed'],
      [first + 1, 'in-process', 'completed'],
    ]);
  });
});
