import { describe, expect, it } from 'vitest';
import { nightlyJob, nightlyServiceDay } from '../../jobs/nightly.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { pino } from 'pino';
import type { AppContext } from '../../src/shared/app/app-context.js';

const at = (iso: string) => Date.parse(iso);

describe('the service day a nightly tick works on', () => {
  it('is the Shanghai day that ended at the tick', () => {
    // 2026-08-15 00:00 Shanghai is 2026-08-14 16:00 UTC: the day that ended is 2026-08-14.
    expect(nightlyServiceDay(at('2026-08-15T00:00:00+08:00'))).toBe(20679);
    expect(nightlyServiceDay(at('2026-08-14T16:00:00Z'))).toBe(serviceDayFromYmd('20260814'));
  });

  it('changes exactly at Shanghai midnight, not UTC midnight', () => {
    expect(nightlyServiceDay(at('2026-08-14T23:59:59.999+08:00'))).toBe(
      serviceDayFromYmd('20260813'),
    );
    expect(nightlyServiceDay(at('2026-08-15T00:00:00.000+08:00'))).toBe(
      serviceDayFromYmd('20260814'),
    );
    // UTC midnight is 08:00 in Shanghai: still working on the day before.
    expect(nightlyServiceDay(at('2026-08-15T00:00:00Z'))).toBe(serviceDayFromYmd('20260814'));
  });

  it('a tick a few minutes late still works on the day that just ended', () => {
    expect(nightlyServiceDay(at('2026-08-15T00:05:00+08:00'))).toBe(serviceDayFromYmd('20260814'));
  });

  it('follows the summer time China kept in 1988 (midnight was 15:00 UTC)', () => {
    // 1988-07-01 00:00 local was UTC+9.
    expect(nightlyServiceDay(at('1988-07-01T00:00:00+09:00'))).toBe(serviceDayFromYmd('19880630'));
    expect(nightlyServiceDay(at('1988-06-30T23:30:00+09:00'))).toBe(serviceDayFromYmd('19880629'));
  });

  it('the job returns that day from dueAt, or the day it is given', async () => {
    const ctx = { logger: pino({ level: 'silent' }) } as AppContext;
    const run = {
      jobId: 'x',
      attempt: 1,
      dueAt: at('2026-01-01T00:00:00+08:00'),
      progress: async () => {},
    };
    await expect(nightlyJob.process(ctx, {}, run)).resolves.toEqual({
      serviceDay: serviceDayFromYmd('20251231'),
    });
    await expect(nightlyJob.process(ctx, { serviceDay: 20000 }, run)).resolves.toEqual({
      serviceDay: 20000,
    });
  });
});
