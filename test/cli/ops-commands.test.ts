import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { payloadFromArgs } from '../../src/cli/commands-ops.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { shanghaiTime } from '../../src/shared/time/shanghai-time.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { TEST_REDIS_URL } from '../helpers/test-env.js';
import { cli } from '../helpers/run-cli.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const t = useTestDatabase();

beforeAll(async () => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  delete process.env.REDIS_URL;
  // A day of sightings with the bad lines feeds send (7 across the fixture files).
  expect((await cli('import-fleet', path.join(FIXTURES, 'fleet.csv'))).code).toBe(0);
  expect((await cli('ingest', path.join(FIXTURES, 'observations'))).code).toBe(0);
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack --version', () => {
  it("prints package.json's version", async () => {
    const pkg = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });
});

describe('emutrack rejects', () => {
  it('lists the rejected lines, newest first, with file, line, field and reason', async () => {
    const r = await cli('rejects');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(7);
    for (const line of lines)
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+08:00 {2}\S+\.(ndjson|csv):\d+ +\S+ +\S/,
      );
  });

  it('--json gives the same lines as data; --day picks the Shanghai day they were refused', async () => {
    const json = JSON.parse((await cli('rejects', '--json')).stdout) as {
      file: string;
      line: number;
      reason: string;
      firstSeenAt: string;
    }[];
    expect(json).toHaveLength(7);
    expect(json[0]).toMatchObject({ file: expect.any(String), line: expect.any(Number) });
    const today = shanghaiTime(json[0]!.firstSeenAt).slice(0, 10).replaceAll('-', '');
    expect(JSON.parse((await cli('rejects', '--day', today, '--json')).stdout)).toHaveLength(7);
    expect((await cli('rejects', '--day', '20200101')).stdout).toBe(
      'no rejected lines on 20200101\n',
    );
    expect(JSON.parse((await cli('rejects', '--limit', '2', '--json')).stdout)).toHaveLength(2);
    const bad = await cli('rejects', '--day', '2026-01-01');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--day.*expected YYYYMMDD/);
  });
});

describe('emutrack enqueue', () => {
  it('reads key=value payloads: days as YYYYMMDD, paths made absolute, whole numbers', () => {
    expect(payloadFromArgs(['serviceDay=20260810', 'path=fixtures/x.ndjson', 'asOf=12'])).toEqual({
      serviceDay: serviceDayFromYmd('20260810'),
      path: path.resolve('fixtures/x.ndjson'),
      asOf: 12,
    });
    expect(() => payloadFromArgs(['serviceDay=2026-08-10'])).toThrow(
      /serviceDay: expected YYYYMMDD/,
    );
    expect(() => payloadFromArgs(['serviceDay'])).toThrow(/expected key=value/);
  });

  it('without REDIS_URL runs the job in this process and says so', async () => {
    const r = await cli('enqueue', 'build-daily-records', 'serviceDay=20260810');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^build-daily-records: ran in this process \(no REDIS_URL\): \{/);
    const json = await cli('enqueue', 'render-daily-export', 'serviceDay=20260810', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      job: 'render-daily-export',
      via: 'in-process',
    });
  });

  it('refuses an unknown job and a bad payload in one line naming it', async () => {
    const unknown = await cli('enqueue', 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^emutrack: unknown job frobnicate \(jobs: ingest-observations, /,
    );
    const bad = await cli('enqueue', 'render-daily-export');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(
      /^emutrack: render-daily-export: invalid payload: serviceDay: /,
    );
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('with REDIS_URL adds the job to its BullMQ queue for the worker', async () => {
    const prefix = `emutrack-cli-${process.pid}-${Date.now()}`;
    process.env.REDIS_URL = TEST_REDIS_URL;
    process.env.QUEUE_PREFIX = prefix;
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('refresh-reference-models', { connection, prefix });
    try {
      const r = await cli('enqueue', 'refresh-reference-models', 'serviceDay=20260810', '--json');
      expect(r.code).toBe(0);
      const outcome = JSON.parse(r.stdout) as { via: string; jobId: string; outcome: string };
      expect(outcome).toMatchObject({ via: 'bullmq', outcome: 'added' });
      const job = await queue.getJob(outcome.jobId);
      expect(job?.data).toEqual({ serviceDay: serviceDayFromYmd('20260810') });
      expect(await job?.getState()).toBe('waiting');
      const text = await cli('enqueue', 'refresh-reference-models', 'serviceDay=20260811');
      expect(text.stdout).toMatch(
        new RegExp(
          `^refresh-reference-models: enqueued as job \\S+ \\(BullMQ, prefix ${prefix}\\)`,
        ),
      );
    } finally {
      delete process.env.REDIS_URL;
      delete process.env.QUEUE_PREFIX;
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});

describe('emutrack status', () => {
  it('shows times in Shanghai time, rows aligned, and the rejected lines', async () => {
    // The longest job name among the rows (it overran the old 20-character column).
    expect((await cli('enqueue', 'refresh-reference-models', 'serviceDay=20260810')).code).toBe(0);
    const r = await cli('status', '--days', '30');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('rejected lines: 7 (emutrack rejects [--day YYYYMMDD] lists them)');
    const runs = lines.filter((l) =>
      /^ {2}(\d{8}| {8}) {2}[a-z-]+ +(completed|failed|running) /.test(l),
    );
    expect(runs.some((l) => l.includes('refresh-reference-models'))).toBe(true);
    expect(runs.some((l) => l.includes('build-daily-records'))).toBe(true);
    // The status column starts at the same place on every row, the longest job name included.
    const column = new Set(runs.map((l) => l.search(/ (completed|failed|running) /)));
    expect(column.size).toBe(1);
    const { rows } = await t.current.db.query<{ started_at: Date }>(
      `SELECT started_at FROM job_runs WHERE job = 'build-daily-records' ORDER BY id DESC LIMIT 1`,
    );
    expect(r.stdout).toContain(shanghaiTime(rows[0]!.started_at));
    expect(shanghaiTime('2026-11-30T16:00:00.000Z')).toBe('2026-12-01 00:00:00 +08:00');
  });
});
