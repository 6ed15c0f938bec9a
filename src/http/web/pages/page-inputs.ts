import { serviceDayFromYmd, ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { PageInputError } from '../web-errors.js';

/*
 * The query parameters of the unit and fleet pages, read from what the browser sent: a value
 * that is not of its form is a PageInputError naming the parameter (the 400 page), never a 500.
 * A repeated parameter arrives as a list and is refused the same way.
 */

type Query = Record<string, unknown> | undefined;

/** The one text value of `name`, or undefined when absent or empty (an empty form field). */
export function textParam(query: Query, name: string, maxLength = 64): string | undefined {
  const value = query?.[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new PageInputError(name, 'give it once');
  if (value.length > maxLength) {
    throw new PageInputError(name, `at most ${maxLength} characters`);
  }
  return value;
}

/** A date as a date field writes it (YYYY-MM-DD), as its service day; undefined when absent. */
export function dateParam(query: Query, name: string): number | undefined {
  const value = textParam(query, name, 10);
  if (value === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) throw new PageInputError(name, `expected a date YYYY-MM-DD (got ${value})`);
  let day: number;
  try {
    day = serviceDayFromYmd(`${m[1]}${m[2]}${m[3]}`);
  } catch {
    throw new PageInputError(name, `${value} is not a calendar date`);
  }
  if (day < 0) throw new PageInputError(name, 'expected 1970-01-01 or later');
  return day;
}

/** A month (YYYY-MM) as year and month; undefined when absent. */
export function monthParam(
  query: Query,
  name: string,
): { year: number; month: number } | undefined {
  const value = textParam(query, name, 7);
  if (value === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})$/.exec(value);
  const year = Number(m?.[1]);
  const month = Number(m?.[2]);
  if (!m || year < 1970 || month < 1 || month > 12) {
    throw new PageInputError(name, `expected a month YYYY-MM from 1970-01 (got ${value})`);
  }
  return { year, month };
}

/** A history cursor ("<serviceDay>:<id>", the previous page's last record); undefined when absent. */
export function cursorParam(
  query: Query,
  name: string,
): { serviceDay: number; id: number; text: string } | undefined {
  const value = textParam(query, name, 24);
  if (value === undefined) return undefined;
  const m = /^([0-9]{1,7}):([0-9]{1,15})$/.exec(value);
  if (!m) throw new PageInputError(name, `expected the pager's own value (got ${value})`);
  return { serviceDay: Number(m[1]), id: Number(m[2]), text: value };
}

/** A service day as a date field writes it. */
export function isoDate(serviceDay: number): string {
  const ymd = ymdOfServiceDay(serviceDay);
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
}

/** The year, month and day of a service day. */
export function dateParts(serviceDay: number): { year: number; month: number; day: number } {
  const ymd = ymdOfServiceDay(serviceDay);
  return {
    year: Number(ymd.slice(0, 4)),
    month: Number(ymd.slice(4, 6)),
    day: Number(ymd.slice(6, 8)),
  };
}

/** Seconds from a service day's midnight as HH:MM (a time past midnight keeps counting: 25:10 is 01:10 the next day). */
export function clockTime(offset: number): { text: string; nextDay: boolean } {
  const nextDay = offset >= 86_400;
  const within = ((offset % 86_400) + 86_400) % 86_400;
  const hh = String(Math.floor(within / 3600)).padStart(2, '0');
  const mm = String(Math.floor((within % 3600) / 60)).padStart(2, '0');
  return { text: `${hh}:${mm}`, nextDay };
}

/** The path's query string as sent ("" or "?..."), for a redirect that keeps it. */
export function queryOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at);
}
