import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../src/shared/app/package-root.js';
import { generateDataset, type GeneratedManifest } from '../src/generator/write-dataset.js';

export interface BenchDataset {
  dir: string;
  manifest: GeneratedManifest;
  sightings: number;
  firstServiceDay: number;
}

export interface BenchDatasetOptions {
  emus: number;
  days: number;
  seed: number;
  /** Share of sightings dropped. Default 0: the foundation bench wants 5 sightings per record. */
  missingRate?: number;
  /** Share of runs with no sighting at all. Default 0. */
  runUnseenRate?: number;
  /** Sightings drawn per run [min, max]. Default the generator's [3, 7]. */
  sightingsPerRun?: readonly [number, number];
  log(message: string): void;
}

/**
 * A generated network under bench-data/, made once per (size, seed, rate) and reused by later
 * runs: generation is deterministic, so a cached copy is the same bytes.
 */
export async function benchDataset(options: BenchDatasetOptions): Promise<BenchDataset> {
  const missingRate = options.missingRate ?? 0;
  const sparse =
    options.runUnseenRate || options.sightingsPerRun
      ? `-u${options.runUnseenRate ?? 0}-n${(options.sightingsPerRun ?? [3, 7]).join('to')}`
      : '';
  const dir = path.join(
    packageRoot(),
    'bench-data',
    `gen-${options.emus}x${options.days}-s${options.seed}-m${missingRate}${sparse}`,
  );
  let manifest: GeneratedManifest;
  try {
    manifest = JSON.parse(
      await readFile(path.join(dir, 'manifest.json'), 'utf8'),
    ) as GeneratedManifest;
  } catch {
    options.log(`generating ${options.emus} EMUs x ${options.days} days into ${dir}`);
    manifest = await generateDataset({
      emus: options.emus,
      days: options.days,
      seed: options.seed,
      out: dir,
      missingRate,
      ...(options.runUnseenRate !== undefined ? { runUnseenRate: options.runUnseenRate } : {}),
      ...(options.sightingsPerRun ? { sightingsPerRun: options.sightingsPerRun } : {}),
    });
  }
  return {
    dir,
    manifest,
    sightings: manifest.counts.sightings,
    firstServiceDay: manifest.perDay[0]!.serviceDay,
  };
}
