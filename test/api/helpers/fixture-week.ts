import path from 'node:path';
import type { Db } from '../../../src/shared/db/db.js';
import { importCoachLayouts } from '../../../src/domain/emus/import-coach-layouts.js';
import { importFleet } from '../../../src/domain/emus/import-fleet.js';
import { ingestObservations } from '../../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { refreshReferenceModels } from '../../../src/domain/records/reference-models.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../../src/shared/time/service-day.js';
import { ingestTimetables } from '../../../src/domain/timetables/ingest-timetables.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures');

export const FIRST_DAY = serviceDayFromYmd('20260810');
export const LAST_DAY = serviceDayFromYmd('20260816');

/**
 * The hand-checked fixture week (fixtures/, see test/pipeline/fixture-week.test.ts): fleet and
 * coach layouts, timetables, observations, the records of 2026-08-10..16, and the reference
 * models over the 14 days ending 08-16 (as the demo leaves them).
 */
export async function loadFixtureWeek(db: Db): Promise<void> {
  await importFleet(db, path.join(FIXTURES, 'fleet.csv'));
  await importCoachLayouts(db, path.join(FIXTURES, 'coach-layouts.json'));
  await ingestTimetables(db, path.join(FIXTURES, 'timetables'));
  await ingestObservations(db, path.join(FIXTURES, 'observations'));
  for (let day = FIRST_DAY; day <= LAST_DAY; day++) await buildDailyRecords(db, day);
  await refreshReferenceModels(db, { windowEnd: LAST_DAY });
}

/** A clock (milliseconds) reading the given Shanghai time of a YYYYMMDD day. */
export function shanghaiClock(ymd: string, hh = 10, mm = 0): () => number {
  const at = (midnightOfServiceDay(serviceDayFromYmd(ymd)) + hh * 3600 + mm * 60) * 1000;
  return () => at;
}
