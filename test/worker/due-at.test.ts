import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { nightlyServiceDay } from '../../jobs/nightly.js';
import { dueAtOf } from '../../src/worker/due-at.js';
import { nextCronFire } from '../../src/worker/nightly-schedule.js';
import { serviceDayOf } from '../../src/shared/time/service-day.js';
import { useQueueEnv } from './support/queue-env.js';

const env = useQueueEnv();

describe('dueAtOf', () => {
  it('is the tick a Job Scheduler job was made for, not when it was added', async () => {
    const queue = new Queue('nightly', { connection: env.connection(), prefix: env.prefix });
    env.defer(() => queue.close());
    const before = Date.now();
    const made = await queue.upsertJobScheduler(
      'nightly',
      { pattern: '0 0 * * *', tz: 'Asia/Shanghai' },
      { name: 'nightly', data: {} },
    );
    const stored = (await queue.getJob(made.id!))!;
    const midnight = nextCronFire('0 0 * * *', before);
    expect(dueAtOf(stored)).toBe(midnight);
    expect(stored.timestamp).toBeLessThan(midnight);
    expect(new Date(midnight).toISOString()).toMatch(/T16:00:00\.000Z$/);
    // The coming Shanghai midnight ends today's service day.
    expect(nightlyServiceDay(dueAtOf(stored))).toBe(serviceDayOf(Math.floor(before / 1000)));
  });

  it('is when an ordinary job was added, plus its delay', async () => {
    const queue = new Queue('plain', { connection: env.connection(), prefix: env.prefix });
    env.defer(() => queue.close());
    const job = await queue.add('plain', {}, { delay: 60_000 });
    const stored = (await queue.getJob(job.id!))!;
    expect(dueAtOf(stored)).toBe(stored.timestamp + 60_000);
  });
});
