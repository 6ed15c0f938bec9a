import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { z } from 'zod';
import { allJobs, type JobDefinition } from '../../jobs/index.js';
import { readRejects } from '../domain/ingest/read-rejects.js';
import { parseJobPayload } from '../worker/execute-job.js';
import { runInProcess } from '../worker/in-process-runner.js';
import { JobQueues } from '../worker/job-queues.js';
import { jobRetentionFromConfig } from '../shared/queues/job-options.js';
import { createRedisConnection } from '../shared/queues/redis-connection.js';
import { serviceDayFromYmd } from '../shared/time/service-day.js';
import { shanghaiTime } from '../shared/time/shanghai-time.js';
import { CliError, out, withAppContext } from './cli-context.js';

/** Payload fields given as paths: made absolute, since the worker does not share our cwd. */
const PATH_FIELDS = new Set(['path', 'inbox']);
/** Payload fields that are service days: given as YYYYMMDD. */
const DAY_FIELDS = new Set(['serviceDay']);

/**
 * `key=value` arguments as a job payload: a service day as YYYYMMDD, a path made absolute, a
 * whole number as a number, anything else as text. The job's own schema then checks it.
 */
export function payloadFromArgs(args: readonly string[]): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new CliError(`argument ${JSON.stringify(arg)}: expected key=value`, 2);
    const key = arg.slice(0, eq);
    const value = arg.slice(eq + 1);
    if (DAY_FIELDS.has(key)) {
      if (!/^\d{8}$/.test(value)) throw new CliError(`${key}: expected YYYYMMDD, got ${value}`, 2);
      payload[key] = serviceDayFromYmd(value);
    } else if (PATH_FIELDS.has(key)) payload[key] = path.resolve(value);
    else payload[key] = /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return payload;
}

function ymdOption(value: string): string {
  if (!/^\d{8}$/.test(value)) throw new InvalidArgumentError('expected YYYYMMDD');
  serviceDayFromYmd(value); // a date that exists
  return value;
}

function limitOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new InvalidArgumentError('expected a whole number 1-10000');
  return n;
}

/** `rejects` and `enqueue`: reading refused lines, and starting any job by hand. */
export function registerOperationsCommands(program: Command): void {
  program
    .command('rejects')
    .description('list rejected input lines (file, line, field, reason), newest first')
    .option('--day <YYYYMMDD>', 'only lines first refused on this day (Shanghai time)', ymdOption)
    .option('--limit <n>', 'at most this many lines', limitOption, 100)
    .option('--json', 'print the lines as JSON (one array)')
    .action(async (opts: { day?: string; limit: number; json?: boolean }) => {
      const rows = await withAppContext((ctx) =>
        readRejects(ctx.db, { limit: opts.limit, ...(opts.day ? { day: opts.day } : {}) }),
      );
      if (opts.json) {
        out(JSON.stringify(rows));
        return;
      }
      if (rows.length === 0) {
        out(opts.day ? `no rejected lines on ${opts.day}` : 'no rejected lines');
        return;
      }
      const where = rows.map((r) => `${r.file}:${r.line}`);
      const fields = rows.map((r) => r.field ?? '-');
      const w = Math.max(...where.map((s) => s.length));
      const f = Math.max(...fields.map((s) => s.length));
      rows.forEach((r, i) => {
        // The raw line is shown short and on one line: it is input, not ours to print whole.
        const raw = JSON.stringify(r.raw.length > 80 ? `${r.raw.slice(0, 77)}...` : r.raw);
        out(
          `${shanghaiTime(r.firstSeenAt)}  ${where[i]!.padEnd(w)}  ${fields[i]!.padEnd(f)}  ${r.reason}  ${raw}`,
        );
      });
    });

  const jobNames = allJobs.map((j) => j.name);
  program
    .command('enqueue')
    .description(
      `start a job: on the worker through BullMQ with REDIS_URL, else in this process (jobs: ${jobNames.join(', ')})`,
    )
    .argument('<job>', 'the job name')
    .argument('[args...]', 'its payload as key=value (serviceDay=YYYYMMDD, path=FILE, inbox=DIR)')
    .option('--json', 'print the outcome as JSON')
    .action(async (name: string, args: string[], opts: { json?: boolean }) => {
      // One job of the list, whichever: its own schema types its payload.
      const def = allJobs.find((j) => j.name === name) as
        JobDefinition<z.ZodType, unknown> | undefined;
      if (!def) throw new CliError(`unknown job ${name} (jobs: ${jobNames.join(', ')})`, 2);
      const raw = payloadFromArgs(args);
      await withAppContext(async (ctx) => {
        const payload = parseJobPayload(def, raw);
        const { config } = ctx;
        if (!config.REDIS_URL) {
          // No Redis, no worker to hand it to: the embedded setup runs jobs in-process.
          const result = await runInProcess(ctx, def, payload);
          if (opts.json) out(JSON.stringify({ job: name, via: 'in-process', result }));
          else out(`${name}: ran in this process (no REDIS_URL): ${JSON.stringify(result)}`);
          return;
        }
        const queues = new JobQueues({
          connection: createRedisConnection(config.REDIS_URL, 'producer'),
          ownsConnection: true,
          prefix: config.QUEUE_PREFIX,
          retention: jobRetentionFromConfig(config),
        });
        try {
          const r = await queues.enqueue(def, payload);
          if (opts.json) out(JSON.stringify({ job: name, via: 'bullmq', ...r }));
          else
            out(
              r.outcome === 'added'
                ? `${name}: enqueued as job ${r.jobId} (BullMQ, prefix ${config.QUEUE_PREFIX}); the worker runs it`
                : `${name}: job ${r.jobId} is already waiting (${r.outcome}); nothing added`,
            );
        } finally {
          await queues.close();
        }
      });
    });
}
