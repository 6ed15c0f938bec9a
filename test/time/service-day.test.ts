import { describe, expect, it } from 'vitest';
import {
  InvalidServiceDateError,
  midnightOfServiceDay,
  serviceDayFromYmd,
  serviceDayOf,
  yearMonthOfServiceDay,
  ymdOfServiceDay,
} from '../../src/shared/time/service-day.js';

const utc = (iso: string) => Date.parse(iso) / 1000;

describe('service days (Asia/Shanghai)', () => {
  it('counts 2026-08-14 as 20679 and converts both ways', () => {
    expect(serviceDayFromYmd('20260814')).toBe(20679);
    expect(ymdOfServiceDay(20679)).toBe('20260814');
    expect(serviceDayFromYmd('19700101')).toBe(0);
    expect(yearMonthOfServiceDay(20679)).toEqual({ year: 2026, month: 8 });
  });

  it('starts a service day at Shanghai midnight, not UTC midnight', () => {
    expect(midnightOfServiceDay(20679)).toBe(utc('2026-08-13T16:00:00Z'));
    expect(serviceDayOf(utc('2026-08-13T15:59:59Z'))).toBe(20678);
    expect(serviceDayOf(utc('2026-08-13T16:00:00Z'))).toBe(20679);
    expect(serviceDayOf(utc('2026-08-14T15:59:59Z'))).toBe(20679);
    expect(serviceDayOf(utc('2026-08-14T16:00:00Z'))).toBe(20680);
  });

  it('follows the 1986-1991 summer time (UTC+9), which a fixed +8 would get wrong', () => {
    const day = serviceDayFromYmd('19880715');
    // Local midnight of 1988-07-15 was 15:00 UTC the day before.
    expect(midnightOfServiceDay(day)).toBe(utc('1988-07-14T15:00:00Z'));
    // 15:30 UTC is 00:30 local (summer time): already the 15th. A fixed +8 says 23:30 on the 14th.
    expect(serviceDayOf(utc('1988-07-14T15:30:00Z'))).toBe(day);
    expect(serviceDayOf(utc('1988-07-14T14:59:59Z'))).toBe(day - 1);
    // In winter 1988 the offset was +8 again.
    expect(midnightOfServiceDay(serviceDayFromYmd('19880115'))).toBe(utc('1988-01-14T16:00:00Z'));
  });

  it('handles leap days', () => {
    expect(ymdOfServiceDay(serviceDayFromYmd('20240229'))).toBe('20240229');
    expect(serviceDayFromYmd('20240301') - serviceDayFromYmd('20240228')).toBe(2);
    expect(ymdOfServiceDay(serviceDayFromYmd('20000229'))).toBe('20000229');
    expect(() => serviceDayFromYmd('20230229')).toThrow(/day 29 does not exist in 2023-02/);
    expect(() => serviceDayFromYmd('19000229')).toThrow(InvalidServiceDateError);
    expect(serviceDayOf(utc('2024-02-28T16:00:00Z'))).toBe(serviceDayFromYmd('20240229'));
  });

  it.each([
    ['20260230', /day 30 does not exist in 2026-02/],
    ['2026131', /exactly 8 digits/],
    ['202608140', /exactly 8 digits/],
    ['20261301', /month 13/],
    ['20260800', /day 0 does not exist/],
    ['00000101', /year 0000/],
    ['2026-8-1', /exactly 8 digits/],
    ['abcdefgh', /exactly 8 digits/],
  ])('refuses %s with a clear error', (input, message) => {
    expect(() => serviceDayFromYmd(input)).toThrow(message);
    expect(() => serviceDayFromYmd(input)).toThrow(InvalidServiceDateError);
  });

  it('refuses non-finite times and impossible day numbers', () => {
    expect(() => serviceDayOf(Number.NaN)).toThrow(InvalidServiceDateError);
    expect(() => ymdOfServiceDay(1.5)).toThrow(InvalidServiceDateError);
    expect(() => midnightOfServiceDay(10_000_000)).toThrow(InvalidServiceDateError);
  });

  it('agrees with a direct computation over every hour of two years (the hour cache is exact)', () => {
    const fmt = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Shanghai',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    for (let t = utc('1987-01-01T00:00:00Z'); t < utc('1989-01-01T00:00:00Z'); t += 3600 - 7) {
      const ymd = fmt.format(new Date(t * 1000)).replace(/-/g, '');
      expect(ymdOfServiceDay(serviceDayOf(t))).toBe(ymd);
    }
  });
});
