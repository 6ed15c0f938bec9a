import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/shared/log/logger.js';
import { IntervalTask } from '../../src/shared/time/interval-task.js';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;

/** A task whose runs are counted and, when `held`, stay running until released. */
function countedTask() {
  const state = { started: 0, finished: 0, held: false, release: () => {} };
  const run = async () => {
    state.started++;
    if (state.held) await new Promise<void>((resolve) => (state.release = resolve));
    state.finished++;
  };
  return { state, run };
}

describe('IntervalTask', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at start, then once per interval after each run ends', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.started).toBe(1);
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(state.started).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.started).toBe(2);
    await task.stop();
  });

  it('wake() runs the task now instead of at the end of the interval', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.started).toBe(1);
    task.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.started).toBe(2);
    // The interval starts again from the woken run's end.
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(state.started).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.started).toBe(3);
    await task.stop();
  });

  it('wakes before the run starts are one run', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    task.wake();
    task.wake();
    task.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.started).toBe(2);
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(state.started).toBe(2);
    await task.stop();
  });

  it('wakes during a run ask for one more run right after it, never two at once', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    state.held = true;
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toMatchObject({ started: 1, finished: 0 });
    task.wake();
    task.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toMatchObject({ started: 1, finished: 0 });
    state.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toMatchObject({ started: 2, finished: 1 });
    state.held = false;
    state.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toMatchObject({ started: 2, finished: 2 });
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(state.started).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.started).toBe(3);
    await task.stop();
  });

  it('does nothing on wake() before start or after stop', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    task.wake();
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(state.started).toBe(0);
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    await task.stop();
    task.wake();
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(state.started).toBe(1);
  });

  it('stop() waits for the run under way, and a wake during it is not run', async () => {
    const { state, run } = countedTask();
    const task = new IntervalTask('counted', HOUR, run, logger);
    state.held = true;
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    task.wake();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    state.release();
    await stopping;
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(state).toMatchObject({ started: 1, finished: 1 });
  });

  it('logs a failed run and still runs the next', async () => {
    const errors: unknown[] = [];
    const failing = { error: (o: unknown) => errors.push(o) } as unknown as Logger;
    let runs = 0;
    const task = new IntervalTask(
      'failing',
      HOUR,
      async () => {
        runs++;
        throw new Error('boom');
      },
      failing,
    );
    task.start();
    await vi.advanceTimersByTimeAsync(0);
    task.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(2);
    expect(errors).toEqual([
      { task: 'failing', err: 'boom' },
      { task: 'failing', err: 'boom' },
    ]);
    await task.stop();
  });
});
