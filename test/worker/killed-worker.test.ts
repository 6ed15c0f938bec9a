import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { ABANDONED_RUN_ERROR } from '../../src/worker/execute-job.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import {
  childBackends,
  startChildWorker,
  waitUntilChildSleepsInBuild,
} from './support/child-worker.js';
import { jobRuns, recordCount, seedDay, storedExport } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';
import { printFigures } from '../fault/support/api-load.js';

const env = useQueueEnv();

describe('a worker killed in the middle of a build', () => {
  it('leaves its job to another worker, which completes the day with no duplicate records', async () => {
    const { db } = env.database;
    const day = await seedDay(db, serviceDayFromYmd('20261001'), 60);
    const queues = env.queues();
    const flow = await queues.enqueueDayFlow(day.serviceDay);

    // Both workers run with the production defaults (JOB_LOCK_MS, JOB_STALLED_INTERVAL_MS):
    // the recovery time measured is the one operators get.
    const child = await startChildWorker(env.childEnv({ SLOW_BUILD_SECONDS: '120' }));
    env.defer(async () => child.process.kill('SIGKILL'));
    await waitUntilChildSleepsInBuild(db, child);
    const build = await queues.getJob(buildDailyRecordsJob.name, flow.buildJobId);
    expect(await build!.getState()).toBe('active');

    const killedAt = Date.now();
    child.process.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    // Postgres notices the dead client and rolls its transaction back: nothing half-built.
    await waitFor('the killed worker’s connections to close', async () => {
      return (await childBackends(db, child)) === 0;
    });
    expect(await recordCount(db, day.serviceDay)).toBe(0);

    // A second worker finds the job stalled once the dead worker's lock lapses, and runs it.
    const { config } = env.ctx();
    env.workers(env.ctx(), queues, {
      lockDuration: config.JOB_LOCK_MS,
      stalledInterval: config.JOB_STALLED_INTERVAL_MS,
    });
    const bound = config.JOB_LOCK_MS + 2 * config.JOB_STALLED_INTERVAL_MS;
    await waitFor(
      'the build to be taken over by the second worker',
      async () => (await jobRuns(db, buildDailyRecordsJob.name, day.serviceDay)).length === 2,
      // The bound, plus room for timers late on a busy machine.
      { timeoutMs: bound + 15_000 },
    );
    const takenOverMs = Date.now() - killedAt;
    await waitFor('the day flow to complete on the second worker', async () => {
      const job = await queues.getJob(renderDailyExportJob.name, flow.jobId);
      return (await job?.getState()) === 'completed';
    });
    printFigures('worker SIGKILLed mid-build', {
      'lock (JOB_LOCK_MS)': config.JOB_LOCK_MS,
      'stalled check every (JOB_STALLED_INTERVAL_MS)': config.JOB_STALLED_INTERVAL_MS,
      'bound: lock + 2 stalled intervals (ms)': bound,
      'kill to build restarted on another worker (ms)': takenOverMs,
      'kill to day complete (ms)': Date.now() - killedAt,
    });

    expect(await recordCount(db, day.serviceDay)).toBe(day.expectedRecords);
    const keys = await db.query<{ n: number; keys: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (train_code, emu_id))::int AS keys
         FROM daily_records WHERE service_day = $1`,
      [day.serviceDay],
    );
    expect(keys.rows[0]).toEqual({ n: day.expectedRecords, keys: day.expectedRecords });
    expect((await storedExport(db, day.serviceDay))?.row_count).toBe(day.expectedRecords);
    // The day is complete: building it again changes nothing.
    expect(await buildDailyRecords(db, day.serviceDay)).toMatchObject({
      records: day.expectedRecords,
      inserted: 0,
      updated: 0,
      deleted: 0,
    });

    const builds = await jobRuns(db, buildDailyRecordsJob.name, day.serviceDay);
    expect(builds.map((r) => [r.attempt, r.status, r.error])).toEqual([
      [1, 'failed', ABANDONED_RUN_ERROR],
      [2, 'completed', null],
    ]);
    const done = await queues.getJob(buildDailyRecordsJob.name, flow.buildJobId);
    expect(done!.stalledCounter).toBe(1);
    expect(done!.attemptsMade).toBe(1);
  }, 150_000);
});
