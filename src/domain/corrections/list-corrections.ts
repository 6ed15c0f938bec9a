import type { Queryable } from '../../shared/db/db.js';
import type { Correction, CorrectionKind } from './correction-types.js';

export interface ListCorrectionsOptions {
  /** At most this many, newest first. Default 50. */
  limit?: number;
  /** Only corrections with an id below this (the next page). */
  before?: number;
}

/** The audit trail, newest first: every correction with who, when, what, why, and its undo. */
export async function listCorrections(
  db: Queryable,
  options: ListCorrectionsOptions = {},
): Promise<Correction[]> {
  const limit = options.limit ?? 50;
  const r = await db.query<{
    id: string;
    kind: CorrectionKind;
    reason: string;
    actor_via: 'cli' | 'api' | 'source';
    actor_name: string;
    actor_user_id: string | null;
    created_at: Date;
    observation_ids: string[] | null;
    source: string | null;
    ref: string | null;
    from_emu_id: number | null;
    from_code: string | null;
    into_emu_id: number | null;
    into_code: string | null;
    undoes: string | null;
    report_id: string | null;
    undone_by: string | null;
    service_days: number[];
  }>(
    `SELECT c.id, c.kind, c.reason, c.actor_via, c.actor_name, c.actor_user_id::text,
            c.created_at, c.observation_ids::text[] AS observation_ids, c.source, c.ref,
            c.from_emu_id, f.code AS from_code, c.into_emu_id, i.code AS into_code,
            c.undoes, c.report_id, u.id AS undone_by, c.service_days
       FROM corrections c
       LEFT JOIN emus f ON f.id = c.from_emu_id
       LEFT JOIN emus i ON i.id = c.into_emu_id
       LEFT JOIN corrections u ON u.undoes = c.id
      WHERE $1::bigint IS NULL OR c.id < $1
      ORDER BY c.id DESC
      LIMIT $2`,
    [options.before ?? null, limit],
  );
  return r.rows.map((row) => {
    const c: Correction = {
      id: Number(row.id),
      kind: row.kind,
      reason: row.reason,
      actor:
        row.actor_via === 'api'
          ? { via: 'api', userId: row.actor_user_id ?? '', name: row.actor_name }
          : { via: row.actor_via, name: row.actor_name },
      createdAt: new Date(row.created_at),
      serviceDays: row.service_days,
    };
    if (row.observation_ids) c.observationIds = row.observation_ids.map(Number);
    if (row.source !== null) c.source = row.source;
    if (row.ref !== null) c.ref = row.ref;
    if (row.from_emu_id !== null) {
      c.fromEmuId = row.from_emu_id;
      c.fromEmuCode = row.from_code ?? '';
    }
    if (row.into_emu_id !== null) {
      c.intoEmuId = row.into_emu_id;
      c.intoEmuCode = row.into_code ?? '';
    }
    if (row.report_id !== null) c.reportId = Number(row.report_id);
    if (row.undoes !== null) c.undoes = Number(row.undoes);
    if (row.undone_by !== null) c.undoneBy = Number(row.undone_by);
    return c;
  });
}
