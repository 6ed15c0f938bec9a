import path from 'node:path';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../helpers/test-db.js';
import { cli } from '../helpers/run-cli.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const t = useTestDatabase();

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack CLI', () => {
  it('imports the fleet and ingests, printing read / accepted / duplicate / rejected', async () => {
    expect((await cli('import-fleet', path.join(FIXTURES, 'fleet.csv'))).stdout).toBe(
      'fleet.csv: read 20, created 20, updated 0, rejected 0 (fleet-csv)\n',
    );
    const r = await cli('ingest', path.join(FIXTURES, 'observations'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '2026-08-10_13.ndjson: read 176, accepted 170, duplicate 2, rejected 4',
    );
    expect(r.stdout).toMatch(
      /total: read 314, accepted 302, duplicate 5, rejected 7 \(batch \d+; emutrack rejects lists the rejected lines\)/,
    );
  });

  it('ingests timetables and imports coach layouts, printing what changed', async () => {
    const r = await cli('ingest-timetables', path.join(FIXTURES, 'timetables'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'jinghu.ndjson: read 6, accepted 5 (5 new versions, 0 unchanged), rejected 1',
    );
    expect(r.stdout).toMatch(
      /total: read 17, accepted 16, new versions 16, unchanged 0, rejected 1, new contents 16 \(batch \d+; emutrack rejects lists the rejected lines\)/,
    );
    expect(r.stdout).toContain(
      'timetables in force changed from 20260701: rebuild the days since (emutrack replay --from 20260701 --to <YYYYMMDD>)',
    );
    const again = await cli('ingest-timetables', path.join(FIXTURES, 'timetables', 'D3125.json'));
    expect(again.stdout).toBe(
      'D3125.json: read 1, accepted 1 (0 new versions, 1 unchanged), rejected 0\n' +
        'total: read 1, accepted 1, new versions 0, unchanged 1, rejected 0, new contents 0 (batch ' +
        /batch (\d+)/.exec(again.stdout)![1] +
        ')\n',
    );
    const layouts = await cli(
      'import-fleet',
      '--coach-layouts',
      path.join(FIXTURES, 'coach-layouts.json'),
    );
    expect(layouts.stdout).toBe(
      'coach-layouts.json: read 4 entries, accepted 4, rejected 0; coach layouts of 7 EMUs set\n',
    );
  });

  it('replays a range: every day built and exported, idempotent', async () => {
    const first = await cli('replay', '--from', '20260810', '--to', '20260816');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('replay: 7 of 7 days done, 0 failed\n');
    expect(first.stderr.split('\n').filter(Boolean)).toHaveLength(7);
    expect(first.stderr).toContain('20260814 ok: 17 records (+17 ~0 -0), export 17 rows');
    const again = await cli('replay', '--from', '20260814', '--to', '20260814');
    expect(again.stderr).toContain(
      '20260814 ok: 17 records (+0 ~0 -0), export 17 rows (unchanged)',
    );
  });

  it('reports a failing day, carries on with the others, and exits non-zero', async () => {
    await t.current.db.query(`
      CREATE FUNCTION test_fail_day() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.service_day = 20677 THEN RAISE EXCEPTION 'disk on fire for day %', NEW.service_day; END IF; RETURN NEW; END $$`);
    await t.current.db.query(
      'CREATE TRIGGER test_fail_day BEFORE INSERT OR UPDATE ON daily_records FOR EACH ROW EXECUTE FUNCTION test_fail_day()',
    );
    await t.current.db.query('DELETE FROM daily_records WHERE service_day = 20677');
    try {
      const r = await cli('replay', '--from', '20260811', '--to', '20260813');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('20260812 FAILED: disk on fire for day 20677');
      expect(r.stderr).toContain('20260811 ok');
      expect(r.stderr).toContain('20260813 ok');
      expect(r.stderr).toContain('emutrack: failed days: 20260812');
      expect(r.stdout).toBe('replay: 2 of 3 days done, 1 failed\n');
    } finally {
      await t.current.db.query('DROP TRIGGER test_fail_day ON daily_records');
    }
  });

  it('exports one day to stdout or a file, byte for byte what is stored', async () => {
    const r = await cli('export', '20260814');
    expect(
      r.stdout.startsWith(
        '\uFEFFtrainCode,emuCode,startStation,endStation,startTime,endTime\nC3001,CR300AF-3001',
      ),
    ).toBe(true);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-cli-'));
    const file = path.join(dir, 'x.csv');
    await cli('export', '20260814', '--out', file);
    expect((await readFile(file)).toString('utf8')).toBe(r.stdout);
  });

  it('prints the last run of each job per day', async () => {
    const r = await cli('status', '--days', '2');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('database: postgres');
    expect(r.stdout).toMatch(/20260816 {2}build-daily-records +completed/);
    expect(r.stdout).toMatch(/20260815 {2}render-daily-export +completed/);
    expect(r.stdout).not.toContain('20260814');
  });

  it.each([
    [['replay', '--from', '2026081', '--to', '20260811'], /--from.*expected exactly 8 digits/],
    [['replay', '--from', '20260812', '--to', '20260811'], /--to is before --from/],
    [['replay', '--to', '20260811'], /required option '--from/],
    [['export', '20260230'], /day 30 does not exist in 2026-02/],
    [['ingest', '/no/such/path'], /\/no\/such\/path: no such file or directory/],
    [['ingest-timetables', '/no/such/path'], /\/no\/such\/path: no such file or directory/],
    [['import-fleet'], /needs a fleet CSV, --coach-layouts <file>, or both/],
    [['status', '--days', 'many'], /expected a whole number/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('refuses %j with a one-line reason and a non-zero exit', async (args, reason) => {
    const r = await cli(...args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a bad environment variable naming it', async () => {
    const saved = process.env.PORT;
    process.env.PORT = 'eighty';
    try {
      const r = await cli('status');
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'emutrack: configuration: PORT: Invalid input: expected number, received NaN (got "eighty")',
      );
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });
});
