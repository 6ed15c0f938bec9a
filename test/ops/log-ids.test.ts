import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob } from '../../jobs/index.js';
import type { Db } from '../../src/shared/db/db.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { capturingLogger, makeApp } from '../api/helpers/api-harness.js';
import { seedDay } from '../worker/support/day-data.js';
import { failingTransactions } from '../worker/support/db-faults.js';
import { useQueueEnv } from '../worker/support/queue-env.js';

const env = useQueueEnv();

describe('log lines carry the job or request id', () => {
  it('every job run logs its start and outcome with the job name, id and attempt', async () => {
    const day = await seedDay(env.database.db, serviceDayFromYmd('20261120'), 3);
    const { logger, lines } = capturingLogger();
    const ctx = { ...env.ctx(), logger };
    await runInProcess(ctx, buildDailyRecordsJob, { serviceDay: day.serviceDay });
    const failing = { ...ctx, db: failingTransactions(env.database.db, 1) };
    await expect(
      runInProcess(failing, buildDailyRecordsJob, { serviceDay: day.serviceDay }),
    ).rejects.toThrow('injected failure 1');

    const runLines = lines().filter((l) => String(l.msg).startsWith('job run '));
    expect(runLines.map((l) => [l.msg, l.job, l.jobId, l.attempt, l.via])).toEqual([
      ['job run started', 'build-daily-records', `build-${day.serviceDay}`, 1, 'in-process'],
      ['job run completed', 'build-daily-records', `build-${day.serviceDay}`, 1, 'in-process'],
      ['job run started', 'build-daily-records', `build-${day.serviceDay}`, 1, 'in-process'],
      ['job run failed', 'build-daily-records', `build-${day.serviceDay}`, 1, 'in-process'],
    ]);
    expect(runLines[3]!.err).toBe('injected failure 1');
  });

  it('an API error is logged with the id of the request it answered', async () => {
    const broken = {
      ...env.database.db,
      query: async () => {
        throw new Error('relation "daily_records" is broken');
      },
    } as unknown as Db;
    const { logger, lines } = capturingLogger();
    const app = await makeApp(broken, { logger });
    env.defer(() => app.close());
    const res = await app.inject({
      url: '/api/v2/records/daily?date=20261120',
      headers: { 'x-request-id': 'req-ops-42' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toEqual({
      code: 'internal',
      message: 'internal error (request req-ops-42)',
    });
    const logged = lines().filter((l) => l.level === 50);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((l) => l.reqId === 'req-ops-42')).toBe(true);
  });
});
