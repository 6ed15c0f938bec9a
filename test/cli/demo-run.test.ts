import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo-run.js';
import { printStatus } from '../../src/cli/print-status.js';
import { serviceDayOf, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { FAST_SCRYPT_ENV } from '../api/helpers/accounts.js';
import { testConfig } from '../api/helpers/api-harness.js';
import { useTestDatabase, type TestDatabase } from '../helpers/test-db.js';

/**
 * `npm run demo` leaves data that ends today, whatever today is: the clock is the demo's `now`,
 * here two moments a year apart (one after this machine's clock, where an export of "today"
 * would be refused by the machine's day), and `emutrack status` right after is clean.
 */
const databases = [useTestDatabase(), useTestDatabase()];
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function demoAt(database: TestDatabase, iso: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-demo-run-'));
  dirs.push(dir);
  const config = testConfig({ ...FAST_SCRYPT_ENV, REDIS_URL: '', DATA_DIR: dir });
  const ctx = { config, db: database.db, logger: pino({ level: 'silent' }) };
  const now = Date.parse(iso);
  const lines: string[] = [];
  await runDemo(ctx, { now, say: (line) => lines.push(line) });
  const status: string[] = [];
  await printStatus(ctx, { days: 14 }, (line) => status.push(line));
  const today = serviceDayOf(now / 1000);
  const lastDay = await database.db.query<{ day: number }>(
    'SELECT max(service_day)::int AS day FROM daily_records',
  );
  return { dir, lines, status, today, lastDay: lastDay.rows[0]!.day };
}

describe('npm run demo', () => {
  it.each([
    [0, '2026-09-01T09:30:00+08:00'],
    [1, '2027-09-01T09:30:00+08:00'],
  ])(
    'ends its data on the day of its clock (%i: %s), answers "which unit ran G1 today", and leaves status clean',
    async (i, iso) => {
      const r = await demoAt(databases[i]!.current, iso);
      expect(r.lastDay).toBe(r.today);
      expect(r.lines).toContain('  G1 today: run by CR400AF-2001');
      expect(r.lines.join('\n')).toContain(`circulations (today, ${ymdOfServiceDay(r.today)})`);
      expect(r.lines).toContain(
        '  D7404 today: official circulation (raw_official) of 6 trains on 3 days',
      );
      expect(r.status).toContain('days missing an export: none');
      expect(r.status).toContain('stale days: none');
      // The exports written out end today too.
      const csvs = (await readdir(path.join(r.dir, 'exports'))).sort();
      expect(csvs.at(-1)).toBe(`${ymdOfServiceDay(r.today)}.csv`);
      // The fixture's deliberately bad lines are still refused, as many as in the fixture.
      expect(r.lines.join('\n')).toMatch(/rejected lines: +npx emutrack rejects +\(8 lines/);
    },
    240_000,
  );
});
