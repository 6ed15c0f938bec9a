import { describe, expect, it } from 'vitest';
import type { HttpGet } from '../../src/shared/io/http-get.js';
import { PacedHttp } from '../../src/domain/sources/paced-http.js';
import { fastClock } from './upstream.js';

/** Answers every GET at once (no time passes on the fake clock), with `headers`. */
const instant =
  (headers: Record<string, string> = {}): HttpGet =>
  async () => ({ status: 200, headers, body: '{}' });

function paced(rate: number, clock = fastClock(1_000_000), get = instant()) {
  const http = new PacedHttp({
    rate,
    clock,
    get,
    timeoutMs: 1000,
    maxBytes: 1 << 20,
    maxWaitSeconds: 900,
    maxRefusals: 5,
  });
  return { http, clock };
}

async function getTimes(http: PacedHttp, clock: { now(): number }, n: number) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await http.get('http://upstream.test/x', {});
    times.push(clock.now());
  }
  return times;
}

describe('PacedHttp: the pull keeps its rate', () => {
  it('waits 1000 / rate ms after each answer', async () => {
    const { http, clock } = paced(2);
    const times = await getTimes(http, clock, 4);
    expect(times.map((t) => t - times[0]!)).toEqual([0, 500, 1000, 1500]);
  });

  it('does not wait out paces shorter than a millisecond one by one, and keeps the rate on average', async () => {
    // A timer waits at least a millisecond: waiting 0.001 ms before each request would cap the
    // rate at about 1,000 a second. At 4,000 a second, four requests go per millisecond.
    const { http, clock } = paced(4000);
    const times = await getTimes(http, clock, 12);
    expect(clock.sleeps.every((ms) => ms >= 1)).toBe(true);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual((11 * 1000) / 4000 - 1);
    expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual((11 * 1000) / 4000);

    const fast = paced(1_000_000);
    await getTimes(fast.http, fast.clock, 50);
    expect(fast.clock.sleeps).toEqual([]);
  });

  it('meets a wait the server asked for exactly, to the fraction of a millisecond', async () => {
    const { http, clock } = paced(1_000_000);
    await http.get('http://upstream.test/x', {});
    const asked = clock.now() + 0.5;
    http.hold(asked);
    await http.get('http://upstream.test/x', {});
    expect(clock.sleeps).toEqual([0.5]);
    expect(clock.now()).toBeGreaterThanOrEqual(asked);
  });

  it('slows down while the quota runs low (x-api-remain), and recovers', async () => {
    // The answers' headers, changed between the requests.
    const headers = { 'x-api-remain': '1', 'x-api-cost': '1' };
    const { http, clock } = paced(10, fastClock(0), instant(headers));
    const low = await getTimes(http, clock, 3);
    expect([low[1]! - low[0]!, low[2]! - low[1]!]).toEqual([200, 400]);
    headers['x-api-remain'] = '100';
    const recovered = await getTimes(http, clock, 3);
    expect([recovered[1]! - recovered[0]!, recovered[2]! - recovered[1]!]).toEqual([100, 100]);
  });
});
