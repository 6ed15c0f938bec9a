import type { Queryable } from '../db/db.js';
import { ReadsBegunAfter } from '../db/reads-begun-after.js';
import type { PageVersionFeed } from './page-version-feed.js';

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
 *
 * With a feed (page-version-feed.ts: Postgres), a version the feed trusts is used without a
 * read at all, which is just as exact (the writers announce their changes before they commit);
 * every read also teaches the feed.
 */
export class PageVersionReader {
  private readonly reads: ReadsBegunAfter<number, Map<PageVersionKey, number>>;

  constructor(
    db: Queryable,
    private readonly feed?: PageVersionFeed,
  ) {
    this.reads = new ReadsBegunAfter((days) => readVersions(db, [...days]));
  }

  /** The current version of `key`: trusted by the feed, or read by a query begun after this call. */
  async read(key: PageVersionKey): Promise<number> {
    const trusted = this.feed?.trusted(key);
    if (trusted !== undefined) return trusted;
    const token = this.feed?.readToken();
    const day = key.startsWith('records:') ? Number(key.slice(8)) : undefined;
    const versions = await this.reads.read(day);
    const version = versions.get(key) ?? 0;
    this.feed?.learn(key, version, token);
    return version;
  }

  /** The current version of `key` if the feed trusts one now (no read), else undefined. */
  trusted(key: PageVersionKey): number | undefined {
    return this.feed?.trusted(key);
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
