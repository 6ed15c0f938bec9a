import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nightlyJob } from '../../jobs/index.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();
const MAIN = fileURLToPath(new URL('../../src/worker/worker-main.ts', import.meta.url));

/** Runs `npm run worker`'s entry point (through tsx) with exactly this environment. */
function runWorkerMain(vars: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  env.defer(async () => child.kill('SIGKILL'));
  return { child, exited, stderr: () => stderr };
}

describe('npm run worker (src/worker/worker-main.ts)', () => {
  it.each([
    ['WORKER_CONCURRENCY', 'lots'],
    ['NIGHTLY_CRON', '0 25 * * *'],
    ['REDIS_URL', 'http://localhost:6379'],
  ])(
    'refuses a bad %s in one line naming it, exit code 1',
    async (variable, value) => {
      const run = runWorkerMain({ [variable]: value });
      expect(await run.exited).toBe(1);
      const lines = run.stderr().trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^emutrack worker: configuration: ${variable}: .*${value.replace(/[*.]/g, '\\$&')}`,
        ),
      );
    },
    60_000,
  );

  it('starts the workers and the scheduler, and stops cleanly on SIGTERM', async () => {
    const run = runWorkerMain(env.childEnv({ LOG_LEVEL: 'info' }));
    await waitFor('the workers to start', () => run.stderr().includes('workers started (BullMQ)'), {
      timeoutMs: 60_000,
    });
    const queues = env.queues();
    expect(await queues.queue(nightlyJob.name).getJobSchedulersCount()).toBe(1);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toMatch(/"msg":"shut down cleanly"/);
  }, 60_000);
});
