import type { Queryable } from '../../shared/db/db.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';
import type { ReportStatus, SightingReport } from './report-types.js';

/** Reports by status (all when none), oldest first for the queue, at most `limit`. */
export async function listReports(
  db: Queryable,
  options: { status?: ReportStatus; limit?: number; userId?: string; after?: number } = {},
): Promise<SightingReport[]> {
  const r = await db.query<{
    id: string;
    train_code: string;
    emu_code: string;
    service_day: number;
    observed_at: string | null;
    status: ReportStatus;
    reason: string | null;
    needs_moderator: boolean;
    corroborated_by: SightingReport['corroboratedBy'];
    user_id: string;
    username: string;
    corroborated: string | null;
    refused: string | null;
    photo_ref: string | null;
    qr_text: string | null;
    created_at: Date;
  }>(
    `SELECT s.id, s.train_code, s.emu_code, s.service_day, s.observed_at::text, s.status, s.reason,
            s.needs_moderator, s.corroborated_by, s.user_id::text, u.username,
            t.corroborated::text, t.refused::text, s.photo_ref, s.qr_text, s.created_at
       FROM sighting_reports s JOIN users u ON u.id = s.user_id
       LEFT JOIN reporter_trust t ON t.user_id = s.user_id
      WHERE ($1::text IS NULL OR s.status = $1) AND ($2::bigint IS NULL OR s.user_id = $2)
        AND s.id > $4
      ORDER BY s.id LIMIT $3`,
    [options.status ?? null, options.userId ?? null, options.limit ?? 100, options.after ?? 0],
  );
  return r.rows.map((row) => ({
    id: Number(row.id),
    trainCode: row.train_code,
    emuCode: row.emu_code,
    date: ymdOfServiceDay(row.service_day),
    serviceDay: row.service_day,
    observedAt: row.observed_at === null ? null : Number(row.observed_at),
    status: row.status,
    reason: row.reason,
    needsModerator: row.needs_moderator,
    corroboratedBy: row.corroborated_by,
    reporter: {
      userId: row.user_id,
      username: row.username,
      corroborated: Number(row.corroborated ?? 0),
      refused: Number(row.refused ?? 0),
    },
    photoRef: row.photo_ref,
    qrText: row.qr_text,
    createdAt: new Date(row.created_at),
  }));
}
