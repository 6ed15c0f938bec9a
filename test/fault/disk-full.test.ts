import { describe, expect, it, vi } from 'vitest';
import { renderDailyExportJob } from '../../jobs/index.js';
import { runCli } from '../../src/cli/cli.js';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { jobRuns, seedDay } from '../worker/support/day-data.js';
import { useQueueEnv } from '../worker/support/queue-env.js';
import { waitFor } from '../worker/support/wait-for.js';
import { printFigures } from './support/api-load.js';

const env = useQueueEnv();

/**
 * Postgres running out of disk while it writes the export: a trigger raises what the server
 * raises then (SQLSTATE 53100), inside the real statement, after the CSV has been rendered.
 */
const DISK_FULL_TRIGGER = `
  CREATE FUNCTION fault_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'could not extend file "base/16384/24576": No space left on device'
      USING ERRCODE = '53100', HINT = 'Check free disk space.';
  END $$;
  CREATE TRIGGER fault_disk_full BEFORE INSERT OR UPDATE ON daily_exports
    FOR EACH ROW EXECUTE FUNCTION fault_disk_full();`;

async function stored(serviceDay: number) {
  const r = await env.database.db.query<{
    sha256: string;
    content: Buffer;
    row_count: number;
    rendered_at: Date;
    changed_at: Date;
  }>(
    'SELECT sha256, content, row_count, rendered_at, changed_at FROM daily_exports WHERE service_day = $1',
    [serviceDay],
  );
  return r.rows[0];
}

async function cli(...args: string[]) {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  try {
    return { code: await runCli(['node', 'emutrack', ...args]), stderr };
  } finally {
    err.mockRestore();
  }
}

describe('disk full while storing an export', () => {
  it('fails the export job with a clear error and leaves the stored export of the day unchanged', async () => {
    const { db } = env.database;
    const day = await seedDay(db, serviceDayFromYmd('20261105'), 10);
    await buildDailyRecords(db, day.serviceDay);
    const ctx = env.ctx({ JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
    await runInProcess(ctx, renderDailyExportJob, { serviceDay: day.serviceDay });
    const before = (await stored(day.serviceDay))!;
    // New data: a successful render now would change the stored bytes.
    await ingestSightings(db, sightings('20261105', 'G999', 'CR400BF-5999', 2));
    await buildDailyRecords(db, day.serviceDay);

    await db.query(DISK_FULL_TRIGGER);
    // In-process (the CLI, the embedded runtime): the error, by its code.
    const inProcess = await runInProcess(ctx, renderDailyExportJob, {
      serviceDay: day.serviceDay,
    }).catch((e: unknown) => e);
    expect(isEmutrackError(inProcess, 'export_storage_full')).toBe(true);
    // On BullMQ: every attempt fails the same way, and job_runs says why.
    const queues = env.queues({ JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
    env.workers(ctx, queues);
    const { jobId } = await queues.enqueue(renderDailyExportJob, { serviceDay: day.serviceDay });
    await waitFor(
      'the export job to fail for good',
      async () => (await queues.queue(renderDailyExportJob.name).getJobState(jobId)) === 'failed',
    );
    const failed = (await queues.getJob(renderDailyExportJob.name, jobId))!;
    const runs = await jobRuns(db, renderDailyExportJob.name, day.serviceDay);
    const after = (await stored(day.serviceDay))!;

    printFigures('disk full while storing an export (SQLSTATE 53100 inside the statement)', {
      'error (in-process)': (inProcess as Error).message,
      'BullMQ attempts': failed.attemptsMade,
      job_runs: runs.map((r) => `${r.via}#${r.attempt}:${r.status}`).join(' '),
      'stored export unchanged':
        after.sha256 === before.sha256 && after.content.equals(before.content),
    });

    const clear =
      /^export of 20261105 not stored: the database has no room left \(could not extend file .*No space left on device\); the stored export of that day is unchanged$/;
    expect((inProcess as Error).message).toMatch(clear);
    expect(failed.attemptsMade).toBe(2);
    expect(failed.failedReason).toMatch(clear);
    expect(runs.filter((r) => r.via === 'bullmq').map((r) => [r.attempt, r.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
    ]);
    // The first run (before the disk filled) completed; every one since failed, saying why.
    expect(runs.slice(1).every((r) => r.status === 'failed' && clear.test(r.error!))).toBe(true);
    expect(after).toEqual(before);

    // Room again: the same job runs afresh and stores the new bytes.
    await db.query('DROP TRIGGER fault_disk_full ON daily_exports');
    await runInProcess(ctx, renderDailyExportJob, { serviceDay: day.serviceDay });
    const recovered = (await stored(day.serviceDay))!;
    expect(recovered.row_count).toBe(day.expectedRecords + 1);
    expect(recovered.sha256).not.toBe(before.sha256);
  });

  it('emutrack export --out onto a full disk says so and exits non-zero', async () => {
    const { db } = env.database;
    const day = await seedDay(db, serviceDayFromYmd('20261106'), 3);
    await buildDailyRecords(db, day.serviceDay);
    const saved = { url: process.env.DATABASE_URL, level: process.env.LOG_LEVEL };
    process.env.DATABASE_URL = env.database.url;
    process.env.LOG_LEVEL = 'silent';
    try {
      // /dev/full: every write fails with ENOSPC, as on a full file system.
      const r = await cli('export', '20261106', '--out', '/dev/full');
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/no space left on device/i);
    } finally {
      process.env.DATABASE_URL = saved.url;
      process.env.LOG_LEVEL = saved.level;
      if (saved.url === undefined) delete process.env.DATABASE_URL;
      if (saved.level === undefined) delete process.env.LOG_LEVEL;
    }
  });
});
