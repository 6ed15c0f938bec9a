import type { Db } from '../src/shared/db/db.js';
import { insertGeneratedTimetables, insertGeneratedUnits } from './generated-rows.js';

/**
 * The web benchmark's data (bench/suites/web.ts), generated in SQL: TRAINS numbers (G1001..),
 * one timetable each, each run on every one of DAYS days up to `lastDay` by one of EMUS units
 * in rotation; so every train has a history of DAYS records and every unit one of about
 * TRAINS x DAYS / EMUS.
 */
export const TRAINS = 6_000;
export const EMUS = 2_000;
export const DAYS = 30;

export function trainCode(k: number): string {
  return `G${1000 + k}`;
}

export function emuCode(k: number): string {
  return `CR400AF-${2000 + k}`;
}

export async function loadWebDataset(db: Db, lastDay: number): Promise<{ records: number }> {
  await insertGeneratedUnits(db, EMUS);
  await insertGeneratedTimetables(db, 'web', TRAINS);
  const inserted = await db.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status, timetable_id)
     SELECT $1::int - d, 'G' || (1000 + k), e0.id + (k * 3 + d) % $2::int, 1 + (k + d) % 3,
            '{crowd}', 0, 0, CASE WHEN (k + d) % 11 = 0 THEN 0 ELSE 1 END, t0.id + k - 1
       FROM generate_series(0, $4::int - 1) d, generate_series(1, $3::int) k,
            (SELECT min(id) AS id FROM emus) e0, (SELECT min(id) AS id FROM timetables) t0
      ORDER BY d DESC, k`,
    [lastDay, EMUS, TRAINS, DAYS],
  );
  await db.query('VACUUM ANALYZE daily_records');
  for (const table of ['emus', 'timetables']) await db.query(`ANALYZE ${table}`);
  return { records: inserted.rowCount ?? 0 };
}
