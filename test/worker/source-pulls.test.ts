import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addSource, getSource } from '../../src/domain/sources/source-store.js';
import { removeSource } from '../../src/domain/sources/source-store.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { jobRetentionFromConfig } from '../../src/shared/queues/job-options.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import type { AppContext } from '../../src/shared/app/app-context.js';
import {
  addSourcePull,
  sourceJobOptions,
  SourcePulls,
  sourceQueueName,
  sourceSchedulerId,
} from '../../src/worker/source-pulls.js';
import { startWorkerRuntime } from '../../src/worker/worker-runtime.js';
import { cli } from '../helpers/run-cli.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { useQueueEnv } from './support/queue-env.js';
import { waitFor } from './support/wait-for.js';

const env = useQueueEnv();
const DAY = serviceDayFromYmd('20260814');

/** A request the stand-in upstream answered: its source (first path segment), day and time. */
interface Seen {
  source: string;
  date: string | null;
  at: number;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

/**
 * An empty v2 page of the day asked for, or an empty page of the change feed at cursor 4.9;
 * any path under /broken answers 500.
 */
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const date = url.searchParams.get('date');
    seen.push({ source: url.pathname.split('/')[1] ?? '', date, at: Date.now() });
    if (url.pathname.startsWith('/broken')) return void res.writeHead(500).end('no');
    if (url.pathname.endsWith('/api/v2/records/changes'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ok: true,
          data: { cursor: '', limit: 500, nextCursor: '4.9', more: false, items: [] },
          error: '',
        }),
      );
    const day = date === null ? 0 : serviceDayFromYmd(date);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ok: true,
        data: { serviceDay: day, cursor: '', limit: 200, nextCursor: '', items: [] },
        error: '',
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen.length = 0;
  vi.restoreAllMocks();
});

async function add(name: string, extra: { every?: string; rate?: string; kind?: string } = {}) {
  await addSource(
    env.database.db,
    checkSourceSettings({ kind: 'v2', name, url: `${base}/${name}`, ...extra }),
  );
}

function startPulls(ctx: AppContext, syncMs = 60_000): SourcePulls {
  const pulls = new SourcePulls(ctx, {
    connection: env.connection(),
    prefix: env.prefix,
    retention: jobRetentionFromConfig(ctx.config),
    syncMs,
  });
  env.defer(() => pulls.close());
  return pulls;
}

function openQueue(source: string): Queue {
  const q = new Queue(sourceQueueName(source), {
    connection: env.connection(),
    prefix: env.prefix,
  });
  env.defer(() => q.close());
  return q;
}

/** Adds a pull with the options the worker's scheduler gives its jobs. */
function enqueue(source: string, ctx: AppContext, range: { from: number; to: number }) {
  const opts = sourceJobOptions(jobRetentionFromConfig(ctx.config));
  return addSourcePull(openQueue(source), { source, ...range }, opts);
}

async function runsOf(jobId: string) {
  const r = await env.database.db.query<{
    job_id: string;
    attempt: number;
    status: string;
    error: string | null;
  }>(
    `SELECT job_id, attempt, status, error FROM job_runs WHERE job = 'pull-source' AND job_id = $1 ORDER BY id`,
    [jobId],
  );
  return r.rows;
}

