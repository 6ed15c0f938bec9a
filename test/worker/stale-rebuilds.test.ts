import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import type { ApiApp } from '../../src/http/api/app.js';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import {
  buildDailyRecords,
  type BuildResult,
} from '../../src/domain/records/build-daily-records.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { startWorkerRuntime } from '../../src/worker/worker-runtime.js';
import { serviceDayOf, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { makeApp } from '../api/helpers/api-harness.js';
import { ingestSightings, shanghai, type Sighting } from '../helpers/observations.js';
import { jobRuns, storedExport, type JobRunRow } from './support/day-data.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';
import { databaseNow } from '../helpers/database-clock.js';

/**
 * Late data as it arrives in the field: sightings of a day long built come in days
 * later, through the inbox, while the worker runs. The day must be rebuilt and re-exported by
 * the worker alone, once quiet for STALE_REBUILD_DELAY_MS, and the API must show it.
 */
const env = useQueueEnv();
const today = serviceDayOf(Date.now() / 1000);

/** Two reports of each unit on each train, at 10:00 Shanghai time of `day`. */
function reports(day: number, trains: [string, string][], tag: string): Sighting[] {
  const ymd = ymdOfServiceDay(day);
  return trains.flatMap(([trainCode, emuCode], i) =>
    [0, 1].map((k) => ({
      observedAt: shanghai(ymd, '10:00') + i * 60 + k,
      trainCode,
      emuCode,
      source: `src-${k}`,
      ref: `${tag}-${day}-${i}-${k}`,
    })),
  );
}

async function inboxDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-stale-inbox-'));
  env.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function dropInInbox(dir: string, name: string, lines: readonly Sighting[]): Promise<void> {
  // Written aside and renamed in: a sweep never reads half a file.
  const tmp = path.join(os.tmpdir(), `${name}.${process.pid}.part`);
  await writeFile(tmp, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await import('node:fs/promises').then((fs) => fs.rename(tmp, path.join(dir, name)));
}

const completedBuilds = async (day: number, since = new Date(0)): Promise<JobRunRow[]> =>
  (await jobRuns(env.database.db, buildDailyRecordsJob.name, day)).filter(
    (r) => r.status === 'completed' && new Date(r.started_at) >= since,
  );

async function get(app: ApiApp, url: string, etag?: string) {
  return app.inject({
    method: 'GET',
    url,
    headers: etag ? { 'if-none-match': etag } : {},
  });
}

describe('stale days rebuild themselves', () => {
  it('marks the days late sightings may change in the ingest transaction, at once', async () => {
    const db = env.database.db;
    const old = today - 12;
    await ingestSightings(db, reports(old, [['G7001', 'CR400AF-2001']], 'first'));
    await buildDailyRecords(db, old);
    expect(await listStaleDays(db)).toEqual([]);

    // A late sighting for the built day: the day is stale as soon as the sighting is stored,
    // and so is the day before (a cross-midnight train of it may be the one seen).
    await buildDailyRecords(db, old - 1);
    const result = await ingestSightings(db, reports(old, [['G7002', 'CR400AF-2002']], 'late'));
    expect(result.accepted).toBe(2);
    const stale = await listStaleDays(db);
    expect(stale.map((d) => d.serviceDay)).toEqual([old - 1, old]);
    expect(stale[0]!.causes).toEqual(['late-data']);

    // A duplicate changes nothing and marks nothing again.
    const marks = stale.map((d) => d.mark);
    await ingestSightings(db, reports(old, [['G7002', 'CR400AF-2002']], 'late'));
    expect((await listStaleDays(db)).map((d) => d.mark)).toEqual(marks);

    // Today's sightings (a day still filling up, built by the nightly run) mark nothing.
    await ingestSightings(db, reports(today, [['G7003', 'CR400AF-2003']], 'today'));
    expect((await listStaleDays(db)).map((d) => d.serviceDay)).toEqual([old - 1, old]);

    // The build clears what it saw; a build that saw nothing new leaves other days alone.
    const built = await buildDailyRecords(db, old);
    expect(built).toMatchObject({ inserted: 1, staleCleared: true });
    expect((await listStaleDays(db)).map((d) => d.serviceDay)).toEqual([old - 1]);
    await buildDailyRecords(db, old - 1);
    expect(await listStaleDays(db)).toEqual([]);
  });

  it.each([
    ['BullMQ', true],
    ['in-process (no Redis)', false],
  ])(
    '%s: a late sighting 8 days back via the inbox is rebuilt, re-exported and served with a new ETag, with no manual step',
    async (mode, withRedis) => {
      const db = env.database.db;
      const day = today - 8;
      // job_runs are stamped by the database's clock, so the runs since now are counted by it.
      const started = await databaseNow(db, -1000);
      const ymd = ymdOfServiceDay(day);
      // Each mode its own trains and refs (the file's tests share one database).
      const [seedTrain, lateTrain] = withRedis ? ['G7101', 'G7102'] : ['G7111', 'G7112'];
      await ingestSightings(db, reports(day, [[seedTrain, 'CR400AF-2101']], `seed-${mode}`));
      await buildDailyRecords(db, day);
      await renderDailyExport(db, day);
      const exportBefore = (await storedExport(db, day))!;

      const app = await makeApp(db, { env: { QUOTA_ANONYMOUS_CAPACITY: '100000' } });
      env.defer(() => app.close());
      const recordsUrl = `/api/v2/records/daily?date=${ymd}&limit=200`;
      const exportUrl = `/api/v2/exports/daily/${ymd}?binary=true`;
      const recordsBefore = await get(app, recordsUrl);
      const csvBefore = await get(app, exportUrl);
      expect(recordsBefore.statusCode).toBe(200);
      expect(csvBefore.statusCode).toBe(200);
      // Unchanged so far: a conditional request is answered 304.
      expect((await get(app, recordsUrl, recordsBefore.headers.etag as string)).statusCode).toBe(
        304,
      );

      const inbox = await inboxDir();
      const ctx = env.ctx({
        INBOX_DIR: inbox,
        STALE_REBUILD_DELAY_MS: '300',
        STALE_REBUILD_MAX_WAIT_MS: '5000',
        ...(withRedis ? {} : { REDIS_URL: '' }),
      });
      const runtime = await startWorkerRuntime(ctx, {
        ...(withRedis ? { connection: env.connection() } : {}),
        inboxSweepMs: 100,
        stalePollMs: 50,
      });
      env.defer(() => runtime.close());

      await dropInInbox(
        inbox,
        'late.ndjson',
        reports(day, [[lateTrain, 'CR400AF-2102']], `late-${mode}`),
      );
      await waitFor('the late file to be swept', async () => {
        const done = await readdir(path.join(inbox, 'done')).catch(() => []);
        return done.length === 1;
      });
      const rebuilt = await waitFor(
        'the day rebuilt and re-exported by the worker',
        async () => {
          const exp = await storedExport(db, day);
          return exp && exp.sha256 !== exportBefore.sha256 && exp;
        },
        { timeoutMs: 60_000 },
      );
      expect(rebuilt.row_count).toBe(exportBefore.row_count + 1);
      // One build of the day changed it: this mode's runner's (the other mode's test shares the
      // day). A poll that read the day as stale just before a build cleared it may enqueue one
      // more, which finds the inputs unchanged and is skipped: not a build of the day.
      const builds = (await completedBuilds(day, started)).filter(
        (r) =>
          r.via === (withRedis ? 'bullmq' : 'in-process') && !(r.result as BuildResult).skipped,
      );
      expect(builds).toHaveLength(1);
      expect(builds[0]!.result).toMatchObject({ inserted: 1, staleCleared: true });
      await waitFor('the day to leave stale_days', async () =>
        (await listStaleDays(db)).every((d) => d.serviceDay !== day),
      );
      const exports = (await jobRuns(db, renderDailyExportJob.name, day)).filter(
        (r) => r.status === 'completed' && new Date(r.started_at) >= started,
      );
      expect(exports.length).toBeGreaterThanOrEqual(1);

      // The API: records, export and their ETags changed together; the old tags are 200 now.
      const recordsAfter = await get(app, recordsUrl, recordsBefore.headers.etag as string);
      expect(recordsAfter.statusCode).toBe(200);
      expect(recordsAfter.headers.etag).not.toBe(recordsBefore.headers.etag);
      const items = (JSON.parse(recordsAfter.body) as { data: { items: unknown[] } }).data.items;
      expect(items.length).toBeGreaterThanOrEqual(2);
      const csvAfter = await get(app, exportUrl, csvBefore.headers.etag as string);
      expect(csvAfter.statusCode).toBe(200);
      expect(csvAfter.headers.etag).toBe(`"${rebuilt.sha256}"`);
      expect(csvAfter.body).toContain(lateTrain);
      expect(csvAfter.headers['cache-control']).not.toContain('immutable');
    },
    90_000,
  );

  it('two BullMQ workers: a burst of late lines for 30 days builds each day once, never two builds of a day at once', async () => {
    const db = env.database.db;
    const days = Array.from({ length: 30 }, (_, i) => today - 40 + i);
    // The days are built already (records, export), as they would be in the field.
    for (const day of days) {
      await ingestSightings(db, reports(day, [['G7201', 'CR400AF-2201']], 'seed'));
      await buildDailyRecords(db, day);
    }
    const ctx = env.ctx({ STALE_REBUILD_DELAY_MS: '1500', STALE_REBUILD_MAX_WAIT_MS: '60000' });
    const workers = await Promise.all(
      [0, 1].map(() => startWorkerRuntime(ctx, { connection: env.connection(), stalePollMs: 50 })),
    );
    for (const w of workers) env.defer(() => w.close());

    // 3,000 late lines in time order (ten chunks of 300, each its own transaction): each day
    // is marked by the chunks holding its lines, milliseconds apart.
    const late: Sighting[] = [];
    for (const day of days) {
      const trains: [string, string][] = Array.from({ length: 50 }, (_, i) => [
        `G${7300 + i}`,
        `CR400AF-${2300 + i}`,
      ]);
      late.push(...reports(day, trains, 'burst'));
    }
    const { ingestObservations } = await import('../../src/domain/ingest/ingest-observations.js');
    const dir = await inboxDir();
    const file = path.join(dir, 'burst.ndjson');
    await writeFile(file, late.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const ingested = await ingestObservations(db, file, { chunkSize: 300, parseThreads: 0 });
    expect(ingested.accepted).toBe(3000);

    await waitFor('every stale day rebuilt', async () => (await listStaleDays(db)).length === 0, {
      timeoutMs: 120_000,
    });
    const changedBuilds: JobRunRow[] = [];
    for (const day of days) {
      const runs = (await completedBuilds(day)).filter((r) => !(r.result as BuildResult).skipped);
      changedBuilds.push(...runs);
      expect(runs, `builds of ${ymdOfServiceDay(day)}`).toHaveLength(1);
      expect(runs[0]!.result).toMatchObject({ inserted: 50 });
    }
    // No two runs of one day's build ever overlapped (BullMQ's deduplication under build-<day>,
    // whichever worker's poll enqueued it).
    for (const day of days) {
      const runs = (await jobRuns(db, buildDailyRecordsJob.name, day)).filter(
        (r) => r.finished_at !== null,
      );
      const spans = runs
        .map((r) => [new Date(r.started_at).getTime(), new Date(r.finished_at!).getTime()] as const)
        .sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++)
        expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    }
    expect(changedBuilds).toHaveLength(30);
    // Both workers took part in polling; the deduplication kept it to one build per day.
    expect(workers.reduce((n, w) => n + w.staleRebuilds.handedOver, 0)).toBeGreaterThanOrEqual(30);
  }, 180_000);
});

describe('stale days on the embedded database (PGlite, no Redis)', () => {
  it('the in-process worker rebuilds and re-exports a day marked by late sightings', async () => {
    const { createPgliteDb } = await import('../../src/shared/db/pglite-db.js');
    const { migrate } = await import('../../src/shared/db/migrate.js');
    const { loadConfig } = await import('../../src/shared/config/config.js');
    const { pino } = await import('pino');
    const db = await createPgliteDb();
    try {
      await migrate(db);
      const day = today - 8;
      await ingestSightings(db, reports(day, [['G7701', 'CR400AF-2701']], 'pg-seed'));
      await buildDailyRecords(db, day);
      await renderDailyExport(db, day);
      const before = (await storedExport(db, day))!;
      const config = loadConfig({ LOG_LEVEL: 'silent', STALE_REBUILD_DELAY_MS: '100' });
      const runtime = await startWorkerRuntime(
        { config, db, logger: pino({ level: 'silent' }) },
        { stalePollMs: 50 },
      );
      try {
        expect(runtime.mode).toBe('in-process');
        await ingestSightings(db, reports(day, [['G7702', 'CR400AF-2702']], 'pg-late'));
        const after = await waitFor('the day re-exported', async () => {
          const exp = await storedExport(db, day);
          return exp && exp.sha256 !== before.sha256 && exp;
        });
        expect(after.row_count).toBe(before.row_count + 1);
        await waitFor('no stale day left', async () => (await listStaleDays(db)).length === 0);
      } finally {
        await runtime.close();
      }
    } finally {
      await db.close();
    }
  }, 60_000);
});
