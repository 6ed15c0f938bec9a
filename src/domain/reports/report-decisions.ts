import type { Db, Queryable } from '../../shared/db/db.js';
import { serviceDayOf } from '../../shared/time/service-day.js';
import { CorrectionError } from '../corrections/correction-error.js';
import { MAX_REASON, type CorrectionActor } from '../corrections/correction-types.js';
import { markDaysStale } from '../records/stale-days.js';
import { corroborate } from './create-report.js';
import { reportToObservation } from './report-observation.js';
import type { ReportStatus } from './report-types.js';

// The corrections' own lock (apply-corrections.ts): a decision is a correction like the others.
const CORRECTIONS_LOCK_CLASS = 0x636f72;

export interface ReportDecision {
  correctionId: number;
  reportId: number;
  status: ReportStatus;
  serviceDays: number[];
}

function checkReason(reason: string): string {
  const r = reason.trim();
  if (r === '') throw new CorrectionError('invalid', 'reason', 'required: say why');
  if (r.length > MAX_REASON)
    throw new CorrectionError('invalid', 'reason', `longer than ${MAX_REASON} characters`);
  return r;
}

/** Lifts or makes the retraction of a report's observation, for the day's records. */
async function retractObservation(tx: Queryable, observationId: number, correctionId: number) {
  await tx.query(
    `INSERT INTO retracted_observations (observation_id, service_day, correction_id)
     SELECT id, service_day, $2 FROM observations WHERE id = $1
     ON CONFLICT (observation_id) DO NOTHING`,
    [observationId, correctionId],
  );
}

async function setDays(tx: Queryable, correctionId: number, day: number): Promise<number[]> {
  const days = [day - 1, day];
  await markDaysStale(tx, days, 'correction');
  await tx.query('UPDATE corrections SET service_days = $2 WHERE id = $1', [correctionId, days]);
  return days;
}

/**
 * A moderator accepts or refuses a report: one correction in the audit trail (kind
 * report-accept or report-refuse, with the status it replaced), the report's status, and its
 * observation made, restored or retracted; the days go stale and rebuild.
 */
export async function decideReport(
  db: Db,
  reportId: number,
  decision: 'accept' | 'refuse',
  reason: string,
  actor: CorrectionActor,
  nowMs: number,
): Promise<ReportDecision> {
  const why = checkReason(reason);
  if (!Number.isSafeInteger(reportId) || reportId < 1)
    throw new CorrectionError('invalid', 'id', 'expected a report id (a positive whole number)');
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [CORRECTIONS_LOCK_CLASS]);
    const r = await tx.query<{
      status: ReportStatus;
      service_day: number;
      observation_id: string | null;
    }>(
      'SELECT status, service_day, observation_id FROM sighting_reports WHERE id = $1 FOR UPDATE',
      [reportId],
    );
    const rep = r.rows[0];
    if (!rep) throw new CorrectionError('not_found', 'id', `no report ${reportId}`);
    const to: ReportStatus = decision === 'accept' ? 'accepted' : 'refused';
    if (rep.status === to)
      throw new CorrectionError('conflict', 'id', `report ${reportId} is ${to} already`);
    const c = await tx.query<{ id: string }>(
      `INSERT INTO corrections (kind, reason, actor_via, actor_name, actor_user_id, report_id,
                                report_status_before)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        decision === 'accept' ? 'report-accept' : 'report-refuse',
        why,
        actor.via,
        actor.name,
        actor.via === 'api' ? actor.userId : null,
        reportId,
        rep.status,
      ],
    );
    const correctionId = Number(c.rows[0]!.id);
    await tx.query(
      `UPDATE sighting_reports SET status = $2, reason = $3, decided_at = now(),
              corroborated_by = CASE WHEN $2 = 'accepted' THEN 'moderator' ELSE corroborated_by END
        WHERE id = $1`,
      [reportId, to, why],
    );
    if (to === 'accepted') await reportToObservation(tx, reportId, serviceDayOf(nowMs / 1000));
    else if (rep.observation_id !== null)
      await retractObservation(tx, Number(rep.observation_id), correctionId);
    const serviceDays = await setDays(tx, correctionId, rep.service_day);
    return { correctionId, reportId, status: to, serviceDays };
  });
}

/**
 * Undoes a moderator's decision (called by undoCorrection, in its transaction and under its
 * lock): the report's status before it comes back, with its observation counting again or no
 * more; a report back to pending may be corroborated at once. Returns the days to mark stale.
 */
export async function undoReportDecision(
  tx: Queryable,
  undone: number,
  undoId: number,
  nowMs: number,
): Promise<number[]> {
  const c = await tx.query<{ report_id: string | null; report_status_before: ReportStatus | null }>(
    'SELECT report_id, report_status_before FROM corrections WHERE id = $1',
    [undone],
  );
  const row = c.rows[0];
  if (!row || row.report_id === null)
    throw new CorrectionError(
      'not_found',
      'correction',
      `the report of correction ${undone} is gone`,
    );
  const reportId = Number(row.report_id);
  const before = row.report_status_before ?? 'pending';
  const r = await tx.query<{ service_day: number; observation_id: string | null }>(
    `UPDATE sighting_reports SET status = $2, decided_at = now(),
            reason = 'decision undone (correction ' || $3 || ')',
            corroborated_by = CASE WHEN $2 = 'accepted' THEN corroborated_by ELSE NULL END
      WHERE id = $1 RETURNING service_day, observation_id`,
    [reportId, before, String(undoId)],
  );
  const rep = r.rows[0]!;
  if (before === 'accepted') await reportToObservation(tx, reportId, serviceDayOf(nowMs / 1000));
  else if (rep.observation_id !== null)
    await retractObservation(tx, Number(rep.observation_id), undoId);
  if (before === 'pending') await corroborate(tx, reportId, nowMs);
  return [rep.service_day - 1, rep.service_day];
}
