import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/shared/db/db.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';

/** One daily record to seed: train `train` run by `emu` on `day`, first seen at `at` (HH:MM). */
export interface SeedRun {
  emu: string;
  day: number;
  train: string;
  at: string;
  /** Last sighting (HH:MM, may pass 24:00); default `at` + 30 minutes. */
  until?: string;
  timetableId?: number;
}

export const DAY0 = serviceDayFromYmd('20260901');

const minutes = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
};

/** Empties everything inference reads and writes, so that each test starts from nothing. */
export async function resetCirculationData(db: Db): Promise<void> {
  await db.query(
    `TRUNCATE official_circulation_segments, official_circulation_checks,
              official_circulation_trains, official_circulations, circulation_route_nodes,
              circulation_routes, circulation_current, circulation_runs, daily_records,
              timetable_stops, timetable_coverage, timetables CASCADE`,
  );
}

/** Writes daily records directly (registering the EMUs), as a build would have left them. */
export async function seedRuns(db: Db, runs: readonly SeedRun[]): Promise<void> {
  const codes = [...new Set(runs.map((r) => r.emu))];
  await db.query(
    `INSERT INTO emus (code, registered_by) SELECT c, 'fleet' FROM unnest($1::text[]) AS c
     ON CONFLICT (code) DO NOTHING`,
    [codes],
  );
  const ids = await db.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus WHERE code = ANY ($1::text[])',
    [codes],
  );
  const idOf = new Map(ids.rows.map((r) => [r.code, r.id]));
  const at = (r: SeedRun, hhmm: string) => midnightOfServiceDay(r.day) + minutes(hhmm) * 60;
  await db.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status, timetable_id)
     SELECT t.day, t.train, t.emu, 3, '{report}', t.first, t.last, 1, t.timetable
       FROM unnest($1::int[], $2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::int[])
         AS t(day, train, emu, first, last, timetable)`,
    [
      runs.map((r) => r.day),
      runs.map((r) => r.train),
      runs.map((r) => idOf.get(r.emu)!),
      runs.map((r) => at(r, r.at)),
      runs.map((r) => (r.until ? at(r, r.until) : at(r, r.at) + 1800)),
      runs.map((r) => r.timetableId ?? null),
    ],
  );
}

/**
 * The runs of a circulation laid out as the generator does: `days` holds the trains of each
 * cycle day in order; unit k runs cycle day (k + d) mod L on window day d. Trains of a day are
 * first seen two hours apart from 07:00.
 */
export function circulationRuns(options: {
  units: readonly string[];
  days: readonly (readonly string[])[];
  windowDays: number;
  from?: number;
}): SeedRun[] {
  const from = options.from ?? DAY0;
  const L = options.days.length;
  const runs: SeedRun[] = [];
  for (let d = 0; d < options.windowDays; d++) {
    options.units.forEach((emu, k) => {
      options.days[(k + d) % L]!.forEach((train, i) => {
        const m = 7 * 60 + i * 120;
        runs.push({
          emu,
          day: from + d,
          train,
          at: `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`,
        });
      });
    });
  }
  return runs;
}

/** A timetable row (no stops): start and end are HH:MM from the service day's midnight. */
export async function addTimetable(
  db: Db,
  allCodes: readonly string[],
  start: string,
  end: string,
): Promise<number> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                             start_offset, end_offset)
     VALUES ($1, $2, $3, 'A', 'B', $4, $5) RETURNING id`,
    [randomBytes(16), allCodes[0], allCodes, minutes(start) * 60, minutes(end) * 60],
  );
  return r.rows[0]!.id;
}
