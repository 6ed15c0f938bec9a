import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { readEmuAllocation } from '../../src/domain/emus/read-allocation.js';
import type { Db } from '../../src/shared/db/db.js';
import { createTestDatabase, dropTestDatabase, useTestDatabase } from '../helpers/test-db.js';
import { rejectsOf, useFixtureDir } from '../ingest/formats/format-test-kit.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const t = useTestDatabase();
const files = useFixtureDir();

/** Every unit's allocation, as /api/v2/allocation/emu/{code} answers it, by code. */
async function allocations(db: Db): Promise<Map<string, Record<string, unknown>>> {
  const ids = await db.query<{ id: number }>('SELECT id FROM emus ORDER BY code');
  const out = new Map<string, Record<string, unknown>>();
  for (const { id } of ids.rows) {
    const { code, ...fields } = (await readEmuAllocation(db, id))!;
    out.set(code, { ...fields, emuCodeMappings: { [id]: code } });
  }
  return out;
}

describe('import-fleet: the allocation export', () => {
  it("reads an array of the allocation API's answers back into the same units", async () => {
    const { db } = t.current;
    const csv = await importFleet(db, path.join(FIXTURES, 'fleet.csv'));
    expect(csv).toMatchObject({ format: 'fleet-csv', rejected: 0 });
    const source = await allocations(db);
    const file = await files.write(
      'allocation.json',
      JSON.stringify([...source.values()], null, 2),
    );
    const other = await createTestDatabase();
    try {
      const r = await importFleet(other.db, file);
      expect(r).toMatchObject({
        format: 'allocation-json',
        read: source.size,
        created: source.size,
        rejected: 0,
      });
      expect(r.ignoredColumns.sort()).toEqual(['coachLayouts', 'emuId']);
      const copied = await allocations(other.db);
      // What the file cannot carry over: the other service's ids, and the coach layouts
      // (imported with --coach-layouts).
      const strip = (m: Map<string, Record<string, unknown>>) =>
        [...m].map(([code, fields]) => {
          const rest = { ...fields };
          for (const k of ['emuId', 'emuCodeMappings', 'coachLayouts']) delete rest[k];
          return [code, rest];
        });
      expect(strip(copied)).toEqual(strip(source));
      expect(source.size).toBeGreaterThan(10);
    } finally {
      await dropTestDatabase(other);
    }
  });

  it('takes emuCode, emu_code or code and either naming of the fields; bad units refused with their line', async () => {
    const { db } = t.current;
    const file = await files.write(
      'units.json',
      [
        '[',
        '  {"emuCode": "CR400AF2901", "model": "CR400AF", "bureau": "上海局", "depot": "上海虹桥动车所", "trainDepot": "上海动车段"},',
        '  {"emu_code": "CR400BF-A-5901", "bureau": "北京局", "train_depot": "北京动车段", "tags": "智能|冬奥"},',
        '  {"code": "CRH380AL2901", "designMaxSpeed": 380, "isPublic": false, "alias": ["380AL-2901"]},',
        '  {"model": "CR400AF", "bureau": "上海局"},',
        '  {"emuCode": "CR400AF2902", "bureau": {"name": "上海局"}},',
        '  {"emuCode": "CR400AF2903", "designMaxSpeed": "fast"},',
        '  {oops},',
        '  "CR400AF2904"',
        ']',
      ].join('\n'),
    );
    const r = await importFleet(db, file);
    expect(r).toMatchObject({ format: 'allocation-json', read: 8, created: 3, rejected: 5 });
    expect((await rejectsOf(db, 'units.json')).map(([line, field]) => [line, field])).toEqual([
      [5, 'emu_code'],
      [6, 'bureau'],
      [7, 'design_max_speed'],
      [8, null],
      [9, null],
    ]);
    const units = await db.query(
      `SELECT code, model, bureau, depot, train_depot, tags, design_max_speed, is_public,
              ARRAY(SELECT alias FROM emu_aliases a WHERE a.emu_id = e.id ORDER BY 1) AS aliases
         FROM emus e WHERE code IN ('CR400AF-2901', 'CR400BF-A-5901', 'CRH380AL-2901') ORDER BY code`,
    );
    expect(units.rows).toMatchObject([
      {
        code: 'CR400AF-2901',
        model: 'CR400AF',
        bureau: '上海局',
        depot: '上海虹桥动车所',
        train_depot: '上海动车段',
      },
      {
        code: 'CR400BF-A-5901',
        bureau: '北京局',
        train_depot: '北京动车段',
        tags: ['智能', '冬奥'],
      },
      {
        code: 'CRH380AL-2901',
        design_max_speed: 380,
        is_public: false,
        aliases: ['380AL-2901', 'CRH380AL-2901', 'CRH380AL2901'],
      },
    ]);
    // Again: the same units, nothing created.
    expect(await importFleet(db, file)).toMatchObject({ created: 0, updated: 3, rejected: 5 });
  });

  it('refuses an unknown format and a JSON file over the size limit, naming the file', async () => {
    const { db } = t.current;
    const text = await files.write('fleet.json', 'just some notes');
    await expect(importFleet(db, text)).rejects.toThrow(
      /^fleet\.json: unknown format \(first line "just some notes"\): expected a fleet CSV/,
    );
    const big = await files.write('big.json', JSON.stringify([{ emuCode: 'CR400AF2911' }]));
    await expect(importFleet(db, big, { maxJsonBytes: 10 })).rejects.toThrow(
      /^big\.json: a JSON array of \d+ bytes is over the 10-byte limit/,
    );
    // A CSV whatever its name; one without emu_code refused for that.
    const csv = await files.write('fleet-as.json', 'emu_code,bureau\nCR400AF2912,上海局\n');
    expect(await importFleet(db, csv)).toMatchObject({ format: 'fleet-csv', created: 1 });
    const noCode = await files.write('no-code.csv', 'model,bureau\nCR400AF,上海局\n');
    await expect(importFleet(db, noCode)).rejects.toThrow(
      'no-code.csv: CSV header lacks the required column emu_code (line 1)',
    );
  });
});
