import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Command, InvalidArgumentError } from 'commander';
import { importFleet } from '../domain/emus/import-fleet.js';
import { importCoachLayouts } from '../domain/emus/import-coach-layouts.js';
import { EmutrackError, isEmutrackError } from '../shared/errors/emutrack-error.js';
import { renderDailyExport, getDailyExport } from '../domain/exports/daily-export-csv.js';
import { ingestObservations } from '../domain/ingest/ingest-observations.js';
import { ingestTimetables } from '../domain/timetables/ingest-timetables.js';
import { migrate } from '../shared/db/migrate.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../shared/time/service-day.js';
import { importOfficialCirculations } from '../domain/circulation/import-official.js';
import { inferCirculationsJob } from '../../jobs/index.js';
import { runInProcess } from '../worker/in-process-runner.js';
import { CliError, out, withAppContext } from './cli-context.js';
import { replayDays } from './replay-days.js';
import { printStatus } from './print-status.js';
import { registerAccountsCommands } from './commands-accounts.js';
import { registerOAuthCommands } from './commands-oauth.js';
import { registerSiteCommands } from './commands-site.js';
import { registerOperationsCommands } from './commands-ops.js';
import { packageVersion } from './package-version.js';
import { registerCorrectionsCommands } from './commands-corrections.js';
import { registerSourcesCommands } from './commands-sources.js';

function ymdArgument(value: string): number {
  try {
    return serviceDayFromYmd(value);
  } catch (err) {
    if (isEmutrackError(err, 'invalid_service_date')) throw new InvalidArgumentError(err.message);
    throw err;
  }
}

/** Ingestion commands fail when nothing was found to read, or when a file could not be read. */
function assertFilesRead(
  target: string,
  files: readonly { error?: string }[],
  kinds: string,
): void {
  if (files.length === 0) throw new CliError(`${target}: no ${kinds} files found`);
  const unreadable = files.filter((f) => f.error).length;
  if (unreadable > 0) throw new CliError(`${unreadable} file(s) could not be read`);
}

