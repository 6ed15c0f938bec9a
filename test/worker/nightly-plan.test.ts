import { describe, expect, it } from 'vitest';
import { refreshReferenceModelsJob } from '../../jobs/index.js';
import type { Db, Queryable } from '../../src/shared/db/db.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { runNightlyInProcess } from '../../src/worker/in-process-runner.js';
import { NightlyIncompleteError } from '../../src/worker/nightly-plan.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { jobRuns, seedDay } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

/** A Db on which every build of `failingDay` fails (when it takes the day's lock). */
function failingBuildsOf(db: Db, failingDay: number): Db {
  const guard = (tx: Queryable): Queryable => ({
    copyFrom: tx.copyFrom.bind(tx),
    async query(sql, params) {
      if (sql.includes('pg_advisory_xact_lock') && params?.[1] === failingDay) {
        throw new Error(`injected: the build of day ${failingDay} fails`);
      }
      return tx.query(sql, params);
    },
  });
  return {
    ...db,
    kind: db.kind,
    query: db.query.bind(db),
    copyFrom: db.copyFrom.bind(db),
    copyTo: db.copyTo.bind(db),
    session: db.session.bind(db),
    close: db.close.bind(db),
    transaction: (fn) => db.transaction((tx) => fn(guard(tx))),
  };
}

/** The outcome of every (job, day) of a nightly: the last run's status. */
async function outcomes(days: number[]) {
  const runs = (await jobRuns(env.database.db)).filter(
    (r) => r.service_day !== null && days.includes(r.service_day),
  );
  const last = new Map<string, string>();
  for (const r of runs) last.set(`${r.job} ${r.service_day! - days[0]!}`, r.status);
  return Object.fromEntries([...last].sort());
}

describe('the nightly plan, the same on both runners', () => {
  it('a failing D-1 does not stop D nor the reference models, in-process and on BullMQ alike', async () => {
    // Two nights on two day pairs of the same database, one per runner.
    const inProcessDay = serviceDayFromYmd('20261020');
    const bullmqDay = serviceDayFromYmd('20261025');
    for (const d of [inProcessDay, bullmqDay]) {
      await seedDay(env.database.db, d - 1, 5);
      await seedDay(env.database.db, d, 5);
    }
    const config = { JOB_ATTEMPTS: '1' };

    const inProcessCtx = {
      ...env.ctx(config),
      db: failingBuildsOf(env.database.db, inProcessDay - 1),
    };
    const err = await runNightlyInProcess(
      inProcessCtx,
      midnightOfServiceDay(inProcessDay + 1) * 1000,
    ).catch((e: unknown) => e);
    expect(isEmutrackError(err, 'nightly_incomplete')).toBe(true);
    expect((err as NightlyIncompleteError).failures.map((f) => f.serviceDay)).toEqual([
      inProcessDay - 1,
    ]);
    expect((err as Error).message).toMatch(/^nightly of 20261020: 20261019 failed: injected/);

    const queues = env.queues(config);
    env.workers(
      { ...env.ctx(config), db: failingBuildsOf(env.database.db, bullmqDay - 1) },
      queues,
    );
    const night = await queues.enqueueNightlyFlow(bullmqDay);
    await waitFor(
      'the reference models of the BullMQ night',
      async () =>
        (await queues.queue(refreshReferenceModelsJob.name).getJobState(night.jobId)) ===
        'completed',
    );

    const expected = {
      'build-daily-records 0': 'failed',
      'build-daily-records 1': 'completed',
      'render-daily-export 1': 'completed',
      'refresh-reference-models 1': 'completed',
    };
    expect(await outcomes([inProcessDay - 1, inProcessDay])).toEqual(expected);
    expect(await outcomes([bullmqDay - 1, bullmqDay])).toEqual(expected);
  });
});
