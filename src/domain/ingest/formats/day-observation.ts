import { parseEmuCode } from '../../emus/normalize-emu-code.js';
import { expandTrainCodes } from '../../trains/train-code.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../../shared/time/service-day.js';

/**
 * The observation a row of a per-day table stands for: this train on this unit on this service
 * day (serviceDate, so the build never moves it to another day). Such tables have no time of
 * sighting: observedAt is the day's midnight plus `offsetSeconds` (a departure, when the row
 * gives one). The ref is the day, train and unit in canonical form, so that a row is one
 * sighting however often, and in whatever file or spelling, the same source gives it.
 */
export function dayObservation(row: {
  source: string;
  /** YYYYMMDD, valid. */
  serviceDate: string;
  trainCode: string;
  emuCode: string;
  offsetSeconds?: number;
}): Record<string, unknown> {
  const midnight = midnightOfServiceDay(serviceDayFromYmd(row.serviceDate));
  return {
    observedAt: midnight + (row.offsetSeconds ?? 0),
    trainCode: row.trainCode,
    emuCode: row.emuCode,
    source: row.source,
    serviceDate: row.serviceDate,
    ref: `${row.serviceDate}/${canonical(() => expandTrainCodes(row.trainCode).join('/'), row.trainCode)}/${canonical(() => parseEmuCode(row.emuCode).code, row.emuCode)}`,
  };
}

/** The canonical form, or the text as written when it has none (the line is refused later). */
function canonical(of: () => string, written: string): string {
  try {
    return of();
  } catch {
    return written.trim();
  }
}
