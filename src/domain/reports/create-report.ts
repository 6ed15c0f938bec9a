import type { Db, Queryable } from '../../shared/db/db.js';
import { serviceDayOf } from '../../shared/time/service-day.js';
import { findEmuId, followMerge } from '../emus/emu-registry.js';
import { readReferenceModels, referenceModelsOfTrain } from '../records/read-reference-models.js';
import { ReportError } from './report-error.js';
import { checkReportInput, type CheckedReport, type ReportInput } from './report-input.js';
import { reportToObservation, REPORTS_SOURCE } from './report-observation.js';
import {
  DEFAULT_REPORT_LIMITS,
  NEW_ACCOUNT_MS,
  type ReportLimits,
  type ReportStatus,
} from './report-types.js';

export interface Reporter {
  userId: string;
  /** The address as the limits count it (addressLimitKey: an IPv6 address by its /64). */
  address: string;
}

export interface CreatedReport {
  id: number;
  status: ReportStatus;
  reason: string | null;
  /** Whether this call made it (false: the reporter had reported the same pair already). */
  created: boolean;
}

// One lock per (day, unit) key, so that two reports of one pair cannot both miss each other.
const REPORT_PAIR_LOCK_CLASS = 0x726570;

/** Takes one place of the day's limit of `key`, or refuses: one statement, atomic. */
async function takePlace(
  tx: Queryable,
  kind: 'user' | 'address',
  key: string,
  day: number,
  limit: number,
): Promise<void> {
  const r = await tx.query(
    `INSERT INTO sighting_report_counts (kind, key, day, n) VALUES ($1, $2, $3, 1)
     ON CONFLICT (kind, key, day) DO UPDATE SET n = sighting_report_counts.n + 1
      WHERE sighting_report_counts.n < $4`,
    [kind, key, day, limit],
  );
  if (r.rowCount === 0)
    throw new ReportError(
      'limit',
      null,
      `at most ${limit} reports a day from one ${kind === 'user' ? 'account' : 'address'}; try again tomorrow`,
    );
}

/** Refuses a unit of the wrong model for the train, or one that ran another train then. */
async function checkAgainstRecords(tx: Queryable, c: CheckedReport, emuId: number | undefined) {
  const models = referenceModelsOfTrain(await readReferenceModels(tx, c.trainCodes), c.trainCodes);
  let model = c.model;
  if (emuId !== undefined) {
    const m = await tx.query<{ model: string }>('SELECT model FROM emus WHERE id = $1', [emuId]);
    if (m.rows[0]?.model) model = m.rows[0].model;
  }
  if (models.length > 0 && model !== '' && !models.some((m) => m.model === model))
    throw new ReportError(
      'invalid',
      'emuCode',
      `${c.emuCode} is a ${model}; ${c.trainCode} runs with ${models.map((m) => m.model).join(', ')}`,
    );
  if (emuId === undefined || c.observedAt === null) return;
  const target = await followMerge(tx, emuId);
  const elsewhere = await tx.query<{ train_code: string }>(
    `SELECT train_code FROM daily_records
      WHERE service_day = ANY ($1::int[]) AND emu_id = $2 AND NOT (train_code = ANY ($3::text[]))
        AND first_observed_at - 600 <= $4 AND last_observed_at + 600 >= $4
      LIMIT 1`,
    [[c.serviceDay, c.serviceDay - 1], target, c.trainCodes, c.observedAt],
  );
  if (elsewhere.rows[0])
    throw new ReportError(
      'invalid',
      'emuCode',
      `${c.emuCode} ran ${elsewhere.rows[0].train_code} at that time`,
    );
}

/** Whether an account may decide nothing by itself: banned, new, or refused more than trusted. */
async function needsModerator(
  tx: Queryable,
  userId: string,
  nowMs: number,
): Promise<string | null> {
  const r = await tx.query<{
    banned: boolean;
    created_ms: string;
    corroborated: string;
    refused: string;
  }>(
    `SELECT u.banned_at IS NOT NULL AS banned,
            (extract(epoch FROM u.created_at) * 1000)::bigint::text AS created_ms,
            coalesce(t.corroborated, 0)::text AS corroborated, coalesce(t.refused, 0)::text AS refused
       FROM users u LEFT JOIN reporter_trust t ON t.user_id = u.id WHERE u.id = $1`,
    [userId],
  );
  const u = r.rows[0];
  if (!u) throw new ReportError('not_found', null, 'no such account');
  if (u.banned) return 'waiting for a moderator: the account is banned';
  if (nowMs - Number(u.created_ms) < NEW_ACCOUNT_MS)
    return 'waiting for a moderator: the account is new';
  if (Number(u.refused) >= 2 && Number(u.refused) > Number(u.corroborated))
    return 'waiting for a moderator: more of this account’s reports were refused than corroborated';
  return null;
}

async function accept(
  tx: Queryable,
  id: number,
  by: 'sighting' | 'report',
  reason: string,
  today: number,
): Promise<void> {
  await tx.query(
    `UPDATE sighting_reports SET status = 'accepted', corroborated_by = $2, reason = $3,
                                 decided_at = now() WHERE id = $1`,
    [id, by, reason],
  );
  await reportToObservation(tx, id, today);
}

/**
 * Tries to corroborate a pending report that no moderator must decide: by another source's
 * sighting of the same train, unit and day, or by a report of an independent account (another
 * address, an account not new, not waiting for a moderator). Accepts both reports of such a pair.
 */
