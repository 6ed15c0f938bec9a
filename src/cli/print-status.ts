import type { AppContext } from '../shared/app/app-context.js';
import { summariseRejects } from '../domain/ingest/read-rejects.js';
import { allJobs } from '../../jobs/index.js';
import { queueStatus, type JobRunSummary } from '../worker/queue-status.js';
import { printStaleDays } from './print-stale-days.js';
import { printSourcesStatus, sourceJson, sourcesNow } from './print-sources.js';
import { ymdOfServiceDay } from '../shared/time/service-day.js';
import { shanghaiTime } from '../shared/time/shanghai-time.js';

/** Job and queue names are padded to the longest (refresh-reference-models): rows line up. */
const NAME_WIDTH = Math.max(...allJobs.map((j) => j.name.length));

function runLine(r: JobRunSummary): string {
  const took = r.finishedAt ? ` in ${Date.parse(r.finishedAt) - Date.parse(r.startedAt)} ms` : '';
  const day = r.serviceDay === null ? '        ' : ymdOfServiceDay(r.serviceDay);
  return `  ${day}  ${r.job.padEnd(NAME_WIDTH)}  ${r.status.padEnd(9)} ${shanghaiTime(r.startedAt)}${took} (${r.via}, attempt ${r.attempt})${r.error ? `: ${r.error}` : ''}`;
}

/** The files with rejected lines, newest first, and where to read the lines. */
async function printRejects(ctx: AppContext, out: (line: string) => void): Promise<void> {
  const rejects = await summariseRejects(ctx.db, 5);
  if (rejects.total === 0) {
    out('rejected lines: none');
    return;
  }
  out(`rejected lines: ${rejects.total} (emutrack rejects [--day YYYYMMDD] lists them)`);
  const width = Math.max(...rejects.files.map((f) => f.file.length));
  for (const f of rejects.files)
    out(
      `  ${f.file.padEnd(width)}  ${String(f.lines).padStart(6)}  last ${shanghaiTime(f.lastAt)}`,
    );
}

/**
 * `emutrack status`: where the data lives, BullMQ counts and schedulers, failed jobs with their
 * reasons, the days with sightings but no export, rejected lines, stale days, the sources (lag
 * and counters), and the last runs per day.
 * Times are Shanghai's (the zone of the service days and of the cron schedules).
 */
export async function printStatus(
  ctx: AppContext,
  opts: { days: number; json?: boolean },
  out: (line: string) => void,
): Promise<void> {
  const status = await queueStatus(ctx, undefined, { days: opts.days });
  const { sources, nowMs } = await sourcesNow(ctx.db);
  if (opts.json) {
    out(
      JSON.stringify({
        database: ctx.db.kind,
        ...status,
        rejects: await summariseRejects(ctx.db, 5),
        sources: sources.map((s) => sourceJson(s, nowMs)),
      }),
    );
    return;
  }
  out(
    `database: ${ctx.db.kind === 'pglite' ? `embedded (PGlite, ${ctx.config.DATA_DIR})` : 'postgres'}`,
  );
  const redis = status.redis;
  if (!redis.configured) {
    out('queue: in-process (no REDIS_URL)');
  } else if ('error' in redis) {
    out(`queue: redis (prefix ${redis.prefix}) UNREACHABLE: ${redis.error}`);
  } else {
    out(`queue: redis (prefix ${redis.prefix})`);
    for (const q of redis.queues) {
      const c = q.counts;
      out(
        `  ${q.queue.padEnd(NAME_WIDTH)}  waiting ${c.waiting}, active ${c.active}, delayed ${c.delayed}, ` +
          `waiting-children ${c.waitingChildren}, completed ${c.completed}, failed ${c.failed}`,
      );
    }
    for (const s of redis.schedulers)
      out(
        `  scheduler ${s.id}: ${s.pattern ?? ''} (${s.tz ?? 'UTC'}), next ${s.next ? shanghaiTime(s.next) : 'none'}`,
      );
    if (redis.failed.length > 0) {
      out('failed jobs (all attempts used; retry or remove them at /admin/queues):');
      for (const f of redis.failed) {
        out(
          `  ${f.queue.padEnd(NAME_WIDTH)}  ${f.jobId} ${f.failedAt ? shanghaiTime(f.failedAt) : ''} after ${f.attemptsMade} attempt(s): ${f.reason}`,
        );
      }
    }
  }
  out(
    status.daysMissingExport.length === 0
      ? 'days missing an export: none'
      : `days missing an export: ${status.daysMissingExport.map(ymdOfServiceDay).join(', ')}`,
  );
  await printRejects(ctx, out);
  await printStaleDays(ctx, out);
  printSourcesStatus(sources, nowMs, out);
  if (status.days.length === 0 && status.undated.length === 0) {
    out('no job has run yet');
    return;
  }
  if (status.days.length > 0) {
    out('last runs by service day:');
    for (const r of status.days) out(runLine(r));
  }
  if (status.undated.length > 0) {
    out('last runs of other jobs:');
    for (const r of status.undated) out(runLine(r));
  }
}
