import type { Queryable } from '../../shared/db/db.js';
import type { RejectedLine } from './record-rejects.js';

/** A stored rejected line (ingest_rejects), as `emutrack rejects` shows it. */
export interface StoredReject extends RejectedLine {
  file: string;
  batchId: number;
  /** When the line was first refused (ISO, UTC). A line refused again is not stored twice. */
  firstSeenAt: string;
}

export interface RejectsQuery {
  /**
   * Only lines first refused on this Shanghai calendar day (YYYYMMDD), the day the cron and the
   * operators count in. Unset = the newest.
   */
  day?: string;
  /** At most this many, newest first (1-10,000). */
  limit: number;
}

/** Rejected lines, newest first; a file's lines in line order. */
export async function readRejects(db: Queryable, query: RejectsQuery): Promise<StoredReject[]> {
  const params: unknown[] = [query.limit];
  let where = '';
  if (query.day !== undefined) {
    params.push(`${query.day.slice(0, 4)}-${query.day.slice(4, 6)}-${query.day.slice(6, 8)}`);
    where = `WHERE (created_at AT TIME ZONE 'Asia/Shanghai')::date = $2::date`;
  }
  const r = await db.query<StoredReject>(
    `SELECT file, line, field, reason, raw, batch_id AS "batchId",
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "firstSeenAt"
       FROM (SELECT * FROM ingest_rejects ${where} ORDER BY created_at DESC, id DESC LIMIT $1) newest
      ORDER BY created_at DESC, file, line`,
    params,
  );
  return r.rows;
}

/** Rejected lines per file, the files with the newest refusals first (for `emutrack status`). */
export async function summariseRejects(
  db: Queryable,
  files: number,
): Promise<{ total: number; files: { file: string; lines: number; lastAt: string }[] }> {
  const [total, perFile] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingest_rejects'),
    db.query<{ file: string; lines: number; last_at: string }>(
      `SELECT file, count(*)::int AS lines,
              to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_at
         FROM ingest_rejects GROUP BY file ORDER BY max(created_at) DESC, file LIMIT $1`,
      [files],
    ),
  ]);
  return {
    total: total.rows[0]!.n,
    files: perFile.rows.map((r) => ({ file: r.file, lines: r.lines, lastAt: r.last_at })),
  };
}
