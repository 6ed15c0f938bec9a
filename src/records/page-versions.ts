import type { Queryable } from '../db/db.js';
import { ReadsBegunAfter } from '../db/reads-begun-after.js';

/**
 * What a rendered page depends on, by name:
 *   - `records:<serviceDay>`: the day's records (daily_record_builds.version, bumped by the
 *     build in the transaction that changes them; 0 for a day never changed since migration 011);
 *   - `exports`: the days daily_exports lists (page_versions, bumped by a row trigger);
 *   - `timetables`: timetable coverage (timetable_changes, bumped by a statement trigger).
 * Every version is written in the transaction that changes what it versions, so a reader that
 * sees the new data sees the new number, and a reader that sees the new number sees the data.
 */
export type PageVersionKey = `records:${number}` | 'exports' | 'timetables';

export function recordsVersionKey(serviceDay: number): PageVersionKey {
  return `records:${serviceDay}`;
}

/**
 * Reads page versions for many concurrent requests with few queries, without ever answering
 * from a read that began before the request did (ReadsBegunAfter, one read in flight): one
 * small query (index lookups) serves every request that waited for it; under load each query
 * is a socket round trip and a wake-up of Postgres saved for all the requests but one. So each
 * request sees every transaction that had committed when it arrived, in this process or any
 * other, which is what makes a kept page safe to serve: any API process, any number of them,
 * and the embedded PGlite alike, with no channel between processes to lose a message on.
 */
export class PageVersionReader {
  private readonly reads: ReadsBegunAfter<number, Map<PageVersionKey, number>>;

  constructor(db: Queryable) {
    this.reads = new ReadsBegunAfter((days) => readVersions(db, [...days]));
  }

  /** The current version of `key`, read by a query that began after this call. */
  async read(key: PageVersionKey): Promise<number> {
    const day = key.startsWith('records:') ? Number(key.slice(8)) : undefined;
    const versions = await this.reads.read(day);
    return versions.get(key) ?? 0;
  }
}

/** Every version named, in one statement (one snapshot). */
export async function readVersions(
  db: Queryable,
  days: readonly number[],
): Promise<Map<PageVersionKey, number>> {
  const r = await db.query<{ day: number; version: string }>(
    `SELECT service_day AS day, version FROM daily_record_builds WHERE service_day = ANY ($1::int[])
     UNION ALL SELECT -1, version FROM page_versions WHERE name = 'exports'
     UNION ALL SELECT -2, version FROM timetable_changes`,
    [days],
  );
  const versions = new Map<PageVersionKey, number>();
  for (const row of r.rows) {
    const key: PageVersionKey =
      row.day === -1 ? 'exports' : row.day === -2 ? 'timetables' : recordsVersionKey(row.day);
    versions.set(key, Number(row.version));
  }
  return versions;
}
