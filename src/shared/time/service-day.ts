import { fromZonedTime, getTimezoneOffset } from 'date-fns-tz';
import { EmutrackError } from '../errors/emutrack-error.js';

/**
 * Service days: whole days since 1970-01-01 counted in Asia/Shanghai local time.
 *
 * The zone comes from the tz database through date-fns-tz, never a fixed +08:00: China kept
 * summer time (UTC+9) from 1986 to 1991, so a sighting at 23:30 UTC+8-clock in July 1988 belongs
 * to the next local day.
 */
export const SERVICE_TIME_ZONE = 'Asia/Shanghai';

const MS_PER_DAY = 86_400_000;

/** A date string, day number or timestamp that does not name a real service day. */
export class InvalidServiceDateError extends EmutrackError {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super('invalid_service_date', `invalid date ${JSON.stringify(input)}: ${reason}`);
  }
}

// Offsets only change on whole seconds of tz transitions; caching the service day per UTC hour
// is exact as long as the whole hour falls on one local day, which is checked before caching.
const hourCache = new Map<number, number>();
const HOUR_CACHE_LIMIT = 200_000;

function computeServiceDay(unixSeconds: number): number {
  const ms = unixSeconds * 1000;
  const offset = getTimezoneOffset(SERVICE_TIME_ZONE, new Date(ms));
  return Math.floor((ms + offset) / MS_PER_DAY);
}

/** The Shanghai service day that a Unix time (seconds) falls on. */
export function serviceDayOf(unixSeconds: number): number {
  if (!Number.isFinite(unixSeconds))
    throw new InvalidServiceDateError(String(unixSeconds), 'not a finite time');
  const hour = Math.floor(unixSeconds / 3600);
  const cached = hourCache.get(hour);
  if (cached !== undefined) return cached;
  const day = computeServiceDay(unixSeconds);
  const start = computeServiceDay(hour * 3600);
  const end = computeServiceDay(hour * 3600 + 3599);
  if (start === end) {
    if (hourCache.size >= HOUR_CACHE_LIMIT) hourCache.clear();
    hourCache.set(hour, start);
  }
  return day;
}

/** "YYYYMMDD" (exactly 8 digits, a real calendar date) to its service day. */
export function serviceDayFromYmd(ymd: string): number {
  if (!/^\d{8}$/.test(ymd))
    throw new InvalidServiceDateError(ymd, 'expected exactly 8 digits YYYYMMDD');
  const y = Number(ymd.slice(0, 4));
  const m = Number(ymd.slice(4, 6));
  const d = Number(ymd.slice(6, 8));
  if (y < 1) throw new InvalidServiceDateError(ymd, 'year 0000 does not exist');
  if (m < 1 || m > 12) throw new InvalidServiceDateError(ymd, `month ${m} is not 1-12`);
  const ms = Date.UTC(y, m - 1, d);
  const check = new Date(ms);
  // Date.UTC maps years 0-99 to 1900-1999, and rolls 02-30 over into March: refuse both.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) {
    throw new InvalidServiceDateError(
      ymd,
      `day ${d} does not exist in ${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`,
    );
  }
  return Math.round(ms / MS_PER_DAY);
}

/** Service day to "YYYYMMDD". */
export function ymdOfServiceDay(serviceDay: number): string {
  assertServiceDay(serviceDay);
  const date = new Date(serviceDay * MS_PER_DAY);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + 1;
  const d = date.getUTCDate();
  return `${String(y).padStart(4, '0')}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`;
}

/** Calendar year and month (1-12) of a service day. */
export function yearMonthOfServiceDay(serviceDay: number): { year: number; month: number } {
  assertServiceDay(serviceDay);
  const date = new Date(serviceDay * MS_PER_DAY);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 };
}

/** Unix seconds of the local (Shanghai) midnight that starts a service day. */
export function midnightOfServiceDay(serviceDay: number): number {
  const ymd = ymdOfServiceDay(serviceDay);
  const iso = `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}T00:00:00`;
  return Math.floor(fromZonedTime(iso, SERVICE_TIME_ZONE).getTime() / 1000);
}

export function assertServiceDay(serviceDay: number): void {
  // 0001-01-01 .. 9999-12-31, the range YYYYMMDD can write.
  if (!Number.isInteger(serviceDay) || serviceDay < -719_162 || serviceDay > 2_932_896) {
    throw new InvalidServiceDateError(String(serviceDay), 'not a service day number');
  }
}
