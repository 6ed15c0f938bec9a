import { readFile, writeFile, mkdir, access } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputDirectoryInUseError } from '../../src/generator/outputs.js';
import { generateDataset, InvalidGenerateOptionError } from '../../src/generator/write-dataset.js';
import { generate, listFiles, readLines, tempDir } from './support.js';

const small = { emus: 150, days: 2, seed: 7 } as const;

describe('generateDataset: determinism', () => {
  it('writes byte-identical datasets for the same seed and options', async () => {
    const a = await generate({ ...small, badRate: 0.01 });
    const b = await generate({ ...small, badRate: 0.01 });
    const files = await listFiles(a.dir);
    expect(files).toEqual(await listFiles(b.dir));
    expect(files).toEqual(
      expect.arrayContaining([
        'fleet.csv',
        'manifest.json',
        'timetables.ndjson',
        'truth/assignments.ndjson',
        'truth/circulations.json',
        'observations/20260801.ndjson',
        'observations/20260802.ndjson',
      ]),
    );
    for (const f of files) {
      const [x, y] = await Promise.all([
        readFile(path.join(a.dir, f)),
        readFile(path.join(b.dir, f)),
      ]);
      expect(x.equals(y), f).toBe(true);
    }
    expect(a.manifest).toEqual(b.manifest);
  });

  it('gives another network for another seed', async () => {
    const a = await generate(small);
    const b = await generate({ ...small, seed: 8 });
    const [x, y] = await Promise.all([
      readFile(path.join(a.dir, 'truth/circulations.json'), 'utf8'),
      readFile(path.join(b.dir, 'truth/circulations.json'), 'utf8'),
    ]);
    expect(x).not.toEqual(y);
  });

  it('keeps the network and truth when only sighting rates change', async () => {
    const a = await generate({ ...small, missingRate: 0, wrongRate: 0 });
    const b = await generate({ ...small, missingRate: 0.5, wrongRate: 0.2, isoTimeRate: 0.5 });
    for (const f of [
      'fleet.csv',
      'timetables.ndjson',
      'truth/assignments.ndjson',
      'truth/circulations.json',
    ]) {
      const [x, y] = await Promise.all([
        readFile(path.join(a.dir, f)),
        readFile(path.join(b.dir, f)),
      ]);
      expect(x.equals(y), f).toBe(true);
    }
  });

  it('drops sightings without disturbing the others: a higher missing rate keeps a subset', async () => {
    const full = await generate({ ...small, missingRate: 0, wrongRate: 0 });
    const thin = await generate({ ...small, missingRate: 0.5, wrongRate: 0 });
    const all = new Set(await readLines(path.join(full.dir, 'observations/20260801.ndjson')));
    const kept = await readLines(path.join(thin.dir, 'observations/20260801.ndjson'));
    expect(kept.length).toBeGreaterThan(all.size * 0.4);
    expect(kept.length).toBeLessThan(all.size * 0.6);
    for (const line of kept) expect(all.has(line), line).toBe(true);
  });
});

describe('generateDataset: options and output directory', () => {
  it('refuses bad options, naming the option', async () => {
    const out = await tempDir();
    await expect(generateDataset({ emus: 0, days: 1, out })).rejects.toThrow(
      InvalidGenerateOptionError,
    );
    await expect(generateDataset({ emus: 10, days: 1, out, start: '20260231' })).rejects.toThrow(
      /^start: .*20260231/,
    );
    await expect(generateDataset({ emus: 10, days: 1, out, missingRate: 1.5 })).rejects.toThrow(
      /^missingRate:/,
    );
    await expect(generateDataset({ emus: 10, days: 1.5, out })).rejects.toThrow(/^days:/);
  });

  it('refuses a directory holding anything but an earlier dataset, and deletes nothing', async () => {
    const out = await tempDir();
    await writeFile(path.join(out, 'notes.txt'), 'mine');
    await expect(generateDataset({ emus: 10, days: 1, out })).rejects.toThrow(
      OutputDirectoryInUseError,
    );
    await expect(readFile(path.join(out, 'notes.txt'), 'utf8')).resolves.toBe('mine');

    const nested = await tempDir();
    await mkdir(path.join(nested, 'observations'));
    await writeFile(path.join(nested, 'observations', 'keep.csv'), 'x');
    await expect(generateDataset({ emus: 10, days: 1, out: nested })).rejects.toThrow(
      /observations\/keep\.csv/,
    );
  });

  it('replaces an earlier dataset, stale day files included', async () => {
    const out = await tempDir();
    await generateDataset({ emus: 30, days: 3, out, seed: 2 });
    await expect(access(path.join(out, 'observations/20260803.ndjson'))).resolves.toBeUndefined();
    const manifest = await generateDataset({ emus: 30, days: 1, out, seed: 2 });
    const files = (await listFiles(out)).filter((f) => f.startsWith('observations/'));
    expect(files).toEqual(manifest.files.map((f) => f.path));
    expect(files).not.toContain('observations/20260803.ndjson');
  });
});