export function buildCli(): Command {
  const program = new Command()
    .name('emutrack')
    .description(
      "Which train number was run by which EMU on which service day: operators' commands.",
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .showSuggestionAfterError()
    // Set before the commands are added: subcommands copy these settings when created.
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.split('\n')[0]!.trim() + '\n') });

  program
    .command('ingest')
    .description(
      'ingest observations from a file, or every .ndjson, .jsonl, .json or .csv file in a directory: NDJSON or CSV sightings, daily export CSVs, rail.re rows (CSV or JSON), the format found from the content',
    )
    .argument('<file-or-directory>')
    .option(
      '--date <YYYYMMDD>',
      'the service day of daily export files whose name does not give it (20260816.csv)',
      (v: string) => (ymdArgument(v), v),
    )
    .option('--json', 'print the result as JSON')
    .action(async (target: string, opts: { json?: boolean; date?: string }) => {
      const result = await withAppContext((ctx) =>
        ingestObservations(ctx.db, target, {
          allowUnknownEmuForms: ctx.config.ALLOW_UNKNOWN_EMU_FORMS,
          ...(opts.date === undefined ? {} : { serviceDate: opts.date }),
        }),
      );
      if (opts.json) out(JSON.stringify(result));
      else {
        for (const f of result.files) {
          out(
            f.error
              ? `${f.file}: UNREADABLE: ${f.error}`
              : `${f.file}: read ${f.read}, accepted ${f.accepted}, duplicate ${f.duplicate}, rejected ${f.rejected} (${f.format})`,
          );
        }
        out(
          `total: read ${result.read}, accepted ${result.accepted}, duplicate ${result.duplicate}, rejected ${result.rejected}` +
            ` (batch ${result.batchId}${result.rejected > 0 ? '; emutrack rejects lists the rejected lines' : ''})`,
        );
      }
      assertFilesRead(target, result.files, '.ndjson, .jsonl, .json or .csv');
    });

  program
    .command('ingest-timetables')
    .description(
      'ingest timetables: a .json file (one train), an .ndjson file (one train per line), or every such file in a directory',
    )
    .argument('<file-or-directory>')
    .option('--json', 'print the result as JSON')
    .action(async (target: string, opts: { json?: boolean }) => {
      const result = await withAppContext((ctx) => ingestTimetables(ctx.db, target));
      if (opts.json) out(JSON.stringify(result));
      else {
        for (const f of result.files) {
          out(
            f.error
              ? `${f.file}: UNREADABLE: ${f.error}`
              : `${f.file}: read ${f.read}, accepted ${f.accepted} (${f.changed} new versions, ${f.unchanged} unchanged), rejected ${f.rejected}`,
          );
        }
        out(
          `total: read ${result.read}, accepted ${result.accepted}, new versions ${result.changed}, unchanged ${result.unchanged}, ` +
            `rejected ${result.rejected}, new contents ${result.newContents}` +
            ` (batch ${result.batchId}${result.rejected > 0 ? '; emutrack rejects lists the rejected lines' : ''})`,
        );
        if (result.changedFrom !== undefined)
          out(
            `timetables in force changed from ${ymdOfServiceDay(result.changedFrom)}: rebuild the days since (emutrack replay --from ${ymdOfServiceDay(result.changedFrom)} --to <YYYYMMDD>)`,
          );
      }
      assertFilesRead(target, result.files, '.json, .ndjson or .jsonl');
    });

  program
    .command('import-fleet')
    .description(
      'import or update EMUs from a fleet CSV (header row; emu_code required) or the allocation export (JSON array of units), and/or their coach layouts from a JSON file',
    )
    .argument('[file]')
    .option(
      '--coach-layouts <file>',
      'coach layouts: a JSON array of entries, or NDJSON (see README)',
    )
    .action(async (file: string | undefined, opts: { coachLayouts?: string }) => {
      if (file === undefined && opts.coachLayouts === undefined)
        throw new CliError('import-fleet needs a fleet CSV, --coach-layouts <file>, or both');
      try {
        await withAppContext(async (ctx) => {
          if (file !== undefined) {
            const r = await importFleet(ctx.db, file);
            out(
              `${r.file}: read ${r.read}, created ${r.created}, updated ${r.updated}, rejected ${r.rejected} (${r.format})`,
            );
            if (r.ignoredColumns.length > 0) out(`ignored columns: ${r.ignoredColumns.join(', ')}`);
          }
          if (opts.coachLayouts !== undefined) {
            const c = await importCoachLayouts(ctx.db, opts.coachLayouts);
            out(
              `${c.file}: read ${c.read} entries, accepted ${c.accepted}, rejected ${c.rejected}; coach layouts of ${c.units} EMUs set` +
                (c.rejected > 0
                  ? ` (batch ${c.batchId}; emutrack rejects lists the rejected lines)`
                  : ''),
            );
            if (c.unmatchedModels.length > 0)
              out(`models without registered EMUs: ${c.unmatchedModels.join(', ')}`);
          }
        });
      } catch (err) {
        if (isEmutrackError(err, 'fleet_file_invalid', 'coach_layout_file_invalid'))
          throw new CliError(err.message);
        throw err;
      }
    });

  program
    .command('export')
    .description("render one service day's CSV export and write it (stdout by default)")
    .argument('<YYYYMMDD>', 'service day', ymdArgument)
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (serviceDay: number, opts: { out?: string }) => {
      const content = await withAppContext(async (ctx) => {
        await renderDailyExport(ctx.db, serviceDay);
        return (await getDailyExport(ctx.db, serviceDay))!.content;
      });
      await pipeline(
        Readable.from([content]),
        opts.out ? createWriteStream(opts.out) : process.stdout,
      );
      if (opts.out)
        process.stderr.write(
          `${ymdOfServiceDay(serviceDay)}: ${content.length} bytes written to ${opts.out}\n`,
        );
    });

  program
    .command('replay')
    .description('build daily records and render the export of every day in a range (inclusive)')
    .requiredOption('--from <YYYYMMDD>', 'first service day', ymdArgument)
    .requiredOption('--to <YYYYMMDD>', 'last service day', ymdArgument)
    .option('--force', 'rebuild days whose inputs did not change since their last build', false)
    .action(async (opts: { from: number; to: number; force: boolean }) => {
      if (opts.to < opts.from) throw new CliError('--to is before --from');
      if (opts.to - opts.from >= 3660)
        throw new CliError('a replay covers at most 3660 days; split the range');
      const outcome = await withAppContext((ctx) =>
        replayDays(ctx, opts.from, opts.to, { force: opts.force }),
      );
      out(
        `replay: ${outcome.succeeded.length} of ${outcome.days} days done, ${outcome.failed.length} failed`,
      );
      if (outcome.failed.length > 0)
        throw new CliError(
          `failed days: ${outcome.failed.map((f) => ymdOfServiceDay(f.serviceDay)).join(', ')}`,
        );
    });

  program
    .command('infer-circulations')
    .description(
      'infer circulations over the window ending with a service day (default: yesterday) and replace the current ones',
    )
    .option('--as-of <YYYYMMDD>', "the window's last service day", ymdArgument)
    .action(async (opts: { asOf?: number }) => {
      const r = await withAppContext((ctx) =>
        runInProcess(ctx, inferCirculationsJob, opts.asOf === undefined ? {} : { asOf: opts.asOf }),
      );
      out(
        `circulations ${ymdOfServiceDay(r.windowStart)}-${ymdOfServiceDay(r.windowEnd)} (run ${r.runId}): ` +
          `${r.runs} runs (${r.runsOrderedBySighting} ordered by first sighting, no timetable), ` +
          `links kept ${r.linksKept} of ${r.linksSeen} (threshold ${r.threshold}, min support ${r.minSupport}), ` +
          `${r.routes} routes (${r.loopBreaks} loops cut), ${r.ms} ms`,
      );
      const o = r.official;
      if (o.checked > 0)
        out(
          `official tables: ${o.raw} raw_official, ${o.split} split_official, ${o.unmatched} unmatched_official`,
        );
    });

  program
    .command('import-circulations')
    .description(
      'import official circulation tables (JSON array or NDJSON, community format) and check them',
    )
    .argument('<file>')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      let r;
      try {
        r = await withAppContext((ctx) => importOfficialCirculations(ctx.db, file));
      } catch (err) {
        if (isEmutrackError(err, 'official_file_unreadable')) throw new CliError(err.message);
        throw err;
      }
      if (opts.json) {
        out(JSON.stringify(r));
        return;
      }
      out(
        `${r.file}: read ${r.read}, imported ${r.imported}, duplicate ${r.duplicate}, ` +
          `skipped ${r.skipped.length}, rejected ${r.rejected}` +
          (r.rejected > 0
            ? ` (batch ${r.batchId}; emutrack rejects lists the rejected lines)`
            : ''),
      );
      for (const s of r.skipped) out(`${s.where}: skipped: ${s.reason}`);
      for (const x of r.rejects) out(`${x.where}: rejected: ${x.reason}`);
      const c = r.checks;
      if (c.checked > 0)
        out(
          c.unspecified > 0
            ? `checked ${c.checked}: no inference run yet (validation unspecified until one runs)`
            : `checked ${c.checked}: ${c.raw} raw_official, ${c.split} split_official, ${c.unmatched} unmatched_official`,
        );
    });

  program
    .command('status')
    .description('queue counts and the last run of each job per service day')
    .option(
      '--days <n>',
      'how many recent service days to list',
      (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 366)
          throw new InvalidArgumentError('expected a whole number 1-366');
        return n;
      },
      14,
    )
    .option('--json', 'print the status as JSON')
    .action(async (opts: { days: number; json?: boolean }) => {
      await withAppContext((ctx) => printStatus(ctx, opts, out));
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const applied = await withAppContext((ctx) => migrate(ctx.db));
      out(
        applied.length === 0
          ? 'migrations: up to date'
          : `migrations applied: ${applied.join(', ')}`,
      );
    });

  registerAccountsCommands(program);
  registerOAuthCommands(program);
  registerSiteCommands(program);
  registerOperationsCommands(program);
  registerCorrectionsCommands(program);
  registerSourcesCommands(program);
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      // Commander has already printed its one-line reason (or the help / version text).
      return e.exitCode ?? 1;
    }
    // The product's own errors (EmutrackError, whatever the domain) are one line, no stack.
    if (err instanceof EmutrackError) {
      process.stderr.write(`emutrack: ${err.message}\n`);
      return err instanceof CliError ? err.exitCode : 1;
    }
    process.stderr.write(`emutrack: ${(err as Error).message ?? String(err)}\n`);
    if (process.env.EMUTRACK_DEBUG) console.error(err);
    return 1;
  }
}
