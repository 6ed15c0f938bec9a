import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTruthCirculations, scoreCirculations } from '../../bench/circulation-truth.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import { readCurrentRoutes } from '../../src/domain/circulation/read-circulations.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { generateDataset } from '../../src/generator/write-dataset.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { resetCirculationData } from './support.js';

const t = useTestDatabase();
let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

interface Setting {
  name: string;
  options: Partial<Parameters<typeof generateDataset>[0]>;
  precision: number;
  recall: number;
  exact: number;
}

/**
 * The accuracy benchmark in small (bench/suites/circulation.ts runs it at 4,500 EMUs): a
 * generated network of 300 EMUs (multi-day circulations: 1 to 4 units rotating over as many
 * days, some coupled), 14 days, 1% of sightings naming a wrong unit, ingested with its
 * timetables, built, inferred, and scored against the generator's truth, at two settings:
 * - today's: 3 to 7 sightings per run, 20% of sightings missing;
 * - sparse: 20% of runs not seen at all, 1 to 3 sightings per seen run.
 */
const SETTINGS: Setting[] = [
  {
    name: 'today: 20% of sightings missing',
    options: { missingRate: 0.2 },
    precision: 0.995,
    recall: 0.97,
    exact: 0.9,
  },
  {
    name: 'sparse: 20% of runs unseen, 1-3 sightings per seen run',
    options: { missingRate: 0, runUnseenRate: 0.2, sightingsPerRun: [1, 3] },
    precision: 0.995,
    recall: 0.97,
    exact: 0.85,
  },
];

describe('circulation accuracy against the generator’s truth (300 EMUs, 14 days)', () => {
  it.each(SETTINGS)(
    '$name: link precision >= $precision, recall >= $recall, circulations reproduced exactly >= $exact',
    async (setting) => {
      await resetCirculationData(t.current.db);
      await t.current.db.query('TRUNCATE observations, ingest_rejects CASCADE');
      dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-accuracy-'));
      const manifest = await generateDataset({
        emus: 300,
        days: 14,
        seed: 7,
        out: dir,
        ...setting.options,
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
      await rm(dir, { recursive: true, force: true });
      expect(score.truthLinks).toBe(manifest.counts.trains);
      expect(score.linkPrecision).toBeGreaterThanOrEqual(setting.precision);
      expect(score.linkRecall).toBeGreaterThanOrEqual(setting.recall);
      expect(score.circulationsMatchedExactly / score.circulations).toBeGreaterThanOrEqual(
        setting.exact,
      );
    },
    120_000,
  );
});
