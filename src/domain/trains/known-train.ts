import type { Queryable } from '../../shared/db/db.js';

/**
 * Whether a train number is known at all: it has a timetable (in force or not), a daily record,
 * a place in an official circulation table or in the current inference run. Operations answer
 * 404 for a number that is none of these, and a more specific error for a known one they have
 * nothing about. `trainCode` must be normalised (G1234).
 */
export async function isKnownTrain(db: Queryable, trainCode: string): Promise<boolean> {
  const r = await db.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM timetable_coverage WHERE train_code = $1)
         OR EXISTS (SELECT 1 FROM daily_records WHERE train_code = $1)
         OR EXISTS (SELECT 1 FROM official_circulation_trains WHERE train_codes @> ARRAY[$1::text])
         OR EXISTS (SELECT 1 FROM circulation_route_nodes
                     WHERE run_id = (SELECT run_id FROM circulation_current)
                       AND train_codes @> ARRAY[$1::text]) AS known`,
    [trainCode],
  );
  return r.rows[0]?.known === true;
}
