import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  importCoachLayouts,
  CoachLayoutFileError,
} from '../../src/domain/emus/import-coach-layouts.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { useTestDatabase } from '../helpers/test-db.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const t = useTestDatabase();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-layouts-'));
  await importFleet(t.current.db, path.join(FIXTURES, 'fleet.csv'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function layout(code: string) {
  const r = await t.current.db.query<{
    coach_no: number;
    coach_type_code: string;
    capacity: number;
    has_power: boolean;
  }>(
    `SELECT l.coach_no, l.coach_type_code, l.capacity, l.has_power
       FROM emu_coach_layouts l JOIN emus e ON e.id = l.emu_id WHERE e.code = $1 ORDER BY l.coach_no`,
    [code],
  );
  return r.rows;
}

describe('importCoachLayouts', () => {
  it('sets the layouts of every unit of a model, a later entry naming a unit overriding it', async () => {
    const r = await importCoachLayouts(t.current.db, path.join(FIXTURES, 'coach-layouts.json'));
    expect(r).toMatchObject({
      file: 'coach-layouts.json',
      read: 4,
      accepted: 4,
      rejected: 0,
      units: 7,
      unmatchedModels: [],
    });
    const af = await layout('CR400AF-2001');
    expect(af).toHaveLength(8);
    expect(af.reduce((n, c) => n + c.capacity, 0)).toBe(576);
    expect(af[3]).toEqual({ coach_no: 4, coach_type_code: 'ZEC', capacity: 63, has_power: true });
    // CR400AF-2003 was named by its compact code in the last entry: its car 4 is a dining car.
    expect((await layout('CR400AF-2003'))[3]).toEqual({
      coach_no: 4,
      coach_type_code: 'CA',
      capacity: 0,
      has_power: true,
    });
    expect(await layout('CRH2A-2011')).toHaveLength(8);
    expect(await layout('CRH380A-2641')).toEqual([]);
  });

  it('replaces a unit’s layout as a whole; rejects bad entries with their field and keeps the rest', async () => {
    const file = path.join(dir, 'layouts.ndjson');
    await writeFile(
      file,
      [
        JSON.stringify({
          emuCodes: ['5157号'],
          coaches: [
            { coachNo: 2, capacity: 40 },
            { coachNo: 1, coachTypeCode: 'ZY', capacity: 28 },
          ],
        }),
        JSON.stringify({ emuCodes: ['CR400AF-2001'], coaches: [{ coachNo: 1, capacity: -1 }] }),
        JSON.stringify({ emuCodes: ['CR400AF-9999'], coaches: [{ coachNo: 1 }] }),
        JSON.stringify({ models: ['CR450AF'], coaches: [{ coachNo: 1 }, { coachNo: 1 }] }),
        JSON.stringify({ coaches: [{ coachNo: 1 }] }),
        JSON.stringify({ models: ['CR450AF'], coaches: [{ coachNo: 1, hasPower: 'yes' }] }),
        JSON.stringify({ models: ['CR450AF'], coaches: [{ coachNo: 1, hasPower: true }] }),
      ].join('\n'),
    );
    const r = await importCoachLayouts(t.current.db, file);
    expect(r).toMatchObject({
      read: 7,
      accepted: 2,
      rejected: 5,
      units: 1,
      unmatchedModels: ['CR450AF'],
    });
    expect(await layout('CR400BF-A-5157')).toEqual([
      { coach_no: 1, coach_type_code: 'ZY', capacity: 28, has_power: false },
      { coach_no: 2, coach_type_code: '', capacity: 40, has_power: false },
    ]);
    expect(await layout('CR400AF-2001')).toHaveLength(8);
    const rejects = await t.current.db.query<{ line: number; field: string; reason: string }>(
      'SELECT line, field, reason FROM ingest_rejects WHERE batch_id = $1 ORDER BY line',
      [r.batchId],
    );
    expect(rejects.rows.map((x) => [x.line, x.field])).toEqual([
      [2, 'coaches[0].capacity'],
      [3, 'emuCodes[0]'],
      [4, 'coaches[1].coachNo'],
      [5, 'emuCodes'],
      [6, 'coaches[0].hasPower'],
    ]);
    expect(rejects.rows[1]!.reason).toMatch(/no registered EMU "CR400AF-9999"/);
    expect(rejects.rows[2]!.reason).toMatch(/coach 1 twice/);
  });

  it('rejects an array entry that is not JSON by itself, and refuses a file it cannot read', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '[{"models": ["CR400AF"], ');
    const r = await importCoachLayouts(t.current.db, file);
    // The element is cut off, and so is the array: both are said.
    expect(r).toMatchObject({ read: 2, accepted: 0, rejected: 2 });
    const rejects = await t.current.db.query<{ line: number; reason: string }>(
      'SELECT line, reason FROM ingest_rejects WHERE batch_id = $1 ORDER BY id',
      [r.batchId],
    );
    expect(rejects.rows).toEqual([
      { line: 1, reason: expect.stringMatching(/^not valid JSON/) },
      { line: 1, reason: 'the JSON array is not closed (missing "]")' },
    ]);
    await expect(importCoachLayouts(t.current.db, dir)).rejects.toThrow(CoachLayoutFileError);
    await expect(importCoachLayouts(t.current.db, path.join(dir, 'missing.json'))).rejects.toThrow(
      /missing\.json/,
    );
  });
});
