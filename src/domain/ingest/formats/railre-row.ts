import { serviceDayFromYmd } from '../../../shared/time/service-day.js';
import { isEmutrackError } from '../../../shared/errors/emutrack-error.js';
import type { InputLine } from '../read-observation-lines.js';
import { dayObservation } from './day-observation.js';

/** rail.re's rows: which unit (emu_no, CRH380AL2541) ran which train (G1, or G1/G2) on a date. */
export const RAILRE_COLUMNS = ['date', 'emu_no', 'train_no'] as const;
export const RAILRE_SOURCE = 'rail.re';
/** A reject names the rail.re column, not the observation field it fills. */
export const RAILRE_FIELD_NAMES = { trainCode: 'train_no', emuCode: 'emu_no' } as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * One rail.re row (CSV cells, a JSON object of a file or of rail.re's API) as an observation
 * line, or why it is refused. `source` is what the sighting is credited to: rail.re for a file,
 * the source's name for a pull.
 */
export function railreLine(
  line: number,
  raw: string,
  row: unknown,
  source: string = RAILRE_SOURCE,
): InputLine {
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return { line, raw, error: `expected an object with ${RAILRE_COLUMNS.join(', ')}` };
  const r = row as Record<string, unknown>;
  const refuse = (field: string, why: string): InputLine => ({
    line,
    raw,
    field,
    error: `${field}: ${why}`,
  });
  for (const field of RAILRE_COLUMNS) {
    const v = r[field];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === ''))
      return refuse(field, 'missing');
    if (typeof v !== 'string') return refuse(field, `expected text, got ${typeof v}`);
  }
  const date = (r.date as string).trim();
  const m = DATE.exec(date);
  if (!m) return refuse('date', `expected YYYY-MM-DD, got ${JSON.stringify(date.slice(0, 40))}`);
  const serviceDate = `${m[1]}${m[2]}${m[3]}`;
  try {
    serviceDayFromYmd(serviceDate);
  } catch (err) {
    if (!isEmutrackError(err, 'invalid_service_date')) throw err;
    return refuse('date', `${date} is not a date`);
  }
  return {
    line,
    raw,
    value: dayObservation({
      source,
      serviceDate,
      trainCode: r.train_no as string,
      emuCode: r.emu_no as string,
    }),
  };
}
