import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { cli } from '../helpers/run-cli.js';

const t = useTestDatabase();
let dir: string;

beforeAll(async () => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-cli-corrections-'));
  const at = (hhmm: string) => `2026-08-05T${hhmm}:00+08:00`;
  const lines = [
    {
      observedAt: at('08:00'),
      trainCode: 'G1',
      emuCode: 'CR400AF-2001',
      source: 'report',
      ref: 'a',
    },
    { observedAt: at('08:10'), trainCode: 'G1', emuCode: 'banana', source: 'report', ref: 'b' },
  ];
  await writeFile(path.join(dir, 'in.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n'));
});
afterAll(async () => {
  delete process.env.ALLOW_UNKNOWN_EMU_FORMS;
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

describe('emutrack correct', () => {
  it('ingest refuses banana unless ALLOW_UNKNOWN_EMU_FORMS; then retract, merge-emu, undo and list', async () => {
    const refused = await cli('ingest', path.join(dir, 'in.ndjson'));
    expect(refused.stdout).toContain('in.ndjson: read 2, accepted 1, duplicate 0, rejected 1');
    process.env.ALLOW_UNKNOWN_EMU_FORMS = 'true';
    const allowed = await cli('ingest', path.join(dir, 'in.ndjson'));
    expect(allowed.stdout).toContain('in.ndjson: read 2, accepted 1, duplicate 1, rejected 0');
    delete process.env.ALLOW_UNKNOWN_EMU_FORMS;

    const retract = await cli(
      'correct',
      'retract',
      '--source',
      'report',
      '--ref',
      'a',
      '--reason',
      'wrong day',
      '--by',
      'ops-alice',
    );
    expect(retract.code).toBe(0);
    expect(retract.stdout).toMatch(
      /^correction 1: retracted observation\(s\) \d+; days marked stale \(rebuilt by the worker\): 20260804, 20260805\n$/,
    );
    const day = serviceDayFromYmd('20260805');
    // The ingest marked the sighting's day already (a late sighting): order by day, not by mark.
    const stale = (await listStaleDays(t.current.db)).map((s) => s.serviceDay).sort();
    expect(stale).toEqual([day - 1, day]);

    const merge = await cli(
      'correct',
      'merge-emu',
      'BANANA',
      'CR400AF-2001',
      '--reason',
      'phantom',
      '--by',
      'ops-alice',
    );
    expect(merge.stdout).toBe(
      'correction 2: merged BANANA into CR400AF-2001; days marked stale (rebuilt by the worker): 20260804, 20260805\n',
    );
    // While merged, BANANA is an alias of CR400AF-2001: a new sighting writing it is accepted.
    await writeFile(
      path.join(dir, 'later.ndjson'),
      JSON.stringify({
        observedAt: '2026-08-05T09:00:00+08:00',
        trainCode: 'G2',
        emuCode: 'banana',
        source: 'report',
        ref: 'c',
      }),
    );
    expect((await cli('ingest', path.join(dir, 'later.ndjson'))).stdout).toContain(
      'later.ndjson: read 1, accepted 1, duplicate 0, rejected 0',
    );
    const undo = await cli('correct', 'undo', '1', '--by', 'ops-bob');
    expect(undo.stdout).toMatch(/^correction 3: undid correction 1; days marked stale/);
    const again = await cli('correct', 'undo', '1');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('correction: correction 1 was undone already (correction 3)');
    const neither = await cli('correct', 'retract', '--reason', 'x');
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('give either --observation ID, or --source S and --ref R');
    const noReason = await cli('correct', 'retract', '--observation', '1');
    expect(noReason.code).not.toBe(0);
    expect(noReason.stderr).toContain("required option '--reason <text>' not specified");

    const list = await cli('correct', 'list');
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^3 {2}\S+ {2}ops-bob \(CLI\) {2}undo correction 1: undo of correction 1$/,
    );
    expect(lines[1]).toMatch(
      /^2 {2}\S+ {2}ops-alice \(CLI\) {2}merge BANANA into CR400AF-2001: phantom$/,
    );
    expect(lines[2]).toMatch(
      /^1 {2}\S+ {2}ops-alice \(CLI\) {2}retract observation \d+ \(source report, ref a\) \[undone by 3\]: wrong day$/,
    );
    const json = JSON.parse((await cli('correct', 'list', '--json')).stdout);
    expect(json.map((c: { id: number; kind: string }) => [c.id, c.kind])).toEqual([
      [3, 'undo'],
      [2, 'merge-emu'],
      [1, 'retract'],
    ]);
  });
});