describe('sources on BullMQ', () => {
  it('pulls a source scheduled while the worker runs, and drops its scheduler once it is removed', async () => {
    const runtime = await startWorkerRuntime(env.ctx(), { webhooks: false, sourceSyncMs: 100 });
    env.defer(() => runtime.close());
    const pulls = runtime.sources!;
    // Added after the worker started: its next read of the table schedules it.
    await add('sched', { every: '* * * * * *', rate: '50' });
    const source = await waitFor('a scheduled pull to complete', async () => {
      const s = await getSource(env.database.db, 'sched');
      return s.lastSuccessAt !== null && s;
    });
    expect(source.lastError).toBeNull();
    const [scheduled] = await openQueue('sched').getJobs(['completed']);
    expect(scheduled!.id).toMatch(/^repeat:pull-source-sched:/);
    expect(await runsOf(scheduled!.id!)).toMatchObject([{ status: 'completed', attempt: 1 }]);
    // A scheduled pull asks for the day it was due in and the one before.
    expect(seen.filter((s) => s.source === 'sched').length).toBeGreaterThanOrEqual(2);

    const queue = openQueue('sched');
    expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual([
      sourceSchedulerId('sched'),
    ]);
    await removeSource(env.database.db, 'sched');
    await pulls.syncNow();
    expect(await queue.getJobSchedulers()).toEqual([]);
  });

  it("keeps a source's requests apart by its rate, across pulls queued at once", async () => {
    await add('paced', { rate: '4' }); // 250 ms between requests
    const ctx = env.ctx({ WORKER_CONCURRENCY: '4' });
    const pulls = startPulls(ctx);
    await pulls.start();
    const queue = openQueue('paced');
    const jobs = await Promise.all(
      [1, 2, 3].map(() => enqueue('paced', ctx, { from: DAY, to: DAY + 1 })),
    );
    await waitFor('three pulls to complete', async () => {
      const states = await Promise.all(jobs.map((j) => queue.getJobState(j.id!)));
      return states.every((s) => s === 'completed');
    });
    const times = seen.filter((s) => s.source === 'paced').map((s) => s.at);
    expect(times).toHaveLength(6);
    // No two requests in any window of 200 ms (the rate allows one per 250 ms), pulls included:
    // without the queue's limiter the second pull's first request would follow the first's last.
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(200);
  });

  it('pulls a v2-feed source from its cursor on a scheduled job, the range of the tick ignored', async () => {
    await add('feedy', { rate: '50', kind: 'v2-feed' });
    const ctx = env.ctx();
    const pulls = startPulls(ctx);
    await pulls.start();
    const queue = openQueue('feedy');
    const job = await enqueue('feedy', ctx, { from: DAY, to: DAY + 1 });
    await waitFor('the feed pull to complete', async () => {
      return (await queue.getJobState(job.id!)) === 'completed';
    });
    expect(seen.filter((s) => s.source === 'feedy')).toMatchObject([{ date: null }]);
    const stored = await env.database.db.query<{ cursor: string }>(
      `SELECT c.cursor FROM source_feed_cursors c JOIN sources s ON s.id = c.source_id
        WHERE s.name = 'feedy'`,
    );
    expect(stored.rows).toEqual([{ cursor: '4.9' }]);
    expect((await getSource(env.database.db, 'feedy')).lastError).toBeNull();
  });

  it('retries a failing source with backoff, stores its error, and leaves other sources alone', async () => {
    await add('broken', { rate: '50' });
    await add('fine', { rate: '50' });
    const ctx = env.ctx({ JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50' });
    const pulls = startPulls(ctx);
    await pulls.start();
    const broken = await enqueue('broken', ctx, { from: DAY, to: DAY });
    const fine = await enqueue('fine', ctx, { from: DAY, to: DAY });
    expect(broken.opts.backoff).toEqual({ type: 'exponential', delay: 50, jitter: 0.5 });
    await waitFor('the broken pull to fail for good', async () => {
      return (await openQueue('broken').getJobState(broken.id!)) === 'failed';
    });
    const runs = await runsOf(broken.id!);
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    expect(seen.filter((s) => s.source === 'broken')).toHaveLength(3);
    const b = await getSource(env.database.db, 'broken');
    expect(b.lastError).toMatch(
      /^source broken: 20260814: GET http:\/\/127\.0\.0\.1:\d+\/broken\/api\/v2\/records\/daily\?date=20260814&limit=200: HTTP 500$/,
    );
    expect(b.lastSuccessAt).toBeNull();

    await waitFor(
      'the other pull',
      async () => (await openQueue('fine').getJobState(fine.id!)) === 'completed',
    );
    const f = await getSource(env.database.db, 'fine');
    expect([f.lastError, f.lastSuccessAt !== null]).toEqual([null, true]);
    expect((await runsOf(fine.id!)).map((r) => r.status)).toEqual(['completed']);
  });

  it('`source pull` with REDIS_URL goes through the queue and waits for the result', async () => {
    await add('peer', { rate: '50' });
    await add('broken-cli', { rate: '50' });
    const pulls = startPulls(env.ctx());
    await pulls.start();
    vi.stubEnv('DATABASE_URL', env.database.url);
    vi.stubEnv('REDIS_URL', TEST_REDIS_URL);
    vi.stubEnv('QUEUE_PREFIX', env.prefix);
    vi.stubEnv('LOG_LEVEL', 'silent');
    try {
      const ok = await cli('source', 'pull', 'peer', '--from', '20260814', '--to', '20260815');
      expect(ok).toMatchObject({ code: 0, stderr: '' });
      expect(ok.stdout).toMatch(
        /^source peer: 2 day\(s\), 2 page\(s\), taken 0, duplicate 0, refused 0; 2 request\(s\)/,
      );
      const [job] = await openQueue('peer').getJobs(['completed']);
      expect(await runsOf(job!.id!)).toMatchObject([{ status: 'completed', attempt: 1 }]);

      const bad = await cli(
        'source',
        'pull',
        'broken-cli',
        '--from',
        '20260814',
        '--to',
        '20260814',
      );
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(
        /^emutrack: source broken-cli: 20260814: GET http:\S+\/broken-cli\/api\/v2\/records\/daily\?date=20260814&limit=200: HTTP 500\n$/,
      );
      // One attempt: the operator waiting at the terminal gets the error at once.
      expect(seen.filter((s) => s.source === 'broken-cli')).toHaveLength(1);

      // No worker serves a source added after its last read of the table: the wait runs out.
      await add('late', { rate: '50' });
      const late = await cli('source', 'pull', 'late', '--wait', '0.5');
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(
        /^emutrack: source late: job pull-source-late-\S+ not finished after 0\.5 s \(is the worker running\?\); it stays queued\n$/,
      );

      const unknown = await cli('source', 'pull', 'nobody');
      expect(unknown).toMatchObject({ code: 1, stderr: 'emutrack: no source named "nobody"\n' });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
