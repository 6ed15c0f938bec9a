import type { Db, Queryable } from '../../shared/db/db.js';
import { findEmuId } from '../emus/emu-registry.js';
import { markDaysStale } from '../records/stale-days.js';
import { undoReportDecision } from '../reports/report-decisions.js';
import { CorrectionError } from './correction-error.js';
import { MAX_REASON, type CorrectionActor } from './correction-types.js';

/**
 * Corrections: retract sightings, merge a unit into another, undo either. Each is one
 * transaction that writes its audit row (`corrections`), changes the corrections in force
 * (`retracted_observations`, `emu_merges`) and marks the service days whose records may change
 * stale (markDaysStale, cause 'correction'), so the worker rebuilds them; observations are never
 * changed. Corrections are serialised by one advisory lock, so that two operators cannot retract
 * one sighting twice or merge two units into each other at once.
 */

// Lock class of the corrections (one lock for all of them: they are rare and quick).
const CORRECTIONS_LOCK_CLASS = 0x636f72;

export interface AppliedCorrection {
  correctionId: number;
  /** Days marked stale, ascending. */
  serviceDays: number[];
}

export type RetractTarget = { observationId: number } | { source: string; ref: string };

function checkReason(reason: string): string {
  const r = reason.trim();
  if (r === '') throw new CorrectionError('invalid', 'reason', 'required: say why');
  if (r.length > MAX_REASON)
    throw new CorrectionError('invalid', 'reason', `longer than ${MAX_REASON} characters`);
  return r;
}

function checkActor(actor: CorrectionActor): void {
  if (actor.name.trim() === '') throw new CorrectionError('invalid', 'actor', 'required');
}

export async function lockCorrections(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [CORRECTIONS_LOCK_CLASS]);
}

