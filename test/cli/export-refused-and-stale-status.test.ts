import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderDailyExportJob } from '../../jobs/index.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import { serviceDayOf, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { cli } from '../helpers/run-cli.js';

const t = useTestDatabase();
const today = serviceDayOf(Date.now() / 1000);

async function exportsStored(): Promise<number[]> {
  const r = await t.current.db.query<{ service_day: number }>(
    'SELECT service_day FROM daily_exports ORDER BY service_day',
  );
  return r.rows.map((row) => row.service_day);
}

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
});
afterEach(() => vi.restoreAllMocks());

describe('exports only of days that exist', () => {
  it('`export 20990101` is refused in one line and stores nothing; the index keeps its month', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-export-'));
    try {
      const file = path.join(dir, 'out.csv');
      const r = await cli('export', '20990101', '--out', file);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `emutrack: export of 20990101 refused: the day is after today (${ymdOfServiceDay(today)}, Shanghai); nothing was written\n`,
      );
      await expect(stat(file)).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await exportsStored()).toEqual([]);
    // Tomorrow is refused too: it has not happened.
    expect((await cli('export', ymdOfServiceDay(today + 1))).code).toBe(1);
    expect(await exportsStored()).toEqual([]);
  });

  it('a day with no build is refused by the CLI and by the export job, nothing stored', async () => {
    const day = today - 30;
    const r = await cli('export', ymdOfServiceDay(day));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^emutrack: export of \d{8} refused: the day has no build \(build it first: emutrack replay --from \d{8} --to \d{8}\); nothing was written\n$/,
    );
    const ctx = {
      config: loadConfig({ DATABASE_URL: t.current.url, LOG_LEVEL: 'silent' }),
      db: t.current.db,
      logger: pino({ level: 'silent' }),
    };
    await expect(
      runInProcess(ctx, renderDailyExportJob, { serviceDay: day }),
    ).rejects.toMatchObject({ code: 'export_refused', reason: 'not_built' });
    await expect(
      runInProcess(ctx, renderDailyExportJob, { serviceDay: today + 1 }),
    ).rejects.toMatchObject({ code: 'export_refused', reason: 'future_day' });
    expect(await exportsStored()).toEqual([]);
    // Once built, the same day is exported.
    await buildDailyRecords(t.current.db, day);
    expect((await cli('export', ymdOfServiceDay(day))).code).toBe(0);
    expect(await exportsStored()).toEqual([day]);
  });
});

describe('emutrack status and stale days', () => {
  it('lists each stale day, why, and when the worker will rebuild it', async () => {
    expect((await cli('status')).stdout).toContain('stale days: none\n');
    const day = today - 8;
    const ymd = ymdOfServiceDay(day);
    await ingestSightings(t.current.db, sightings(ymd, 'G7401', 'CR400AF-2401', 2));
    await buildDailyRecords(t.current.db, day);
    await ingestSightings(t.current.db, sightings(ymd, 'G7402', 'CR400AF-2402', 1));
    const r = await cli('status');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /stale days \(1; rebuilt by the worker once quiet for 60 s, at most 600 s after the first mark\):\n/,
    );
    expect(r.stdout).toMatch(
      new RegExp(`  ${ymd}  late-data +stale since \\S+Z, rebuild at \\S+Z \\(in \\d+ s\\)\\n`),
    );
  });
});
