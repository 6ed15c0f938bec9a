import type { Queryable } from '../../src/shared/db/db.js';

/**
 * The database's clock, plus `offsetMs`. What the database stamps (job runs, stale marks) is
 * compared with this, never with Date.now(): the two clocks need not agree (and do not when the
 * suite runs with its clock moved).
 */
export async function databaseNow(db: Queryable, offsetMs = 0): Promise<Date> {
  const r = await db.query<{ now: Date }>(
    'SELECT now() + make_interval(secs => $1::float8 / 1000) AS now',
    [offsetMs],
  );
  return r.rows[0]!.now;
}