export async function insertCorrection(
  tx: Queryable,
  row: {
    kind: 'retract' | 'merge-emu' | 'undo';
    reason: string;
    actor: CorrectionActor;
    observationIds?: number[];
    source?: string;
    ref?: string;
    fromEmuId?: number;
    intoEmuId?: number;
    undoes?: number;
  },
): Promise<number> {
  const r = await tx.query<{ id: string }>(
    `INSERT INTO corrections (kind, reason, actor_via, actor_name, actor_user_id, observation_ids,
                              source, ref, from_emu_id, into_emu_id, undoes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [
      row.kind,
      row.reason,
      row.actor.via,
      row.actor.name,
      row.actor.via === 'api' ? row.actor.userId : null,
      row.observationIds ?? null,
      row.source ?? null,
      row.ref ?? null,
      row.fromEmuId ?? null,
      row.intoEmuId ?? null,
      row.undoes ?? null,
    ],
  );
  return Number(r.rows[0]!.id);
}

/** Marks the days stale and stores them on the correction's row. */
export async function markDays(
  tx: Queryable,
  correctionId: number,
  days: number[],
): Promise<number[]> {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  await markDaysStale(tx, sorted, 'correction');
  await tx.query('UPDATE corrections SET service_days = $2 WHERE id = $1', [correctionId, sorted]);
  return sorted;
}

/**
 * The service days whose records the given sightings may count for: their stored day, and the
 * day before for those without a stated service date (a sighting after midnight may belong to
 * the train of the evening before: day-sightings.ts).
 */
export const DAYS_OF_SIGHTINGS = `
  SELECT DISTINCT d FROM observations o
   CROSS JOIN LATERAL unnest(CASE WHEN o.service_date_given THEN ARRAY[o.service_day]
                                  ELSE ARRAY[o.service_day, o.service_day - 1] END) AS d`;

/** Retracts sightings with a reason: they no longer count anywhere. */
export async function retractObservations(
  db: Db,
  target: RetractTarget,
  reason: string,
  actor: CorrectionActor,
): Promise<AppliedCorrection & { observationIds: number[] }> {
  const why = checkReason(reason);
  checkActor(actor);
  if (
    'observationId' in target &&
    (!Number.isSafeInteger(target.observationId) || target.observationId < 1)
  )
    throw new CorrectionError(
      'invalid',
      'observation',
      'expected an observation id (a positive whole number)',
    );
  if ('source' in target && (target.source.trim() === '' || target.ref.trim() === ''))
    throw new CorrectionError(
      'invalid',
      target.source.trim() === '' ? 'source' : 'ref',
      'required',
    );
  return db.transaction(async (tx) => {
    await lockCorrections(tx);
    // The sightings named, with the retraction in force on each (if any). A (source, ref) may
    // name one sighting on each of several days (duplicates are dropped within a day only).
    const found = await tx.query<{ id: string; service_day: number; retracted_by: string | null }>(
      'observationId' in target
        ? `SELECT o.id, o.service_day, r.correction_id AS retracted_by
             FROM observations o LEFT JOIN retracted_observations r ON r.observation_id = o.id
            WHERE o.id = $1`
        : `SELECT o.id, o.service_day, r.correction_id AS retracted_by
             FROM observations o LEFT JOIN retracted_observations r ON r.observation_id = o.id
            WHERE o.source = $1 AND o.ref = $2 ORDER BY o.id`,
      'observationId' in target
        ? [target.observationId]
        : [target.source.trim(), target.ref.trim()],
    );
    if (found.rows.length === 0) {
      throw 'observationId' in target
        ? new CorrectionError('not_found', 'observation', `no observation ${target.observationId}`)
        : new CorrectionError(
            'not_found',
            'ref',
            `no observation from source ${JSON.stringify(target.source)} with ref ${JSON.stringify(target.ref)}`,
          );
    }
    const open = found.rows.filter((r) => r.retracted_by === null);
    if (open.length === 0) {
      const by = [...new Set(found.rows.map((r) => r.retracted_by))].join(', ');
      throw new CorrectionError(
        'conflict',
        'observationId' in target ? 'observation' : 'ref',
        `already retracted (correction ${by}); undo that correction to restore it`,
      );
    }
    const ids = open.map((r) => Number(r.id));
    const correctionId = await insertCorrection(tx, {
      kind: 'retract',
      reason: why,
      actor,
      observationIds: ids,
      ...('source' in target ? { source: target.source.trim(), ref: target.ref.trim() } : {}),
    });
    await tx.query(
      `INSERT INTO retracted_observations (observation_id, service_day, correction_id)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[])`,
      [ids, open.map((r) => r.service_day), ids.map(() => correctionId)],
    );
    const days = await tx.query<{ d: number }>(
      `${DAYS_OF_SIGHTINGS} WHERE o.id = ANY ($1::bigint[])`,
      [ids],
    );
    const serviceDays = await markDays(
      tx,
      correctionId,
      days.rows.map((r) => r.d),
    );
    return { correctionId, serviceDays, observationIds: ids };
  });
}

/** from -> target of every merge in force. */
async function mergeTargets(tx: Queryable): Promise<Map<number, number>> {
  const r = await tx.query<{ from_emu_id: number; target_emu_id: number }>(
    'SELECT from_emu_id, target_emu_id FROM emu_merges',
  );
  return new Map(r.rows.map((m) => [m.from_emu_id, m.target_emu_id]));
}

/**
 * Sets every merge's target to the end of its chain (A into B, B into C: A's sightings count
 * for C), and returns the units whose target changed from `before`, with the targets in force
 * before and after (a unit left out of a map counts for itself).
 */
async function retarget(tx: Queryable, before: Map<number, number>): Promise<number[]> {
  await tx.query(
    `WITH RECURSIVE walk AS (
       SELECT from_emu_id, into_emu_id AS target, 1 AS depth FROM emu_merges
       UNION ALL
       SELECT w.from_emu_id, m.into_emu_id, w.depth + 1
         FROM walk w JOIN emu_merges m ON m.from_emu_id = w.target
        WHERE w.depth < 1000
     ), last AS (
       SELECT DISTINCT ON (from_emu_id) from_emu_id, target FROM walk
        ORDER BY from_emu_id, depth DESC
     )
     UPDATE emu_merges e SET target_emu_id = l.target
       FROM last l
      WHERE e.from_emu_id = l.from_emu_id AND e.target_emu_id <> l.target`,
  );
  const after = await mergeTargets(tx);
  const changed: number[] = [];
  for (const id of new Set([...before.keys(), ...after.keys()]))
    if ((before.get(id) ?? id) !== (after.get(id) ?? id)) changed.push(id);
  return changed;
}

/** Days whose records may change when the sightings of these units count for another. */
async function daysOfUnits(tx: Queryable, emuIds: number[]): Promise<number[]> {
  if (emuIds.length === 0) return [];
  // A full read of observations (there is no index by unit: it would slow every ingestion for
  // the sake of a rare correction).
  const r = await tx.query<{ d: number }>(`${DAYS_OF_SIGHTINGS} WHERE o.emu_id = ANY ($1::int[])`, [
    emuIds,
  ]);
  return r.rows.map((x) => x.d);
}

async function emuIdOf(tx: Queryable, field: string, written: string): Promise<number> {
  const code = written.trim();
  if (code === '') throw new CorrectionError('invalid', field, 'required: an EMU code');
  const id = await findEmuId(tx, code);
  if (id === undefined)
    throw new CorrectionError('not_found', field, `no EMU ${JSON.stringify(code)}`);
  return id;
}

async function codeOf(tx: Queryable, emuId: number): Promise<string> {
  const r = await tx.query<{ code: string }>('SELECT code FROM emus WHERE id = $1', [emuId]);
  return r.rows[0]?.code ?? String(emuId);
}

/**
 * Merges unit `from` (a phantom, or a duplicate) into unit `into`: from now on its sightings and
 * so its records count for `into`, and its codes find `into` in the API. Refused when either is
 * merged already (merge into the unit it was merged into), or they are the same unit.
 */
export async function mergeEmu(
  db: Db,
  from: string,
  into: string,
  reason: string,
  actor: CorrectionActor,
): Promise<AppliedCorrection & { fromEmuId: number; intoEmuId: number }> {
  const why = checkReason(reason);
  checkActor(actor);
  return db.transaction(async (tx) => {
    await lockCorrections(tx);
    const fromEmuId = await emuIdOf(tx, 'from', from);
    const intoEmuId = await emuIdOf(tx, 'into', into);
    if (fromEmuId === intoEmuId)
      throw new CorrectionError('invalid', 'into', `${from} and ${into} are the same unit`);
    const merged = await tx.query<{
      from_emu_id: number;
      into_emu_id: number;
      correction_id: string;
    }>(
      'SELECT from_emu_id, into_emu_id, correction_id FROM emu_merges WHERE from_emu_id = ANY ($1::int[])',
      [[fromEmuId, intoEmuId]],
    );
    for (const m of merged.rows) {
      const field = m.from_emu_id === fromEmuId ? 'from' : 'into';
      const target = await codeOf(tx, m.into_emu_id);
      throw new CorrectionError(
        'conflict',
        field,
        `${await codeOf(tx, m.from_emu_id)} is merged into ${target} already (correction ${m.correction_id})${field === 'into' ? `: merge into ${target}` : ''}`,
      );
    }
    const before = await mergeTargets(tx);
    const correctionId = await insertCorrection(tx, {
      kind: 'merge-emu',
      reason: why,
      actor,
      fromEmuId,
      intoEmuId,
    });
    await tx.query(
      `INSERT INTO emu_merges (from_emu_id, into_emu_id, target_emu_id, correction_id)
       VALUES ($1, $2, $2, $3)`,
      [fromEmuId, intoEmuId, correctionId],
    );
    const changed = await retarget(tx, before);
    const serviceDays = await markDays(tx, correctionId, await daysOfUnits(tx, changed));
    return { correctionId, serviceDays, fromEmuId, intoEmuId };
  });
}

/**
 * Undoes a correction: a retraction's sightings count again (a restore), a merged unit is a unit
 * of its own again. The undo is a correction of its own, with its reason; a correction is undone
 * at most once, and an undo is not undone (make the correction again instead).
 */
export async function undoCorrection(
  db: Db,
  correctionId: number,
  reason: string,
  actor: CorrectionActor,
  /** Now (ms), for an undone report decision's corroboration: tests inject it. */
  nowMs: number = Date.now(),
): Promise<AppliedCorrection & { undoes: number }> {
  const why = checkReason(reason);
  checkActor(actor);
  if (!Number.isSafeInteger(correctionId) || correctionId < 1)
    throw new CorrectionError(
      'invalid',
      'correction',
      'expected a correction id (a positive whole number)',
    );
  return db.transaction(async (tx) => {
    await lockCorrections(tx);
    const r = await tx.query<{
      kind: string;
      undone_by: string | null;
      observation_ids: string[] | null;
    }>(
      `SELECT c.kind, u.id AS undone_by, c.observation_ids::text[] AS observation_ids
         FROM corrections c LEFT JOIN corrections u ON u.undoes = c.id
        WHERE c.id = $1`,
      [correctionId],
    );
    const undone = r.rows[0];
    if (!undone)
      throw new CorrectionError('not_found', 'correction', `no correction ${correctionId}`);
    if (undone.kind === 'undo')
      throw new CorrectionError(
        'invalid',
        'correction',
        `correction ${correctionId} is an undo; make the correction it undid again instead`,
      );
    if (undone.undone_by !== null)
      throw new CorrectionError(
        'conflict',
        'correction',
        `correction ${correctionId} was undone already (correction ${undone.undone_by})`,
      );
    const id = await insertCorrection(tx, {
      kind: 'undo',
      reason: why,
      actor,
      undoes: correctionId,
    });
    let days: number[];
    if (undone.kind === 'retract') {
      await tx.query('DELETE FROM retracted_observations WHERE correction_id = $1', [correctionId]);
      const ids = (undone.observation_ids ?? []).map(Number);
      const d = await tx.query<{ d: number }>(
        `${DAYS_OF_SIGHTINGS} WHERE o.id = ANY ($1::bigint[])`,
        [ids],
      );
      days = d.rows.map((x) => x.d);
    } else if (undone.kind === 'report-accept' || undone.kind === 'report-refuse') {
      days = await undoReportDecision(tx, correctionId, id, nowMs);
    } else {
      const before = await mergeTargets(tx);
      await tx.query('DELETE FROM emu_merges WHERE correction_id = $1', [correctionId]);
      days = await daysOfUnits(tx, await retarget(tx, before));
    }
    const serviceDays = await markDays(tx, id, days);
    return { correctionId: id, serviceDays, undoes: correctionId };
  });
}
