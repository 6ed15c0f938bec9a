import type { Queryable } from '../db/db.js';

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

interface Batch {
  days: Set<number>;
  done: Promise<Map<PageVersionKey, number>>;
  resolve(versions: Map<PageVersionKey, number>): void;
  reject(err: unknown): void;
}

/**
 * Reads page versions for many concurrent requests with few queries, without ever answering
 * from a read that began before the request did. A read starts at the end of the event-loop
 * turn in which a request asked (setImmediate: every request whose bytes arrived in the same
 * turn joins it), and one read at most is in flight: requests that arrive while it runs join
 * the next, which starts as soon as it ends. One small query (index lookups) serves every request
 * that waited for it; under load each query is a socket round trip and a wake-up of Postgres
 * saved for all the requests but one. So each request sees every transaction that had committed
 * when it arrived, in this process or any other, which is what makes a kept page safe to serve:
 * any API process, any number of them, and the embedded PGlite alike, with no channel between
 * processes to lose a message on.
 */
export class PageVersionReader {
  private next: Batch | undefined;
  /** A read is in flight, or one is scheduled to start at the end of this turn. */
  private running = false;

  constructor(private readonly db: Queryable) {}

  /** The current version of `key`, read by a query that began after this call. */
  async read(key: PageVersionKey): Promise<number> {
    const batch = (this.next ??= newBatch());
    if (key.startsWith('records:')) batch.days.add(Number(key.slice(8)));
    if (!this.running) {
      this.running = true;
      setImmediate(() => this.start());
    }
    const versions = await batch.done;
    return versions.get(key) ?? 0;
  }

  private start(): void {
    const batch = this.next;
    if (!batch) {
      this.running = false;
      return;
    }
    this.next = undefined;
    this.running = true;
    readVersions(this.db, [...batch.days])
      .then(batch.resolve, batch.reject)
      .finally(() => this.start());
  }
}

function newBatch(): Batch {
  let resolve!: Batch['resolve'];
  let reject!: Batch['reject'];
  const done = new Promise<Map<PageVersionKey, number>>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Each waiting request awaits it; this only keeps Node from calling a failure unhandled.
  done.catch(() => {});
  return { days: new Set(), done, resolve, reject };
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
