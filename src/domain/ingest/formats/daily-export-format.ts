import path from 'node:path';
import { DAILY_EXPORT_HEADER } from '../../exports/daily-export-csv.js';
import { parseTimetableTime } from '../../timetables/timetable-time.js';
import { serviceDayFromYmd } from '../../../shared/time/service-day.js';
import { isEmutrackError } from '../../../shared/errors/emutrack-error.js';
import { UnreadableFileError, type InputLine } from '../read-observation-lines.js';
import { csvRows } from './csv-rows.js';
import { dayObservation } from './day-observation.js';
import { headerIs, type FormatContext, type ObservationFormat } from './observation-format.js';

export const DAILY_EXPORT_SOURCE = 'daily-export';

/**
 * The live service's per-day export (the CSV emutrack exports itself): header
 * trainCode,emuCode,startStation,endStation,startTime,endTime, one row per train and unit of one
 * service day. The day is not in the rows: it comes from the file name (20260816.csv,
 * daily-20260816.csv, 2026-08-16.csv) or the command line (--date). Each row is one sighting
 * of that train on that unit that day, at its startTime when it has one.
 */
export const dailyExportFormat: ObservationFormat = {
  name: 'daily-export-csv',
  detect: (head) => headerIs(head.csvHeader, DAILY_EXPORT_HEADER),
  read: readDailyExport,
};

async function* readDailyExport(file: string, context: FormatContext): AsyncGenerator<InputLine> {
  const serviceDate = serviceDateOf(file, context);
  for await (const row of csvRows(file, () => undefined)) {
    if ('error' in row) {
      yield row;
      continue;
    }
    const cells = row.value as Record<string, string>;
    let offsetSeconds: number | undefined;
    const start = cells.startTime!.trim();
    if (start !== '') {
      const t = parseTimetableTime(start);
      if (typeof t !== 'number') {
        yield { line: row.line, raw: row.raw, field: 'startTime', error: `startTime: ${t.reason}` };
        continue;
      }
      offsetSeconds = t;
    }
    yield {
      line: row.line,
      raw: row.raw,
      value: dayObservation({
        source: DAILY_EXPORT_SOURCE,
        serviceDate,
        trainCode: cells.trainCode!,
        emuCode: cells.emuCode!,
        offsetSeconds,
      }),
    };
  }
}

const DATE_IN_NAME = /(?:^|\D)(\d{4})-?(\d{2})-?(\d{2})(?!\d)/;

/** The export's service day: from its name, else --date; both, they must agree. */
function serviceDateOf(file: string, context: FormatContext): string {
  const m = DATE_IN_NAME.exec(path.basename(file));
  const named = m ? `${m[1]}${m[2]}${m[3]}` : undefined;
  const fail = (why: string) => new UnreadableFileError(context.name, why);
  for (const [what, ymd] of [
    ['the file name', named],
    ['--date', context.serviceDate],
  ] as const) {
    if (ymd === undefined) continue;
    try {
      serviceDayFromYmd(ymd);
    } catch (err) {
      if (!isEmutrackError(err, 'invalid_service_date')) throw err;
      throw fail(`a daily export's service day: ${what} gives ${ymd}, ${err.message}`);
    }
  }
  if (named !== undefined && context.serviceDate !== undefined && named !== context.serviceDate)
    throw fail(
      `a daily export's file name says ${named} but --date says ${context.serviceDate}; give one or make them agree`,
    );
  const day = named ?? context.serviceDate;
  if (day === undefined)
    throw fail(
      "a daily export's rows do not say their service day: name the file after it (20260816.csv) or give --date YYYYMMDD",
    );
  return day;
}
