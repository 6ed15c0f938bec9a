import type { Queryable } from '../../shared/db/db.js';

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
  await q.query(markSelectedSql('SELECT DISTINCT unnest($2::int[]) ORDER BY 1'), [
    cause,
    serviceDays,
  ]);
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

/**
 * The upsert every mark goes through: the days chosen by `daysSql` (a SELECT of one int column,
 * its parameters from $2 on) marked with cause $1; one statement.
 */
function markSelectedSql(daysSql: string): string {
  return `INSERT INTO stale_days (service_day, causes)
     SELECT d, ARRAY[$1::text] FROM (${daysSql}) AS chosen(d)
     ON CONFLICT (service_day) DO UPDATE
       SET last_marked_at = now(),
           mark = nextval('stale_day_marks'),
           causes = CASE WHEN $1::text = ANY (stale_days.causes) THEN stale_days.causes
                         ELSE stale_days.causes || $1::text END`;
}

/**
 * Marks the days whose records new sightings of `sightingDays` may change, in the caller's
 * transaction (the ingest writer's, per chunk), in one statement:
 *   - a sighting's own day D, when D has been built or is over (D < `today`): today's records
 *     are built by the nightly run when the day ends, so marking it would only rebuild a day
 *     still filling up, minute after minute;
 *   - the day before, D-1, when it has been built: a sighting in the first hours of D may be a
 *     cross-midnight train of D-1 (day-sightings.ts), which D-1's build counts.
 * A day before any build (a backfill of last year, say) is built and exported once it is quiet.
 * Returns how many days were marked.
 */
export async function markSightingDaysStale(
  q: Queryable,
  sightingDays: readonly number[],
  today: number,
  cause: StaleCause = 'late-data',
): Promise<number> {
  if (sightingDays.length === 0) return 0;
  const r = await q.query(
    markSelectedSql(
      `SELECT DISTINCT c.d FROM unnest($2::int[]) AS s(d)
         CROSS JOIN LATERAL (VALUES (s.d, s.d < $3), (s.d - 1, false)) AS c(d, over)
        WHERE c.d >= 0
          AND (c.over OR EXISTS (SELECT 1 FROM daily_record_builds b WHERE b.service_day = c.d))
        ORDER BY 1`,
    ),
    [cause, sightingDays, today],
  );
  return r.rowCount;
}

/**
 * Marks every built day from `fromDay` on (the first day whose timetable in force changed, for
 * some number): their records' timetables may change. A rebuild whose timetables in force did
 * not in fact change is skipped by the build (its inputs are unchanged), so marking a day too
 * many costs one small read. In the caller's transaction; returns how many days were marked.
 */
export async function markBuiltDaysStaleFrom(
  q: Queryable,
  fromDay: number,
  cause: StaleCause = 'timetable',
): Promise<number> {
  const r = await q.query(
    markSelectedSql(
      'SELECT service_day FROM daily_record_builds WHERE service_day >= $2 ORDER BY 1',
    ),
    [cause, fromDay],
  );
  return r.rowCount;
}

/** How long stale days wait before their rebuild (ms). */
export interface StaleRebuildTiming {
  /** A day is rebuilt once it had no new mark for this long (STALE_REBUILD_DELAY_MS). */
  delayMs: number;
  /** ... or once it has been stale this long, however often marked (STALE_REBUILD_MAX_WAIT_MS). */
  maxWaitMs: number;
}

/** When a stale day is due for its rebuild: quiet for the delay, or stale for the max wait. */
export function staleDueAt(day: StaleDay, timing: StaleRebuildTiming): Date {
  return new Date(
    Math.min(
      day.lastMarkedAt.getTime() + timing.delayMs,
      day.firstMarkedAt.getTime() + timing.maxWaitMs,
    ),
  );
}

/**
 * The stale days due for their rebuild now (by the database's clock, the one the marks were
 * written with), oldest first mark first, with their causes.
 */
export async function dueStaleDays(
  q: Queryable,
  timing: StaleRebuildTiming,
): Promise<{ serviceDay: number; causes: StaleCause[] }[]> {
  const r = await q.query<{ service_day: number; causes: StaleCause[] }>(
    `SELECT service_day, causes FROM stale_days
      WHERE last_marked_at <= now() - make_interval(secs => $1::float8 / 1000)
         OR first_marked_at <= now() - make_interval(secs => $2::float8 / 1000)
      ORDER BY first_marked_at, service_day`,
    [timing.delayMs, timing.maxWaitMs],
  );
  return r.rows.map((row) => ({ serviceDay: row.service_day, causes: row.causes }));
}

/** What a build of a stale day tells the change feed (build-daily-records.ts `cause`). */
export function staleRebuildCause(causes: readonly StaleCause[]): 'correction' | 'late-data' {
  return causes.includes('correction') ? 'correction' : 'late-data';
}

/** The stale days' count and the age of the oldest (seconds, by the database's clock). */
export async function staleDaysSummary(
  q: Queryable,
): Promise<{ count: number; oldestAgeSeconds: number }> {
  const r = await q.query<{ n: number; age: number | null }>(
    `SELECT count(*)::int AS n,
            extract(epoch FROM now() - min(first_marked_at))::float8 AS age
       FROM stale_days`,
  );
  const row = r.rows[0]!;
  return { count: row.n, oldestAgeSeconds: Math.max(0, row.age ?? 0) };
}

/** Why a day is stale (its causes), or null when it is not. */
export async function readStaleCauses(
  q: Queryable,
  serviceDay: number,
): Promise<StaleCause[] | null> {
  const r = await q.query<{ causes: StaleCause[] }>(
    'SELECT causes FROM stale_days WHERE service_day = $1',
    [serviceDay],
  );
  return r.rows[0]?.causes ?? null;
}
