import type { Queryable } from '../db/db.js';
import { ReadsBegunAfter } from '../db/reads-begun-after.js';

/**
 * What is versioned (migration 028, data_versions): the name, and a key where one name has many
 * (the service day of `records`; 0 elsewhere).
 *   - `records`: a day's records, moved by a build that changes them;
 *   - `exports`: the days daily_exports lists;
 *   - `timetables`: timetable coverage;
 *   - `reference_models`: trains' reference models;
 *   - `emus`: the EMU register;
 *   - `site_content`: the documentation site's content;
 *   - `histories`: every train's and EMU's history (migration 029): any day's records, merges;
 *   - `circulations`: the current inference run, the official tables and their checks
 *     (migration 031).
 */
export type DataVersionName =
  | 'records'
  | 'exports'
  | 'timetables'
  | 'reference_models'
  | 'emus'
  | 'site_content'
  | 'histories'
  | 'circulations';

export interface DataVersionRef {
  name: DataVersionName;
  key?: number;
}

/** The text form of a reference (`records:20260801`-like, with the day number; `exports:0`). */
export function dataVersionTag(ref: DataVersionRef): string {
  return `${ref.name}:${ref.key ?? 0}`;
}

export const recordsVersion = (serviceDay: number): DataVersionRef => ({
  name: 'records',
  key: serviceDay,
});

export const HISTORIES_VERSION: DataVersionRef = { name: 'histories' };
export const CIRCULATIONS_VERSION: DataVersionRef = { name: 'circulations' };

export interface DataVersionReaderOptions {
  /**
   * Reads in flight at once (each begun after every request it answers arrived); requests
   * arriving while all are busy share the next one. Default 4: requests of one event-loop turn
   * share a read anyway, and with 4 a request seldom waits for a read begun before it to end
   * (the site under the bench's load: 0.38 queries per request with 4, 0.49 with 1).
   */
  maxConcurrentReads?: number;
}

/**
 * The one reader of data versions, for many concurrent requests with few queries: the reads
 * asked for in one event-loop turn share one query (ReadsBegunAfter), and no request is answered
 * from a query that began before it asked. So a request sees every transaction that had
 * committed when it arrived, in this process or any other, with no channel between processes
 * to lose a message on: what makes an answer kept under a version safe to serve.
 */
export class DataVersionReader {
  private readonly reads: ReadsBegunAfter<string, Map<string, number>>;

  constructor(db: Queryable, options: DataVersionReaderOptions = {}) {
    this.reads = new ReadsBegunAfter(
      (tags) => readDataVersions(db, [...tags]),
      Math.max(1, options.maxConcurrentReads ?? 4),
    );
  }

  /** The current version of `ref`, read by a query begun after this call (0: never changed). */
  async read(ref: DataVersionRef): Promise<number> {
    const tag = dataVersionTag(ref);
    const versions = await this.reads.read(tag);
    return versions.get(tag) ?? 0;
  }
}

/**
 * The versions of `tags` (dataVersionTag), in one statement (one snapshot); absent ones are 0.
 * The pairs are written into the statement as literals (names from DataVersionName, keys whole
 * numbers: both checked), so it goes as one simple-protocol message: with parameters, the
 * extended protocol's parse and bind took 2-3 times as long per read, and this read is on every
 * cached request's path.
 */
export async function readDataVersions(
  db: Queryable,
  tags: readonly string[],
): Promise<Map<string, number>> {
  const pairs = tags.map((tag) => {
    const at = tag.lastIndexOf(':');
    const name = tag.slice(0, at);
    const key = Number(tag.slice(at + 1));
    if (!/^[a-z_]+$/.test(name) || !Number.isSafeInteger(key))
      throw new Error(`not a data version: ${JSON.stringify(tag)}`);
    return `('${name}', ${key})`;
  });
  const r = await db.query<{ name: string; key: string; version: string }>(
    `SELECT name, key, version FROM data_versions WHERE (name, key) IN (${pairs.join(', ')})`,
  );
  const versions = new Map<string, number>();
  for (const row of r.rows) versions.set(`${row.name}:${row.key}`, Number(row.version));
  return versions;
}

/** One version read directly (no coalescing): for a caller outside a request's path. */
export async function readDataVersion(db: Queryable, ref: DataVersionRef): Promise<number> {
  const tag = dataVersionTag(ref);
  return (await readDataVersions(db, [tag])).get(tag) ?? 0;
}
