import { describe, expect, it } from 'vitest';
import { isEmutrackError } from '../../src/shared/errors/emutrack-error.js';
import { ReachabilityGate } from '../../src/shared/db/reachability-gate.js';

describe('the reachability gate of a pool', () => {
  it('lets everything through while up; once an attempt fails, refuses at once but for one probe a second', async () => {
    let now = 0;
    const gate = new ReachabilityGate({ retryMs: 1_000, clock: () => now });
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    let attempts = 0;
    const fails = () => {
      attempts++;
      return Promise.reject(refused);
    };
    const works = () => {
      attempts++;
      return Promise.resolve('client');
    };

    expect(await Promise.all([gate.connect(works), gate.connect(works)])).toEqual([
      'client',
      'client',
    ]);
    await expect(gate.connect(fails)).rejects.toBe(refused);
    expect(gate.isDown).toBe(true);
    // Within the second: refused without trying, naming the cause.
    const fast = await gate.connect(works).catch((e: unknown) => e);
    expect(isEmutrackError(fast, 'database_unreachable')).toBe(true);
    expect((fast as Error).cause).toBe(refused);
    expect(attempts).toBe(3);

    // A second later one probe tries; others are refused while it is out.
    now = 1_000;
    let letProbeFinish!: (v: string) => void;
    const probe = gate.connect(() => {
      attempts++;
      return new Promise<string>((r) => (letProbeFinish = r));
    });
    await expect(gate.connect(works)).rejects.toThrow(
      /^the database is unreachable \(connect ECONNREFUSED/,
    );
    letProbeFinish('client');
    expect(await probe).toBe('client');
    expect(gate.isDown).toBe(false);
    expect(await gate.connect(works)).toBe('client');
    expect(attempts).toBe(5);
  });
});
