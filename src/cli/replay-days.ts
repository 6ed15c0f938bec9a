import cliProgress from 'cli-progress';
import type { AppContext } from '../shared/app/app-context.js';
import { buildDailyRecordsJob, renderDailyExportJob } from '../../jobs/index.js';
import { runInProcess, type DayRunResult } from '../worker/in-process-runner.js';
import { ymdOfServiceDay } from '../shared/time/service-day.js';

export interface ReplayOutcome {
  days: number;
  succeeded: DayRunResult[];
  failed: { serviceDay: number; error: string }[];
}

export interface ReplayOptions {
  /** Where progress goes; a TTY gets a progress bar, anything else one line per day. */
  stream?: NodeJS.WriteStream;
  /** Rebuild days whose inputs did not change since their last build (default: skip them). */
  force?: boolean;
}

/**
 * Builds and exports every day from `from` to `to` (inclusive) in order, through the same job
 * code as the nightly flow. Idempotent; a failing day is reported and the others proceed. A
 * day whose inputs did not change since its last build is skipped (its export is still
 * rendered, which changes nothing when the records did not), unless `force`.
 */
export async function replayDays(
  ctx: AppContext,
  from: number,
  to: number,
  options: ReplayOptions = {},
): Promise<ReplayOutcome> {
  const stream = options.stream ?? process.stderr;
  const total = to - from + 1;
  const outcome: ReplayOutcome = { days: total, succeeded: [], failed: [] };
  const bar = stream.isTTY
    ? new cliProgress.SingleBar(
        {
          stream,
          format:
            'replay {bar} {value}/{total} days | {day} | records {records} | failed {failed} | ETA {eta_formatted}',
          etaBuffer: 20,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let records = 0;
  bar?.start(total, 0, { day: ymdOfServiceDay(from), records: 0, failed: 0 });
  for (let day = from; day <= to; day++) {
    const ymd = ymdOfServiceDay(day);
    try {
      const build = await runInProcess(ctx, buildDailyRecordsJob, {
        serviceDay: day,
        force: options.force ?? false,
      });
      const exported = await runInProcess(ctx, renderDailyExportJob, { serviceDay: day });
      const r: DayRunResult = { serviceDay: day, build, export: exported };
      outcome.succeeded.push(r);
      records += r.build.records;
      if (!bar) {
        stream.write(
          `${ymd} ok: ${r.build.records} records (+${r.build.inserted} ~${r.build.updated} -${r.build.deleted}), ` +
            `export ${r.export.rowCount} rows${r.export.changed ? '' : ' (unchanged)'}` +
            `${r.build.skipped ? ', build skipped (inputs unchanged)' : ''}\n`,
        );
      }
    } catch (err) {
      const message = (err as Error).message;
      outcome.failed.push({ serviceDay: day, error: message });
      ctx.logger.error({ err, serviceDay: day }, 'replay: day failed');
      if (!bar) stream.write(`${ymd} FAILED: ${message}\n`);
    }
    bar?.increment(1, { day: ymd, records, failed: outcome.failed.length });
  }
  bar?.stop();
  for (const f of bar ? outcome.failed : [])
    stream.write(`${ymdOfServiceDay(f.serviceDay)} FAILED: ${f.error}\n`);
  return outcome;
}
