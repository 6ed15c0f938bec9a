import type { Db, Queryable } from '../../shared/db/db.js';
import { readDataVersions } from '../../shared/cache/data-versions.js';
import type { EmuEntry, SearchEntries, StationEntry, TrainEntry } from './search-index.js';

/**
 * What the search index is built from, and the versions it was read at:
 * - trains: every number with a timetable, routed by its latest version (a number's route is
 *   what a person recognises it by); numbers seen only in records have no route to show and
 *   are not listed;
 * - EMUs: the register with every alias it was seen written as;
 * - stations: every station a timetable stops at; its bureau is the bureau most of the trains
 *   starting there belong to (timetables carry the train's bureau, not the station's), '' when
 *   no train starts there.
 * The versions are the data versions 'timetables' (moved with every coverage change, and new
 * timetables always come with coverage) and 'emus' (migration 028).
 * Everything is read in one transaction, so the versions name exactly the rows read.
 */

export interface SearchVersions {
  timetables: number;
  emus: number;
}

/** The versions alone (one small statement): compared to decide whether to rebuild. */
export async function readSearchVersions(db: Queryable): Promise<SearchVersions> {
  const v = await readDataVersions(db, ['timetables:0', 'emus:0']);
  return { timetables: v.get('timetables:0') ?? 0, emus: v.get('emus:0') ?? 0 };
}

export function sameVersions(a: SearchVersions, b: SearchVersions): boolean {
  return a.timetables === b.timetables && a.emus === b.emus;
}

export async function readSearchEntries(
  db: Db,
): Promise<{ entries: SearchEntries; versions: SearchVersions }> {
  return db.transaction(async (tx) => {
    // One snapshot for the versions and the rows (REPEATABLE READ: set before the first read).
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const versions = await readSearchVersions(tx);
    // Columns named as the entries' fields, in their order.
    const trains = await tx.query<TrainEntry>(
      `SELECT DISTINCT ON (v.train_code) v.train_code AS code, t.all_codes AS "allCodes",
              t.start_station AS "startStation", t.end_station AS "endStation"
         FROM timetable_versions v JOIN timetables t ON t.id = v.timetable_id
        ORDER BY v.train_code, v.valid_from DESC`,
    );
    const emus = await tx.query<EmuEntry>(
      `SELECT e.code, e.model, e.train_set_no AS "trainSetNo", e.bureau,
              coalesce(nullif(e.depot, ''), e.train_depot) AS depot, e.tags,
              coalesce((SELECT array_agg(a.alias) FROM emu_aliases a WHERE a.emu_id = e.id), '{}')
                AS aliases
         FROM emus e
        ORDER BY e.code`,
    );
    const stations = await tx.query<{ name: string; bureau: string | null }>(
      `WITH names AS (SELECT DISTINCT station_name AS name FROM timetable_stops),
            bureaus AS (
              SELECT DISTINCT ON (start_station) start_station AS name, bureau_name AS bureau
                FROM timetables WHERE bureau_name <> ''
               GROUP BY start_station, bureau_name
               ORDER BY start_station, count(*) DESC, bureau_name)
       SELECT n.name, b.bureau FROM names n LEFT JOIN bureaus b USING (name) ORDER BY n.name`,
    );
    const entries: SearchEntries = {
      trains: trains.rows,
      emus: emus.rows,
      stations: stations.rows.map((r): StationEntry => ({ name: r.name, bureau: r.bureau ?? '' })),
    };
    return { entries, versions };
  });
}
