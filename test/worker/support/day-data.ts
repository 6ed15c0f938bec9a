import type { Db } from '../../../src/shared/db/db.js';
import { ymdOfServiceDay } from '../../../src/shared/time/service-day.js';
import { ingestSightings, sightings, type Sighting } from '../../helpers/observations.js';

export interface SeededDay {
  serviceDay: number;
  /** Records a correct build of the day has. */
  expectedRecords: number;
}

/**
 * Sightings for one service day: `trains` trains (G<n>), each run by its own EMU and seen
 * twice, the first of them also run by a second, coupled unit. So the day has trains + 1
 * records. EMU codes depend on the day, so several seeded days don't share units.
 */
export function daySightings(serviceDay: number, trains: number): Sighting[] {
  const ymd = ymdOfServiceDay(serviceDay);
  const unit = (i: number) => `CR400AF-${String(((serviceDay * 7 + i) % 9000) + 1000)}`;
  const out: Sighting[] = [];
  for (let i = 0; i < trains; i++) out.push(...sightings(ymd, `G${101 + i}`, unit(i), 2));
  out.push(...sightings(ymd, 'G101', unit(trains), 2));
  return out;
}

export async function seedDay(db: Db, serviceDay: number, trains = 20): Promise<SeededDay> {
  await ingestSightings(db, daySightings(serviceDay, trains), `day-${serviceDay}.ndjson`);
  return { serviceDay, expectedRecords: trains + 1 };
}

export interface JobRunRow {
  job: string;
  job_id: string;
  service_day: number | null;
  via: string;
  attempt: number;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  result: unknown;
  error: string | null;
}

export async function jobRuns(db: Db, job?: string, serviceDay?: number): Promise<JobRunRow[]> {
  const r = await db.query<JobRunRow>(
    `SELECT job, job_id, service_day, via, attempt, status, started_at, finished_at, result, error
       FROM job_runs
      WHERE ($1::text IS NULL OR job = $1) AND ($2::int IS NULL OR service_day = $2)
      ORDER BY id`,
    [job ?? null, serviceDay ?? null],
  );
  return r.rows;
}

export async function recordCount(db: Db, serviceDay: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM daily_records WHERE service_day = $1',
    [serviceDay],
  );
  return r.rows[0]!.n;
}

export async function storedExport(
  db: Db,
  serviceDay: number,
): Promise<{ row_count: number; sha256: string } | undefined> {
  const r = await db.query<{ row_count: number; sha256: string }>(
    'SELECT row_count, sha256 FROM daily_exports WHERE service_day = $1',
    [serviceDay],
  );
  return r.rows[0];
}
