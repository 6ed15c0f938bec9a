import { InvalidArgumentError, type Command } from 'commander';
import { isEmutrackError } from '../shared/errors/emutrack-error.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../shared/time/service-day.js';
import { checkSourceSettings, checkTrains } from '../domain/sources/source-config.js';
import { addSource, getSource, removeSource } from '../domain/sources/source-store.js';
import { pullSource, type PullResult } from '../domain/sources/pull-source.js';
import { jobRetentionFromConfig } from '../shared/queues/job-options.js';
import { closeRedisConnection, createRedisConnection } from '../shared/queues/redis-connection.js';
import type { AppContext } from '../shared/app/app-context.js';
import { pullThroughQueue } from '../worker/source-pulls.js';
import { CliError, out, withAppContext } from './cli-context.js';
import { sourceJson, sourceLine, sourcesNow } from './print-sources.js';

/** How long `source pull` waits for the worker by default (seconds). */
const DEFAULT_PULL_WAIT_S = 3600;

/** A pull handed to the worker through the source's BullMQ queue, waited for. */
async function pullViaWorker(
  ctx: AppContext,
  redisUrl: string,
  payload: { source: string; from?: number; to?: number },
  waitSeconds: number,
): Promise<PullResult> {
  // Refused here, before anything is queued, as in-process.
  await getSource(ctx.db, payload.source);
  const connection = createRedisConnection(redisUrl, 'command');
  try {
    // A failure or a timeout is a source_queued_pull_failed, one line naming the source.
    return await pullThroughQueue(
      connection,
      ctx.config.QUEUE_PREFIX,
      jobRetentionFromConfig(ctx.config),
      payload,
      waitSeconds * 1000,
    );
  } finally {
    await closeRedisConnection(connection);
  }
}

function ymdOption(value: string): number {
  if (!/^\d{8}$/.test(value)) throw new InvalidArgumentError('expected YYYYMMDD');
  try {
    return serviceDayFromYmd(value);
  } catch (err) {
    if (isEmutrackError(err, 'invalid_service_date')) throw new InvalidArgumentError(err.message);
    throw err;
  }
}

/** The product's refusals of a source command, as the CLI's one-line errors. */
function asCliError(err: unknown): never {
  if (isEmutrackError(err, 'source_setting_invalid')) throw new CliError(err.message, 2);
  if (
    isEmutrackError(
      err,
      'source_not_found',
      'source_exists',
      'source_pull_failed',
      'source_queued_pull_failed',
    )
  )
    throw new CliError(err.message);
  throw err;
}

function pullSummary(r: PullResult): string {
  if (r.feed)
    return (
      `source ${r.source}: feed from ${r.feed.from === '' ? 'its start' : r.feed.from} to ${r.feed.cursor || 'its start'}, ` +
      `${r.feed.pages} page(s), ${r.feed.changes} change(s): taken ${r.taken}, duplicate ${r.duplicate}, refused ${r.refused}, ` +
      `retracted ${r.feed.retracted}, restored ${r.feed.restored}; ` +
      `${r.requests} request(s), ${r.refusals} refused by the server (429), waited ${Math.ceil(r.waitedMs / 1000)} s`
    );
  if (r.asked)
    return (
      `source ${r.source}: ${r.asked.items} train(s), ${r.asked.answered} of ${r.asked.planned} answer(s) read, ` +
      `taken ${r.taken}, duplicate ${r.duplicate}, refused ${r.refused}; ` +
      `${r.requests} request(s), ${r.refusals} refused by the server (429), waited ${Math.ceil(r.waitedMs / 1000)} s`
    );
  const days = r.days.length;
  const pages = r.days.reduce((n, d) => n + d.pages, 0);
  const unchanged = r.days.filter((d) => d.unchanged).length;
  return (
    `source ${r.source}: ${days} day(s), ${pages} page(s)${unchanged > 0 ? ` (${unchanged} day(s) unchanged)` : ''}, ` +
    `taken ${r.taken}, duplicate ${r.duplicate}, refused ${r.refused}; ` +
    `${r.requests} request(s), ${r.refusals} refused by the server (429), waited ${Math.ceil(r.waitedMs / 1000)} s`
  );
}

