import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { shanghai } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
let dir: string;

function lines(n: number, day: string, offset = 0): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      JSON.stringify({
        observedAt: shanghai(day, '08:00') + i,
        trainCode: `G${100 + ((i + offset) % 400)}`,
        emuCode: `CR400AF-${String(2000 + ((i + offset) % 97)).padStart(4, '0')}`,
        source: 'travel-code',
        ref: `r-${day}-${i + offset}`,
      }),
    );
  }
  return out.join('\n') + '\n';
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-ingest-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ingestObservations', () => {
  it('stores each sighting once when two ingestions of the same file race', async () => {
    const file = path.join(dir, 'race.ndjson');
    await writeFile(file, lines(3000, '20260901'));
    const [a, b] = await Promise.all([
      ingestObservations(t.current.db, file, { chunkSize: 500 }),
      ingestObservations(t.current.db, file, { chunkSize: 700 }),
    ]);
    expect(a.accepted + b.accepted).toBe(3000);
    expect(a.duplicate + b.duplicate).toBe(3000);
    const r = await t.current.db.query<{ n: number; keys: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT dedup_key)::int AS keys FROM observations WHERE file = 'race.ndjson'",
    );
    expect(r.rows[0]).toEqual({ n: 3000, keys: 3000 });
  });

  it('gives the same result whatever the chunk size, duplicates inside one chunk included', async () => {
    const file = path.join(dir, 'chunks.ndjson');
    // The second half repeats the first: same refs.
    await writeFile(file, lines(1000, '20260902') + lines(1000, '20260902'));
    const r = await ingestObservations(t.current.db, file, { chunkSize: 333 });
    expect(r).toMatchObject({
      read: 2000,
      accepted: 1000,
      duplicate: 1000,
      rejected: 0,
      serviceDays: [20698],
    });
    const again = await ingestObservations(t.current.db, file, { chunkSize: 5000 });
    expect(again).toMatchObject({ read: 2000, accepted: 0, duplicate: 2000 });
  });

  it('reports a file that cannot be read and carries on with the others', async () => {
    const sub = await mkdtemp(path.join(dir, 'mixed-'));
    await writeFile(
      path.join(sub, 'a-no-header.csv'),
      'when,train,unit\n1786671000,G1,CR400AF-2001\n',
    );
    await writeFile(path.join(sub, 'b-good.ndjson'), lines(10, '20260903'));
    await writeFile(path.join(sub, 'notes.txt'), 'not an observation file');
    const r = await ingestObservations(t.current.db, sub);
    expect(r.files.map((f) => f.file)).toEqual(['a-no-header.csv', 'b-good.ndjson']);
    expect(r.files[0]!.error).toMatch(
      /^a-no-header\.csv: unknown format \(first line "when,train,unit"\)/,
    );
    expect(r.files[1]).toEqual({
      file: 'b-good.ndjson',
      format: 'ndjson',
      read: 10,
      accepted: 10,
      duplicate: 0,
      rejected: 0,
    });
  });

  it('keeps the unit as written (less the seat) as an alias, not every seat', async () => {
    const file = path.join(dir, 'qr.ndjson');
    const qr = ['CR400AF-Z-0216-02-03F', 'CR400AF-Z-0216-05-11A', 'CR400AF-Z-0216-16-01D'].map(
      (emuCode, i) =>
        JSON.stringify({
          observedAt: shanghai('20260904', '09:00') + i,
          trainCode: 'G1',
          emuCode,
          source: 'travel-code',
        }),
    );
    await writeFile(file, qr.join('\n'));
    expect((await ingestObservations(t.current.db, file)).accepted).toBe(3);
    const aliases = await t.current.db.query<{ alias: string }>(
      "SELECT a.alias FROM emu_aliases a JOIN emus e ON e.id = a.emu_id WHERE e.code = 'CR400AF-Z-0216' ORDER BY 1",
    );
    expect(aliases.rows.map((x) => x.alias)).toEqual(['CR400AF-Z-0216']);
    const stored = await t.current.db.query<{ emu_code: string }>(
      "SELECT emu_code FROM observations WHERE file = 'qr.ndjson' ORDER BY line",
    );
    expect(stored.rows.map((x) => x.emu_code)).toEqual([
      'CR400AF-Z-0216-02-03F',
      'CR400AF-Z-0216-05-11A',
      'CR400AF-Z-0216-16-01D',
    ]);
  });

  it('stores each row with the id of its EMU, whether the unit was registered before or in the same chunk', async () => {
    // Units written several ways, all new: rows of a chunk that meets a unit first get its id
    // from the writer; later chunks (and the parse threads) know it already. On this thread
    // and in parse threads, each with units of its own.
    const runs = [
      { file: 'units-lines.ndjson', first: 5100, options: { chunkSize: 50, parseThreads: 0 } },
      {
        file: 'units-threads.ndjson',
        first: 5200,
        options: { chunkSize: 50, parseThreads: 2, parallelMinBytes: 0 },
      },
    ];
    for (const { file, first, options } of runs) {
      const unit = (i: number) => first + (i % 7);
      const written = (i: number) =>
        [`CR400BF-${unit(i)}`, `CR400BF${unit(i)}`, `cr400bf-${unit(i)}-03-11A`][i % 3]!;
      const text = Array.from({ length: 600 }, (_, i) =>
        JSON.stringify({
          observedAt: shanghai('20260905', '07:00') + i,
          trainCode: `G${300 + (i % 11)}`,
          emuCode: written(i),
          source: 'report',
        }),
      ).join('\n');
      await writeFile(path.join(dir, file), text);
      const r = await ingestObservations(t.current.db, path.join(dir, file), options);
      expect(r).toMatchObject({ read: 600, accepted: 600 });
      const rows = await t.current.db.query<{ emu_code: string; code: string }>(
        `SELECT o.emu_code, e.code FROM observations o JOIN emus e ON e.id = o.emu_id
          WHERE o.file = $1 ORDER BY o.line`,
        [file],
      );
      expect(rows.rows).toEqual(
        Array.from({ length: 600 }, (_, i) => ({
          emu_code: written(i),
          code: `CR400BF-${unit(i)}`,
        })),
      );
    }
  });

  it('registers the written form of a repeated sighting as an alias, though the repeat stores no row', async () => {
    // The sources report one sighting twice in different hands (fixture 2026-08-10_13 lines
    // 176-177): the repeat is not stored, yet "CR400BF5301" becomes a name of CR400BF-5301.
    const runs = [
      { file: 'repeat-lines.ndjson', unit: 5301, options: { parseThreads: 0 } },
      {
        file: 'repeat-threads.ndjson',
        unit: 5302,
        options: { parseThreads: 2, parallelMinBytes: 0 },
      },
    ];
    for (const { file, unit, options } of runs) {
      const at = shanghai('20260906', '07:00');
      const text = [
        { observedAt: at, trainCode: 'G7', emuCode: `CR400BF-${unit}`, source: 'report' },
        { observedAt: at, trainCode: 'g7', emuCode: `CR400BF${unit}`, source: 'report' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n');
      await writeFile(path.join(dir, file), text);
      const r = await ingestObservations(t.current.db, path.join(dir, file), options);
      expect(r).toMatchObject({ read: 2, accepted: 1, duplicate: 1 });
      const aliases = await t.current.db.query<{ alias: string }>(
        `SELECT a.alias FROM emu_aliases a JOIN emus e ON e.id = a.emu_id WHERE e.code = $1
          ORDER BY 1`,
        [`CR400BF-${unit}`],
      );
      expect(aliases.rows.map((x) => x.alias)).toEqual([`CR400BF-${unit}`, `CR400BF${unit}`]);
    }
  });
});
