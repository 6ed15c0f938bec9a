/**
 * Times of a timetable: seconds from the service day's midnight. A train that runs past midnight
 * keeps counting (25:10 is 90,600 s), so a timetable never needs a date.
 */

/** Offsets from 72 h on are typing errors: no EMU run lasts three days. */
export const MAX_TIMETABLE_OFFSET = 72 * 3600;

const CLOCK = /^(\d{1,2}):([0-5]\d)(?::([0-5]\d))?$/;

/**
 * "HH:MM" (hours may pass 24: "25:10"), "HH:MM:SS", or whole seconds from midnight (a number or
 * a string of digits). Returns the offset in seconds, or a reason the value is not a time.
 */
export function parseTimetableTime(value: unknown): number | { reason: string } {
  let seconds: number;
  if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) {
    seconds = Number(value);
    if (!Number.isInteger(seconds) || seconds < 0)
      return { reason: `expected whole seconds from midnight, got ${JSON.stringify(value)}` };
  } else if (typeof value === 'string') {
    const m = CLOCK.exec(value.trim());
    if (!m)
      return {
        reason: `expected HH:MM (hours may pass 24, e.g. 25:10) or seconds from midnight, got ${JSON.stringify(value)}`,
      };
    seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  } else {
    return {
      reason: `expected HH:MM or seconds from midnight, got ${value === null ? 'null' : typeof value}`,
    };
  }
  if (seconds >= MAX_TIMETABLE_OFFSET)
    return { reason: `${JSON.stringify(value)} is 72 hours or more after midnight` };
  return seconds;
}

/** An offset as the CSV writes it: HH:MM, hours counting on past 24 (90,600 s -> "25:10"). */
export function clockTimeOfOffset(offset: number): string {
  const minutes = Math.floor(offset / 60);
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The same as clockTimeOfOffset, in SQL, for an integer column or expression. */
export function clockTimeSql(offset: string): string {
  return `lpad((${offset} / 3600)::text, 2, '0') || ':' || lpad(((${offset} % 3600) / 60)::text, 2, '0')`;
}
