import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/generator/write-dataset.js';
import { generate, listFiles, readNdjson, tempDir } from './support.js';

interface Sighting {
  trainCode: string;
  emuCode: string;
  observedAt: number | string;
}

const small = { emus: 200, days: 3, seed: 11, wrongRate: 0, duplicateRate: 0 } as const;

/** Sightings per (written train, unit), over all observation files. */
async function sightingsPerRun(dir: string): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  for (const f of await listFiles(dir)) {
    if (!f.startsWith('observations/')) continue;
    for (const s of await readNdjson<Sighting>(path.join(dir, f))) {
      const key = `${s.emuCode.replace(/-\d\d(-\d\d[A-F])?$/, '')}|${s.trainCode}`;
      runs.set(key, (runs.get(key) ?? 0) + 1);
    }
  }
  return runs;
}

describe('generateDataset: whole runs unseen, sightings per run', () => {
  it('drops about runUnseenRate of the runs whole, and draws min..max sightings per run', async () => {
    const sparse = await generate({
      ...small,
      missingRate: 0,
      runUnseenRate: 0.2,
      sightingsPerRun: [1, 3],
    });
    const c = sparse.manifest.counts;
    const share = c.unseenRuns / c.records;
    expect(share).toBeGreaterThan(0.17);
    expect(share).toBeLessThan(0.23);
    expect(sparse.manifest.options).toMatchObject({
      runUnseenRate: 0.2,
      minSightingsPerRun: 1,
      maxSightingsPerRun: 3,
    });
    // Seen runs have 1 to 3 sightings each: on average 2, and the dataset has about
    // 0.8 x 2 sightings per record.
    const perRecord = c.sightings / c.records;
    expect(perRecord).toBeGreaterThan(1.4);
    expect(perRecord).toBeLessThan(1.8);
    const dense = await generate({ ...small, missingRate: 0 });
    expect(dense.manifest.counts.unseenRuns).toBe(0);
    expect(dense.manifest.counts.sightings / dense.manifest.counts.records).toBeGreaterThan(4.5);
    // A unit on one train in 3 days is at most 3 runs: at most 9 sightings at 1..3 per run.
    const runs = await sightingsPerRun(sparse.dir);
    expect(Math.max(...runs.values())).toBeLessThanOrEqual(9);
  });

  it('at rate 0 and 3..7 sightings draws the same dataset as without the options', async () => {
    const a = await generate({ ...small, missingRate: 0.2 });
    const b = await generate({
      ...small,
      missingRate: 0.2,
      runUnseenRate: 0,
      lateRunRate: 0,
      sightingsPerRun: [3, 7],
    });
    expect(a.manifest.counts).toEqual(b.manifest.counts);
  });

  it('reports about lateRunRate of the runs 2 to 8 hours late, on their own service day, the rest as they were', async () => {
    const options = { ...small, missingRate: 0, isoTimeRate: 0 };
    const onTime = await generate(options);
    const late = await generate({ ...options, lateRunRate: 0.5 });
    expect(late.manifest.counts).toEqual(onTime.manifest.counts);
    // Refs do not move with the rates: each sighting found again by its ref, in the same file.
    const seen = async (dir: string) => {
      const at = new Map<string, [string, number]>();
      for (const f of await listFiles(dir)) {
        if (!f.startsWith('observations/')) continue;
        for (const s of await readNdjson<Sighting & { ref?: string }>(path.join(dir, f)))
          if (s.ref) at.set(s.ref, [f, Number(s.observedAt)]);
      }
      return at;
    };
    const before = await seen(onTime.dir);
    const after = await seen(late.dir);
    expect(after.size).toBe(before.size);
    const delays: number[] = [];
    for (const [ref, [file, t]] of before) {
      const [lateFile, lateT] = after.get(ref)!;
      expect(lateFile).toBe(file);
      delays.push(lateT - t);
    }
    expect(Math.min(...delays)).toBe(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(8 * 3600);
    const moved = delays.filter((d) => d > 0).length / delays.length;
    expect(moved).toBeGreaterThan(0.4);
    expect(moved).toBeLessThan(0.55);
  });

  it('refuses a bad range, naming the option', async () => {
    const out = await tempDir();
    await expect(
      generateDataset({ emus: 10, days: 1, out, sightingsPerRun: [3, 1] }),
    ).rejects.toThrow(/^sightingsPerRun:/);
    await expect(generateDataset({ emus: 10, days: 1, out, runUnseenRate: 2 })).rejects.toThrow(
      /^runUnseenRate:/,
    );
    await expect(generateDataset({ emus: 10, days: 1, out, lateRunRate: -1 })).rejects.toThrow(
      /^lateRunRate:/,
    );
  });
});
