import type { Queryable } from '../db/db.js';

/** Why a service day's records may no longer match their inputs. */
export type StaleCause = 'late-data' | 'correction' | 'timetable';

/** One row of `stale_days` (migration 017). */
export interface StaleDay {
  serviceDay: number;
  causes: StaleCause[];
  firstMarkedAt: Date;
  lastMarkedAt: Date;
  /** Bumped by every mark (a sequence): what `clearStaleDay` compares. */
  mark: bigint;
}

/**
 * Marks service days stale, in the caller's transaction (so the mark commits exactly with the
 * sightings, correction or timetable that caused it). A day already stale keeps its first mark
 * and gains the cause; its last mark moves to now, which restarts its quiet period.
 */
export async function markDaysStale(
  q: Queryable,
  serviceDays: readonly number[],
  cause: StaleCause,
): Promise<void> {
  if (serviceDays.length === 0) return;
  const days = [...new Set(serviceDays)].sort((a, b) => a - b);
  await q.query(
    `INSERT INTO stale_days (service_day, causes)
     SELECT d, ARRAY[$2::text] FROM unnest($1::int[]) AS d
     ON CONFLICT (service_day) DO UPDATE
       SET last_marked_at = now(),
           mark = nextval('stale_day_marks'),
           causes = CASE WHEN $2::text = ANY (stale_days.causes) THEN stale_days.causes
                         ELSE stale_days.causes || $2::text END`,
    [days, cause],
  );
}

/** Every stale day, oldest first mark first. */
export async function listStaleDays(q: Queryable): Promise<StaleDay[]> {
  const r = await q.query<{
    service_day: number;
    causes: StaleCause[];
    first_marked_at: Date;
    last_marked_at: Date;
    mark: string;
  }>(
    `SELECT service_day, causes, first_marked_at, last_marked_at, mark::text AS mark
       FROM stale_days ORDER BY first_marked_at, service_day`,
  );
  return r.rows.map((row) => ({
    serviceDay: row.service_day,
    causes: row.causes,
    firstMarkedAt: new Date(row.first_marked_at),
    lastMarkedAt: new Date(row.last_marked_at),
    mark: BigInt(row.mark),
  }));
}

/** The day's current mark, or null when it is not stale: a build reads it before its inputs. */
export async function readStaleMark(q: Queryable, serviceDay: number): Promise<bigint | null> {
  const r = await q.query<{ mark: string }>(
    'SELECT mark::text AS mark FROM stale_days WHERE service_day = $1',
    [serviceDay],
  );
  return r.rows[0] ? BigInt(r.rows[0].mark) : null;
}

/**
 * Clears a day's stale mark after a build whose inputs were read after `readStaleMark` gave
 * `mark`, unless the day was marked again since (a higher mark: the build may have missed that
 * input, so the day stays stale). Runs in the build's transaction. Returns whether it cleared.
 */
export async function clearStaleDay(
  q: Queryable,
  serviceDay: number,
  mark: bigint,
): Promise<boolean> {
  const r = await q.query('DELETE FROM stale_days WHERE service_day = $1 AND mark <= $2', [
    serviceDay,
    mark.toString(),
  ]);
  return r.rowCount > 0;
}
