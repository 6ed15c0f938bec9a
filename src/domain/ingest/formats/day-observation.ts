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
  let midnight = midnights.get(row.serviceDate);
  if (midnight === undefined) {
    midnight = midnightOfServiceDay(serviceDayFromYmd(row.serviceDate));
    if (midnights.size > 10_000) midnights.clear();
    midnights.set(row.serviceDate, midnight);
  }
  return {
    observedAt: midnight + (row.offsetSeconds ?? 0),
    trainCode: row.trainCode,
    emuCode: row.emuCode,
    source: row.source,
    serviceDate: row.serviceDate,
    ref: `${row.serviceDate}/${canonical(trains, row.trainCode, (c) => expandTrainCodes(c).join('/'))}/${canonical(units, row.emuCode, (c) => parseEmuCode(c).code)}`,
  };
}

// A file's rows name a few days a hundred thousand times; the zone lookup costs 40 µs a row.
const midnights = new Map<string, number>();

const trains = new Map<string, string>();
const units = new Map<string, string>();

/** The canonical form, or the text as written when it has none (the line is refused later). */
function canonical(memo: Map<string, string>, written: string, of: (c: string) => string): string {
  let hit = memo.get(written);
  if (hit === undefined) {
    try {
      hit = of(written);
    } catch {
      hit = written.trim();
    }
    if (memo.size > 100_000) memo.clear();
    memo.set(written, hit);
  }
  return hit;
}
