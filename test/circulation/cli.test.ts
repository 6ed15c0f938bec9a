import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { serviceDayFromYmd, serviceDayOf } from '../../src/shared/time/service-day.js';
import { circulationRuns, seedRuns } from './support.js';

const t = useTestDatabase();
let dir: string;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const capture = (sink: (s: string) => void) => (chunk: string | Uint8Array) => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture((s) => (stdout += s)));
  vi.spyOn(process.stderr, 'write').mockImplementation(capture((s) => (stderr += s)));
  try {
    return { code: await runCli(['node', 'emutrack', ...args]), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

beforeAll(async () => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-cli-circ-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('emutrack infer-circulations and import-circulations', () => {
  it('infers over the window ending --as-of, then imports and checks official tables', async () => {
    await seedRuns(
      t.current.db,
      circulationRuns({
        units: ['CR400AF-2101', 'CR400AF-2102'],
        days: [
          ['G801', 'G802'],
          ['G803', 'G804'],
        ],
        windowDays: 14,
      }),
    );
    const r = await cli('infer-circulations', '--as-of', '20260914');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^circulations 20260901-20260914 \(run \d+\): 56 runs \(56 ordered by first sighting, no timetable\), links kept 4 of 4 \(threshold 0\.8, min support 3\), 1 routes \(1 loops cut\), \d+ ms\n$/,
    );

    const file = path.join(dir, 'tables.ndjson');
    await writeFile(
      file,
      [
        {
          running_start: '20260801',
          running_end: '20991231',
          train_no_total: 'G803#G804#G801#G802',
        },
        { running_start: '20260801', running_end: '20991231', train_no_total: 'T1#T2' },
        { running_start: '2026-08-01', running_end: '20991231', train_no_total: 'G1' },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    const imported = await cli('import-circulations', file);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      /^tables\.ndjson: read 3, imported 1, duplicate 0, skipped 1, rejected 1 \(batch \d+; emutrack rejects lists the rejected lines\)\n/,
    );
    expect(imported.stdout).toContain(
      'line 2: skipped: not an EMU circulation: locomotive-hauled train T1',
    );
    expect(imported.stdout).toContain(
      'checked 1: 1 raw_official, 0 split_official, 0 unmatched_official\n',
    );
  });

  it('refuses a bad date or an unreadable file in one line, exit code 1', async () => {
    const bad = await cli('infer-circulations', '--as-of', '20260230');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('day 30 does not exist');
    const missing = await cli('import-circulations', path.join(dir, 'nope.json'));
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toMatch(/^emutrack: .*nope\.json: no such file\n$/);
  });

  it('reaches its default window end (yesterday) without --as-of', async () => {
    const today = serviceDayOf(Math.floor(Date.now() / 1000));
    const r = await cli('infer-circulations');
    expect(r.code).toBe(0);
    const end = /^circulations \d{8}-(\d{8}) \(run \d+\)/.exec(r.stdout)![1]!;
    // Yesterday, Shanghai time (or the day before, should the test straddle midnight).
    expect([today - 1, today]).toContain(serviceDayFromYmd(end) + 1);
  });
});
