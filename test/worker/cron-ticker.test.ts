import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CronTicker } from '../../src/worker/cron-ticker.js';

const logger = pino({ level: 'silent' });
const at = (iso: string) => Date.parse(iso);

describe('CronTicker (the scheduler without Redis)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ticks at each fire time, read in Asia/Shanghai, with the fire time as dueAt', async () => {
    vi.setSystemTime(at('2026-08-14T23:59:58+08:00'));
    const ticks: string[] = [];
    const ticker = new CronTicker({
      pattern: '0 0 * * *',
      logger,
      onTick: async (dueAt) => {
        ticks.push(new Date(dueAt).toISOString());
      },
    });
    ticker.start();
    expect(ticker.nextDueAt).toBe(at('2026-08-15T00:00:00+08:00'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toEqual(['2026-08-14T16:00:00.000Z']);
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
    expect(ticks).toEqual(['2026-08-14T16:00:00.000Z', '2026-08-15T16:00:00.000Z']);
    await ticker.stop();
    await vi.advanceTimersByTimeAsync(3 * 24 * 3600 * 1000);
    expect(ticks).toHaveLength(2);
  });

  it('runs one tick at a time, and a fire time passed during a long tick runs after it', async () => {
    vi.setSystemTime(at('2026-08-14T12:00:00.500+08:00'));
    const started: number[] = [];
    let running = 0;
    let overlapped = false;
    const ticker = new CronTicker({
      pattern: '* * * * * *',
      logger,
      onTick: async (dueAt) => {
        overlapped ||= running > 0;
        running++;
        started.push(dueAt);
        // The first tick takes 2.5 s: the fire times at +1 s and +2 s pass meanwhile.
        await new Promise((r) => setTimeout(r, started.length === 1 ? 2_500 : 10));
        running--;
      },
    });
    ticker.start();
    await vi.advanceTimersByTimeAsync(4_000);
    await ticker.stop();
    const base = at('2026-08-14T12:00:01+08:00');
    expect(started.slice(0, 4)).toEqual([base, base + 1000, base + 2000, base + 3000]);
    expect(overlapped).toBe(false);
  });

  it('keeps ticking after a failing tick', async () => {
    vi.setSystemTime(at('2026-08-14T12:00:00.500+08:00'));
    let calls = 0;
    const ticker = new CronTicker({
      pattern: '* * * * * *',
      logger,
      onTick: async () => {
        calls++;
        throw new Error('boom');
      },
    });
    ticker.start();
    await vi.advanceTimersByTimeAsync(3_000);
    await ticker.stop();
    expect(calls).toBe(3);
  });

  it('stop() waits for the running tick', async () => {
    vi.setSystemTime(at('2026-08-14T12:00:00.900+08:00'));
    let finished = false;
    const ticker = new CronTicker({
      pattern: '* * * * * *',
      logger,
      onTick: async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        finished = true;
      },
    });
    ticker.start();
    await vi.advanceTimersByTimeAsync(200);
    const stopping = ticker.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    await stopping;
    expect(finished).toBe(true);
  });
});
