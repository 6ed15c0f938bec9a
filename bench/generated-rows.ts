import type { Db } from '../src/shared/db/db.js';

/**
 * Rows the page benchmarks generate in SQL, the same for each: `count` units CR400AF-2001..,
 * and `count` timetables G1001.. (a content hash of `tag` and the number, so that datasets
 * never share one), ids ascending with the number.
 */
export async function insertGeneratedUnits(db: Db, count: number): Promise<void> {
  await db.query(
    `INSERT INTO emus (code, model, train_set_no, registered_by)
     SELECT 'CR400AF-' || (2000 + g), 'CR400AF', (2000 + g)::text, 'fleet'
       FROM generate_series(1, $1::int) g`,
    [count],
  );
}

export async function insertGeneratedTimetables(db: Db, tag: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                             start_offset, end_offset)
     SELECT sha256(($1::text || ':' || g)::bytea), 'G' || (1000 + g), ARRAY['G' || (1000 + g)],
            'S' || (g % 700), 'S' || ((g * 7) % 700), 21600 + (g % 900) * 60, 32400 + (g % 900) * 60
       FROM generate_series(1, $2::int) g ORDER BY g`,
    [tag, count],
  );
}
