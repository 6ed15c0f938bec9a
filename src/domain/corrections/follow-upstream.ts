import type { Queryable } from '../../shared/db/db.js';
import {
  DAYS_OF_SIGHTINGS,
  insertCorrection,
  lockCorrections,
  markDays,
} from './apply-corrections.js';
import { MAX_REASON } from './correction-types.js';

/**
 * Corrections a source makes by itself, within the caller's transaction (the one that moves
 * the source's feed cursor): a record removed upstream retracts the sightings it brought here
 * (source + ref, one correction per record), and a record that comes back upstream takes back
 * the source's own retractions of it. An operator's retraction of the same sightings is never
 * taken back: the source only undoes what it did.
 */

export interface FollowedCorrections {
  /** Corrections made (one per ref retracted, or per retraction taken back). */
  corrections: number;
  /** The days they marked stale. */
  serviceDays: number[];
}

const reasonOf = (reason: string) => reason.slice(0, MAX_REASON);

/**
 * Retracts the sightings of source + each ref that still count, one correction per ref that has
 * any; the days marked stale.
 */
export async function retractForSource(
  tx: Queryable,
  source: string,
  refs: readonly string[],
  reason: (ref: string) => string,
): Promise<FollowedCorrections> {
  if (refs.length === 0) return { corrections: 0, serviceDays: [] };
  await lockCorrections(tx);
  const open = await tx.query<{ id: string; service_day: number; ref: string }>(
    `SELECT o.id, o.service_day, o.ref FROM observations o
      WHERE o.source = $1 AND o.ref = ANY ($2::text[])
        AND NOT EXISTS (SELECT 1 FROM retracted_observations r WHERE r.observation_id = o.id)
      ORDER BY o.id`,
    [source, refs],
  );
  const byRef = new Map<string, { id: string; service_day: number }[]>();
  for (const r of open.rows) byRef.set(r.ref, [...(byRef.get(r.ref) ?? []), r]);
  const days: number[] = [];
  for (const [ref, rows] of byRef)
    days.push(...(await retractRows(tx, source, ref, rows, reason(ref))));
  return { corrections: byRef.size, serviceDays: days };
}

async function retractRows(
  tx: Queryable,
  source: string,
  ref: string,
  rows: readonly { id: string; service_day: number }[],
  reason: string,
): Promise<number[]> {
  const ids = rows.map((r) => Number(r.id));
  const correctionId = await insertCorrection(tx, {
    kind: 'retract',
    reason: reasonOf(reason),
    actor: { via: 'source', name: source },
    observationIds: ids,
    source,
    ref,
  });
  await tx.query(
    `INSERT INTO retracted_observations (observation_id, service_day, correction_id)
     SELECT o, d, $3 FROM unnest($1::bigint[], $2::int[]) AS u (o, d)`,
    [ids, rows.map((r) => r.service_day), correctionId],
  );
  const days = await tx.query<{ d: number }>(
    `${DAYS_OF_SIGHTINGS} WHERE o.id = ANY ($1::bigint[])`,
    [ids],
  );
  return markDays(
    tx,
    correctionId,
    days.rows.map((r) => r.d),
  );
}

/** Undoes the source's own retractions of source + each ref still in force; the days marked stale. */
export async function restoreForSource(
  tx: Queryable,
  source: string,
  refs: readonly string[],
  reason: (ref: string) => string,
): Promise<FollowedCorrections> {
  if (refs.length === 0) return { corrections: 0, serviceDays: [] };
  // Most records were never retracted: one look for the page, the lock only when there is work.
  const done = await tx.query<{ id: string; ref: string; observation_ids: string[] }>(
    `SELECT c.id, c.ref, c.observation_ids::text[] AS observation_ids FROM corrections c
      WHERE c.actor_via = 'source' AND c.actor_name = $1 AND c.source = $1
        AND c.ref = ANY ($2::text[]) AND c.kind = 'retract'
        AND NOT EXISTS (SELECT 1 FROM corrections u WHERE u.undoes = c.id)
      ORDER BY c.id`,
    [source, refs],
  );
  if (done.rows.length === 0) return { corrections: 0, serviceDays: [] };
  await lockCorrections(tx);
  const days: number[] = [];
  for (const c of done.rows) {
    const undo = await insertCorrection(tx, {
      kind: 'undo',
      reason: reasonOf(reason(c.ref)),
      actor: { via: 'source', name: source },
      undoes: Number(c.id),
    });
    await tx.query('DELETE FROM retracted_observations WHERE correction_id = $1', [c.id]);
    const d = await tx.query<{ d: number }>(
      `${DAYS_OF_SIGHTINGS} WHERE o.id = ANY ($1::bigint[])`,
      [c.observation_ids.map(Number)],
    );
    days.push(
      ...(await markDays(
        tx,
        undo,
        d.rows.map((x) => x.d),
      )),
    );
  }
  return { corrections: done.rows.length, serviceDays: days };
}