export async function corroborate(tx: Queryable, id: number, nowMs: number): Promise<void> {
  const today = serviceDayOf(Math.floor(nowMs / 1000));
  const r = await tx.query<{
    user_id: string;
    address: string;
    emu_code: string;
    service_day: number;
    train_codes: string[];
  }>(
    `SELECT user_id::text, address, emu_code, service_day, train_codes FROM sighting_reports
      WHERE id = $1 AND status = 'pending' AND NOT needs_moderator`,
    [id],
  );
  const rep = r.rows[0];
  if (!rep) return;
  const emuId = await findEmuId(tx, rep.emu_code);
  if (emuId !== undefined) {
    const target = await followMerge(tx, emuId);
    const seen = await tx.query<{ source: string }>(
      `SELECT o.source FROM observations o
         LEFT JOIN emu_merges m ON m.from_emu_id = o.emu_id
        WHERE o.service_day = $1 AND coalesce(m.target_emu_id, o.emu_id) = $2
          AND o.train_codes && $3::text[] AND o.source <> $4
          AND NOT EXISTS (SELECT 1 FROM retracted_observations x WHERE x.observation_id = o.id)
        LIMIT 1`,
      [rep.service_day, target, rep.train_codes, REPORTS_SOURCE],
    );
    if (seen.rows[0]) {
      await accept(tx, id, 'sighting', `corroborated by source ${seen.rows[0].source}`, today);
      return;
    }
  }
  const other = await tx.query<{ id: string }>(
    `SELECT s.id FROM sighting_reports s JOIN users u ON u.id = s.user_id
      WHERE s.service_day = $1 AND s.emu_code = $2 AND s.train_codes && $3::text[]
        AND s.user_id <> $4 AND s.address <> $5 AND s.status IN ('pending', 'accepted')
        AND NOT s.needs_moderator AND u.banned_at IS NULL
        AND u.created_at < to_timestamp($6 / 1000.0) - interval '1 millisecond' * $7
      ORDER BY s.id LIMIT 1`,
    [
      rep.service_day,
      rep.emu_code,
      rep.train_codes,
      rep.user_id,
      rep.address,
      nowMs,
      NEW_ACCOUNT_MS,
    ],
  );
  const otherId = other.rows[0] ? Number(other.rows[0].id) : undefined;
  if (otherId === undefined) return;
  await accept(tx, id, 'report', `corroborated by report ${otherId}`, today);
  const st = await tx.query<{ status: string }>(
    'SELECT status FROM sighting_reports WHERE id = $1',
    [otherId],
  );
  if (st.rows[0]?.status === 'pending')
    await accept(tx, otherId, 'report', `corroborated by report ${id}`, today);
}

/**
 * Files a report: the input rules, the daily limits (per account and per address, taken in the
 * report's transaction so a refused report gives its place back), the records' rules (model,
 * the unit elsewhere), then corroboration. Reporting the same pair twice answers the first report.
 */
export async function createReport(
  db: Db,
  reporter: Reporter,
  input: ReportInput,
  options: { nowMs: number; limits?: ReportLimits; photoRef?: string; qrText?: string },
): Promise<CreatedReport> {
  const c = checkReportInput(input, options.nowMs);
  const limits = options.limits ?? DEFAULT_REPORT_LIMITS;
  const today = serviceDayOf(Math.floor(options.nowMs / 1000));
  return db.transaction(async (tx) => {
    const same = await tx.query<{ id: string; status: ReportStatus; reason: string | null }>(
      `SELECT id, status, reason FROM sighting_reports
        WHERE user_id = $1 AND service_day = $2 AND train_code = $3 AND emu_code = $4`,
      [reporter.userId, c.serviceDay, c.trainCode, c.emuCode],
    );
    if (same.rows[0])
      return {
        id: Number(same.rows[0].id),
        status: same.rows[0].status,
        reason: same.rows[0].reason,
        created: false,
      };
    await takePlace(tx, 'user', reporter.userId, today, limits.perUser);
    await takePlace(tx, 'address', reporter.address, today, limits.perAddress);
    const emuId = await findEmuId(tx, c.emuCode);
    await checkAgainstRecords(tx, c, emuId);
    const wait = await needsModerator(tx, reporter.userId, options.nowMs);
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      REPORT_PAIR_LOCK_CLASS,
      `${c.serviceDay} ${c.emuCode}`,
    ]);
    const ins = await tx.query<{ id: string }>(
      `INSERT INTO sighting_reports (user_id, address, train_code, train_codes, emu_code, emu_id,
                                     service_day, observed_at, needs_moderator, reason, photo_ref, qr_text)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (user_id, service_day, train_code, emu_code) DO NOTHING RETURNING id`,
      [
        reporter.userId,
        reporter.address,
        c.trainCode,
        c.trainCodes,
        c.emuCode,
        emuId ?? null,
        c.serviceDay,
        c.observedAt,
        wait !== null,
        wait ?? 'waiting for corroboration by another source or another reporter',
        options.photoRef ?? null,
        options.qrText ?? null,
      ],
    );
    if (!ins.rows[0]) throw new ReportError('invalid', null, 'reported already');
    const id = Number(ins.rows[0].id);
    await corroborate(tx, id, options.nowMs);
    const now = await tx.query<{ status: ReportStatus; reason: string | null }>(
      'SELECT status, reason FROM sighting_reports WHERE id = $1',
      [id],
    );
    return { id, status: now.rows[0]!.status, reason: now.rows[0]!.reason, created: true };
  });
}
