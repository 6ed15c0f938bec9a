import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import {
  generate,
  readNdjson,
  type AssignmentLine,
  type TimetableLine,
} from '../generator/support.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

async function recordKeys(days: number[], trains: Set<string>): Promise<Set<string>> {
  const r = await t.current.db.query<{ service_day: number; train_code: string; code: string }>(
    `SELECT d.service_day, d.train_code, e.code FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = ANY ($1::int[])`,
    [days],
  );
  return new Set(
    r.rows
      .filter((x) => trains.has(x.train_code))
      .map((x) => `${x.service_day} ${x.train_code} ${x.code}`),
  );
}

describe('a generated network with its timetables', () => {
  it('builds exactly the true assignments, cross-midnight trains included, only with the timetables', async () => {
    // No dropped or misnamed sightings: every true run is seen, so the records must be the truth.
    const g = await generate({
      emus: 300,
      days: 3,
      seed: 7,
      missingRate: 0,
      wrongRate: 0,
      badRate: 0,
    });
    const days = g.manifest.perDay.map((d) => d.serviceDay);
    const timetables = await readNdjson<TimetableLine>(path.join(g.dir, 'timetables.ndjson'));
    // A unit of a coupled paired run may be seen under one of its numbers only; compare the
    // trains with one number, where every true record has sightings.
    const single = new Set(
      timetables.filter((tt) => tt.allCodes.length === 1).map((tt) => tt.trainCode),
    );
    const truth = new Set(
      (await readNdjson<AssignmentLine>(path.join(g.dir, 'truth/assignments.ndjson')))
        .filter((a) => single.has(a.trainCode))
        .map((a) => `${a.serviceDay} ${a.trainCode} ${a.emuCode}`),
    );
    const late = timetables
      .filter((tt) => Number(tt.stops.at(-1)!.arrive!.slice(0, 2)) >= 24)
      .flatMap((tt) => tt.allCodes);
    expect(late.length).toBeGreaterThan(0);
    const lateTruth = [...truth].filter((k) => late.includes(k.split(' ')[1]!));
    expect(lateTruth.length).toBeGreaterThan(0);

    await importFleet(t.current.db, path.join(g.dir, 'fleet.csv'));
    await ingestObservations(t.current.db, path.join(g.dir, 'observations'));
    for (const d of days) await buildDailyRecords(t.current.db, d);
    // Every sighting of a late train names its true unit, so each should count once for each
    // of its numbers, on the day the train left.
    const sightingsOfLate = await t.current.db.query<{ n: number }>(
      `SELECT coalesce(sum(cardinality(ARRAY(SELECT unnest(train_codes) INTERSECT SELECT unnest($1::text[])))), 0)::int AS n
         FROM observations`,
      [late],
    );
    const supportOfLate = async () =>
      (
        await t.current.db.query<{ n: number }>(
          'SELECT coalesce(sum(support), 0)::int AS n FROM daily_records WHERE train_code = ANY ($1::text[])',
          [late],
        )
      ).rows[0]!.n;
    // Without timetables, the sightings after midnight count for the next calendar day, where
    // that day's own run outvotes them, or for a day that is not built.
    const without = await recordKeys(days, single);
    expect(lateTruth.every((k) => without.has(k))).toBe(true);
    expect(await supportOfLate()).toBeLessThan(sightingsOfLate.rows[0]!.n);

    const ingested = await ingestTimetables(t.current.db, path.join(g.dir, 'timetables.ndjson'));
    expect(ingested).toMatchObject({ read: g.manifest.counts.trains, rejected: 0 });
    for (const d of days) await buildDailyRecords(t.current.db, d);
    const built = await recordKeys(days, single);
    expect([...built].filter((k) => !truth.has(k))).toEqual([]);
    expect([...truth].filter((k) => !built.has(k))).toEqual([]);
    expect(await supportOfLate()).toBe(sightingsOfLate.rows[0]!.n);
    const withoutTimetable = await t.current.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM daily_records WHERE timetable_id IS NULL',
    );
    expect(withoutTimetable.rows[0]!.n).toBe(0);
  });
});
