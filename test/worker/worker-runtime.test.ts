import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestObservationsJob, nightlyJob } from '../../jobs/index.js';
import { startWorkerRuntime } from '../../src/worker/worker-runtime.js';
import { serviceDayOf } from '../../src/shared/time/service-day.js';
import { daySightings, jobRuns, recordCount, storedExport } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();

async function inboxWith(days: number[], trains: number): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-inbox-'));
  env.defer(() => rm(dir, { recursive: true, force: true }));
  for (const day of days) {
    const lines = daySightings(day, trains).map((s) => JSON.stringify(s));
    await writeFile(path.join(dir, `day-${day}.ndjson`), lines.join('\n') + '\n');
  }
  return dir;
}

async function observationCount(day: number): Promise<number> {
  const r = await env.database.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM observations WHERE service_day = $1',
    [day],
  );
  return r.rows[0]!.n;
}

describe('the worker runtime', () => {
  it('without REDIS_URL: sweeps the inbox and runs the nightly flow in this process', async () => {
    const today = serviceDayOf(Math.floor(Date.now() / 1000));
    const days = [today - 1, today];
    const inbox = await inboxWith(days, 5);
    const ctx = env.ctx({ REDIS_URL: '', NIGHTLY_CRON: '* * * * * *', INBOX_DIR: inbox });
    const runtime = await startWorkerRuntime(ctx, { inboxSweepMs: 100 });
    env.defer(() => runtime.close());
    expect(runtime.mode).toBe('in-process');

    await waitFor('the inbox to be swept', async () => {
      const done = await readdir(path.join(inbox, 'done')).catch(() => []);
      return done.length === 2;
    });
    for (const day of days) expect(await observationCount(day)).toBe(12);
    const tick = await waitFor('a nightly tick after the sweep', async () => {
      const ticks = await jobRuns(env.database.db, nightlyJob.name);
      const ingested = (await jobRuns(env.database.db, ingestObservationsJob.name)).find(
        (r) => r.status === 'completed' && (r.result as { files: number }).files > 0,
      );
      return (
        ingested &&
        ticks.find((t) => t.started_at > ingested.finished_at! && t.status === 'completed')
      );
    });
    expect(tick.via).toBe('in-process');
    const day = (tick.result as { serviceDay: number }).serviceDay;
    expect(days).toContain(day);
    const stored = await waitFor('the export of the tick’s day', async () => {
      const e = await storedExport(env.database.db, day);
      return e && e.row_count > 0 && e;
    });
    expect(stored.row_count).toBe(6);
    expect(await recordCount(env.database.db, day)).toBe(6);

    await runtime.close();
    const after = (await jobRuns(env.database.db)).length;
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await jobRuns(env.database.db)).length).toBe(after);
  });

  it('with REDIS_URL: sweeps the inbox through the ingest queue, and an empty inbox records no run', async () => {
    // Days a month back: the test before this one ingests yesterday and today into the same
    // database, and fixed dates would meet those on the day they name.
    const day = serviceDayOf(Math.floor(Date.now() / 1000)) - 30;
    const inbox = await inboxWith([day], 4);
    const ctx = env.ctx({ INBOX_DIR: inbox });
    let emptySweeps = 0;
    const runtime = await startWorkerRuntime(ctx, {
      connection: env.connection(),
      inboxSweepMs: 100,
      onInboxSweep: (found) => void (found || emptySweeps++),
    });
    env.defer(() => runtime.close());
    expect(runtime.mode).toBe('bullmq');

    await waitFor('the inbox to be swept', async () => {
      const done = await readdir(path.join(inbox, 'done')).catch(() => []);
      return done.length === 1;
    });
    expect(await observationCount(day)).toBe(10);
    // Sweeps of the empty inbox enqueue nothing and record nothing.
    const seen = emptySweeps;
    await waitFor('three sweeps of the empty inbox', async () => emptySweeps >= seen + 3);
    const ingestRuns = async () =>
      (await jobRuns(env.database.db, ingestObservationsJob.name)).filter(
        (x) => x.via === 'bullmq',
      );
    expect((await ingestRuns()).length).toBe(1);
    // The next file is the next run.
    const next = day + 1;
    await writeFile(
      path.join(inbox, 'next.ndjson'),
      daySightings(next, 2)
        .map((s) => JSON.stringify(s))
        .join('\n') + '\n',
    );
    const runs = await waitFor('the next file swept', async () => {
      const r = await ingestRuns();
      return r.length === 2 && r.every((x) => x.status === 'completed') && r;
    });
    // One sweep at a time (deduplicated under inbox-<dir>), each a job of its own.
    expect(runs.every((r) => r.job_id.startsWith('inbox-'))).toBe(true);
    expect(new Set(runs.map((r) => r.job_id)).size).toBe(runs.length);
    for (let i = 1; i < runs.length; i++) {
      expect(runs[i]!.started_at.getTime()).toBeGreaterThanOrEqual(
        runs[i - 1]!.finished_at!.getTime(),
      );
    }
    // The nightly scheduler was upserted by the start-up.
    const schedulers = await runtime.queues!.queue(nightlyJob.name).getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.pattern, s.tz])).toEqual([
      ['nightly', '0 0 * * *', 'Asia/Shanghai'],
    ]);
  });
});
