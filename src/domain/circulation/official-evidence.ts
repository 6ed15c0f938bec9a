import type { Queryable } from '../../shared/db/db.js';

/**
 * What the sightings say about the trains around an official table's links that the inference
 * did not keep (match-official.ts): which trains units were seen running next after a train, and
 * just before it, on at least `minDays` days of the window (pairs seen on fewer days are not
 * evidence, as a link needs minSupport days to be kept). Read from the daily records, a unit's
 * runs ordered by day and first sighting; a run's next is its next run that day or the first of
 * the next day.
 */
export interface SightingEvidence {
  /** Trains seen next after `code`, with the days each was seen on. */
  next(code: string): ReadonlyMap<string, number> | undefined;
  /** Trains seen just before `code`, with the days each was seen on. */
  previous(code: string): ReadonlyMap<string, number> | undefined;
  /** Whether `code` has records in the window at all. */
  seen(code: string): boolean;
}

export const NO_EVIDENCE: SightingEvidence = {
  next: () => undefined,
  previous: () => undefined,
  seen: () => false,
};

class EvidenceMaps implements SightingEvidence {
  readonly after = new Map<string, Map<string, number>>();
  readonly before = new Map<string, Map<string, number>>();
  readonly seenCodes = new Set<string>();

  next(code: string) {
    return this.after.get(code);
  }

  previous(code: string) {
    return this.before.get(code);
  }

  seen(code: string) {
    return this.seenCodes.has(code);
  }
}

/**
 * The sighting evidence about `codes` over the service days start..end: one read of the records
 * of the units that ran any of them in the window (an index range per number).
 */
export async function readSightingEvidence(
  db: Queryable,
  window: { start: number; end: number },
  codes: readonly string[],
  minDays: number,
): Promise<SightingEvidence> {
  const evidence = new EvidenceMaps();
  if (codes.length === 0) return evidence;
  const r = await db.query<{
    direction: 'next' | 'previous';
    code: string;
    other: string;
    days: number;
  }>(
    `WITH units AS (
       SELECT DISTINCT emu_id FROM daily_records
        WHERE train_code = ANY ($3::text[]) AND service_day BETWEEN $1 AND $2
     ), runs AS (
       SELECT d.service_day, d.train_code,
              lead(d.train_code) OVER w AS next_code, lead(d.service_day) OVER w AS next_day,
              lag(d.train_code) OVER w AS previous_code, lag(d.service_day) OVER w AS previous_day
         FROM daily_records d JOIN units u ON u.emu_id = d.emu_id
        WHERE d.service_day BETWEEN $1 - 1 AND $2 + 1
       WINDOW w AS (PARTITION BY d.emu_id ORDER BY d.service_day, d.first_observed_at, d.train_code)
     ), steps AS (
       SELECT 'next' AS direction, train_code AS code, next_code AS other, service_day
         FROM runs
        WHERE train_code = ANY ($3::text[]) AND service_day BETWEEN $1 AND $2
          AND next_day <= service_day + 1 AND next_code <> train_code
       UNION ALL
       SELECT 'previous', train_code, previous_code, service_day
         FROM runs
        WHERE train_code = ANY ($3::text[]) AND service_day BETWEEN $1 AND $2
          AND previous_day >= service_day - 1 AND previous_code <> train_code
     )
     SELECT direction, code, other, count(DISTINCT service_day)::int AS days
       FROM steps GROUP BY direction, code, other
     HAVING count(DISTINCT service_day) >= $4`,
    [window.start, window.end, [...new Set(codes)], minDays],
  );
  const seen = await db.query<{ train_code: string }>(
    `SELECT DISTINCT train_code FROM daily_records
      WHERE train_code = ANY ($3::text[]) AND service_day BETWEEN $1 AND $2`,
    [window.start, window.end, [...new Set(codes)]],
  );
  for (const row of seen.rows) evidence.seenCodes.add(row.train_code);
  for (const row of r.rows) {
    const maps = row.direction === 'next' ? evidence.after : evidence.before;
    let m = maps.get(row.code);
    if (!m) maps.set(row.code, (m = new Map()));
    m.set(row.other, row.days);
  }
  return evidence;
}
