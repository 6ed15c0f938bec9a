import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';

/** Why a day cannot have an export: it has not happened yet, or its records were never built. */
export type ExportRefusal = 'future_day' | 'not_built';

/**
 * A day's export refused, with nothing written: a day later than today (Shanghai) has no
 * records to export yet, and a day never built would be exported as empty, which would list it
 * in the export index as if it were a day without trains. The message is one line.
 */
export class ExportRefusedError extends EmutrackError {
  constructor(
    readonly serviceDay: number,
    readonly reason: ExportRefusal,
    today: number,
  ) {
    super(
      'export_refused',
      reason === 'future_day'
        ? `export of ${ymdOfServiceDay(serviceDay)} refused: the day is after today (${ymdOfServiceDay(today)}, Shanghai); nothing was written`
        : `export of ${ymdOfServiceDay(serviceDay)} refused: the day has no build (build it first: emutrack replay --from ${ymdOfServiceDay(serviceDay)} --to ${ymdOfServiceDay(serviceDay)}); nothing was written`,
    );
  }
}
