import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTruthCirculations, scoreCirculations } from '../../bench/circulation-truth.js';
import { inferCirculations } from '../../src/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/circulation/read-circulations.js';
import { importFleet } from '../../src/emus/import-fleet.js';
import { generateDataset } from '../../src/generator/write-dataset.js';
import { ingestObservations } from '../../src/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/records/build-daily-records.js';
import { ingestTimetables } from '../../src/timetables/ingest-timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

/**
 * The accuracy benchmark in small (bench/suites/circulation.ts runs it at 4,500 EMUs): a
 * generated network of 300 EMUs, 14 days, 20% of sightings missing and 1% naming a wrong unit,
 * ingested with its timetables, built, inferred, and scored against the generator's truth.
 */
describe('circulation accuracy against the generator’s truth (300 EMUs, 14 days)', () => {
  it('link precision >= 0.99, recall >= 0.95, most circulations reproduced exactly', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-accuracy-'));
    const manifest = await generateDataset({
      emus: 300,
      days: 14,
      seed: 7,
      out: dir,
      missingRate: 0.2,
    });
    const db = t.current.db;
    await importFleet(db, path.join(dir, 'fleet.csv'));
    await ingestTimetables(db, path.join(dir, 'timetables.ndjson'));
    await ingestObservations(db, path.join(dir, 'observations'));
    const first = manifest.perDay[0]!.serviceDay;
    const last = first + 13;
    for (let d = first; d <= last; d++) await buildDailyRecords(db, d);

    const run = await inferCirculations(db, { asOf: last });
    expect(run.runsOrderedBySighting).toBe(0);
    const routes = await readCurrentRoutes(db);
    const score = scoreCirculations(
      await readTruthCirculations(dir),
      routes.map((r) => ({
        nodes: r.nodes.map((n) => n.nodeKey),
        containsLoopBreak: r.metadata.containsLoopBreak,
      })),
    );
    expect(score.truthLinks).toBe(manifest.counts.trains);
    expect(score.linkPrecision).toBeGreaterThanOrEqual(0.99);
    expect(score.linkRecall).toBeGreaterThanOrEqual(0.95);
    expect(score.circulationsMatchedExactly / score.circulations).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});
