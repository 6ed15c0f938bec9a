import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/** The site's time zone: Asia/Shanghai, UTC+8 all year (no daylight saving since 1991). */
export const SITE_GMT_OFFSET_HOURS = 8;
const OFFSET_MS = SITE_GMT_OFFSET_HOURS * 3600 * 1000;

export class InvalidSiteDateError extends EmutrackError {
  constructor(field: string) {
    super('rest_invalid_date', `${field}: invalid date`);
  }
}

/** `2026-11-22T20:10:42` (WordPress's mysql_to_rfc3339 without a zone). */
function isoNoZone(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** The site-local (Shanghai) form of an instant. */
export function localDate(d: Date): string {
  return isoNoZone(d.getTime() + OFFSET_MS);
}

/** The GMT form of an instant, without a zone, as WordPress writes `date_gmt`. */
export function gmtDate(d: Date): string {
  return isoNoZone(d.getTime());
}

/**
 * An instant from a `date` (site time unless it names a zone) or `date_gmt` (GMT unless it names
 * a zone) as clients send them; throws InvalidSiteDateError naming the field.
 */
export function parseSiteDate(
  value: string,
  field: 'date' | 'date_gmt' | string,
  isGmt: boolean,
): Date {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(
      value.trim(),
    );
  if (!m) throw new InvalidSiteDateError(field);
  const [, y, mo, d, h, mi, s, , zone] = m;
  const base = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!);
  const check = new Date(base);
  if (
    check.getUTCMonth() !== +mo! - 1 ||
    check.getUTCDate() !== +d! ||
    +h! > 23 ||
    +mi! > 59 ||
    +s! > 59
  ) {
    throw new InvalidSiteDateError(field);
  }
  if (zone) {
    if (zone === 'Z' || zone === 'z') return new Date(base);
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    return new Date(base - sign * offset);
  }
  return new Date(isGmt ? base : base - OFFSET_MS);
}