/** `emutrack source ...`: the other servers of the API this one pulls records from. */
export function registerSourcesCommands(program: Command): void {
  const source = program
    .command('source')
    .description('other emutrack servers this one pulls records from (docs/sources.md)');

  source
    .command('add')
    .description('add a source: a server whose API is at BASE_URL/api/v2')
    .argument('<name>', 'its name (letters, digits, ".", "_", "-"); its sightings carry it')
    .requiredOption(
      '--kind <kind>',
      "what it is: v2 (another emutrack server's days), v2-feed (its change feed) or railre (rail.re's API)",
    )
    .requiredOption('--url <base-url>', 'its base URL (http or https, no key in it)')
    .option('--api-key-env <var>', 'the NAME of the environment variable holding its API key')
    .option('--every <cron>', 'when to pull it (cron, Shanghai time), for the scheduler')
    .option('--rate <n>', 'requests per second at most (default 1)')
    .option('--trust <w>', 'weight of its sightings (default 1)')
    .option('--trains <list>', 'railre: the trains to ask for, G1,D3125 (default: those in force)')
    .action(
      async (
        name: string,
        opts: {
          kind: string;
          url: string;
          apiKeyEnv?: string;
          every?: string;
          rate?: string;
          trust?: string;
          trains?: string;
        },
      ) => {
        try {
          const settings = checkSourceSettings({ name, ...opts });
          const s = await withAppContext((ctx) => addSource(ctx.db, settings));
          out(
            `source ${s.name} added: ${s.kind} at ${s.baseUrl}, ` +
              (s.apiKeyEnv ? `key from $${s.apiKeyEnv}` : 'anonymous') +
              `, ${s.rate} request(s)/s, trust ${s.trust}` +
              (s.schedule ? `, every ${JSON.stringify(s.schedule)}` : ', pulled by hand') +
              (s.trains ? `, trains ${s.trains.join(',')}` : ''),
          );
        } catch (err) {
          asCliError(err);
        }
      },
    );

  source
    .command('list')
    .description(
      'list the sources: kind, URL, schedule, last success, lag, last error, lines, requests, 429s, errors',
    )
    .option('--json', 'print them as JSON (one array)')
    .action(async (opts: { json?: boolean }) => {
      const { sources, nowMs } = await withAppContext((ctx) => sourcesNow(ctx.db));
      if (opts.json) {
        out(JSON.stringify(sources.map((s) => sourceJson(s, nowMs))));
        return;
      }
      if (sources.length === 0) {
        out('no sources (emutrack source add NAME --kind v2 --url BASE_URL)');
        return;
      }
      for (const s of sources) out(sourceLine(s, nowMs));
    });

  source
    .command('remove')
    .description('remove a source and its cursors (the sightings it brought stay)')
    .argument('<name>')
    .action(async (name: string) => {
      try {
        await withAppContext((ctx) => removeSource(ctx.db, name));
      } catch (err) {
        asCliError(err);
      }
      out(`source ${name} removed`);
    });

  source
    .command('pull')
    .description(
      "pull a source's records of each day of a range (default: yesterday and today; a v2-feed source: its feed from its cursor): by the worker through BullMQ with REDIS_URL, else in this process",
    )
    .argument('<name>')
    .option('--from <YYYYMMDD>', 'first service day', ymdOption)
    .option('--to <YYYYMMDD>', 'last service day', ymdOption)
    .option('--trains <list>', 'railre: ask for these trains this time, G1,D3125 (in this process)')
    .option(
      '--wait <seconds>',
      `with REDIS_URL: how long to wait for the worker (default ${DEFAULT_PULL_WAIT_S})`,
    )
    .action(
      async (
        name: string,
        opts: { from?: number; to?: number; trains?: string; wait?: string },
      ) => {
        const wait = opts.wait === undefined ? DEFAULT_PULL_WAIT_S : Number(opts.wait);
        if (!Number.isFinite(wait) || wait <= 0)
          throw new CliError(
            `--wait: expected a number of seconds > 0 (got ${JSON.stringify(opts.wait)})`,
            2,
          );
        if ((opts.from === undefined) !== (opts.to === undefined))
          throw new CliError('--from and --to go together', 2);
        if (opts.from !== undefined && opts.to! < opts.from)
          throw new CliError('--to is before --from', 2);
        if (opts.from !== undefined && opts.to! - opts.from >= 366)
          throw new CliError('a pull covers at most 366 days; split the range', 2);
        let result: PullResult;
        try {
          const trains = opts.trains === undefined ? undefined : checkTrains(opts.trains);
          const range = opts.from !== undefined ? { from: opts.from, to: opts.to! } : {};
          // A one-off list of trains is this pull's own: it runs here, not as the worker's job.
          result = await withAppContext(async (ctx) => {
            if (opts.from !== undefined && (await getSource(ctx.db, name)).kind === 'v2-feed')
              throw new CliError(
                `--from: source ${name} follows a change feed from its own cursor; it takes no days (pull without --from and --to)`,
                2,
              );
            return ctx.config.REDIS_URL && !trains
              ? pullViaWorker(ctx, ctx.config.REDIS_URL, { source: name, ...range }, wait)
              : pullSource(ctx.db, name, {
                  ...range,
                  ...(trains ? { trains } : {}),
                  allowUnknownEmuForms: ctx.config.ALLOW_UNKNOWN_EMU_FORMS,
                });
          });
        } catch (err) {
          if (isEmutrackError(err, 'source_pull_failed')) {
            const partial = (err as { partial?: PullResult }).partial;
            if (partial) process.stderr.write(`${pullSummary(partial)} (stopped short)\n`);
          }
          asCliError(err);
        }
        out(pullSummary(result));
        if (result.serviceDays.length > 0)
          out(
            `new sightings on ${result.serviceDays.map(ymdOfServiceDay).join(', ')}: the worker rebuilds these days (or emutrack replay --from ${ymdOfServiceDay(result.serviceDays[0]!)} --to ${ymdOfServiceDay(result.serviceDays.at(-1)!)})`,
          );
      },
    );
}
