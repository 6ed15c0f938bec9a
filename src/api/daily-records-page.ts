import type { Queryable } from '../db/db.js';

export interface DailyRecordRow {
  id: number;
  emu_id: number;
  train_code: string;
  status: number;
  timetable_id: number | null;
}

// Served by the (service_day, id DESC) index: an index range scan that stops after limit + 1 rows.
const PAGE_SQL = `SELECT id, emu_id, train_code, status, timetable_id
  FROM daily_records
 WHERE service_day = $1 AND id < $2
 ORDER BY id DESC
 LIMIT $3`;

/** Larger than any record id: "before this" means the first page. */
const FIRST_PAGE = Number.MAX_SAFE_INTEGER;

/**
 * One page of a service day's records, newest id first, and whether more follow. `beforeId` is
 * the id of the previous page's last record (from the cursor); absent = first page.
 */
export async function dailyRecordsPage(
  db: Queryable,
  serviceDay: number,
  limit: number,
  beforeId?: number,
): Promise<{ rows: DailyRecordRow[]; more: boolean }> {
  const r = await db.query<DailyRecordRow>(PAGE_SQL, [
    serviceDay,
    beforeId ?? FIRST_PAGE,
    limit + 1,
  ]);
  const more = r.rows.length > limit;
  if (more) r.rows.length = limit;
  return { rows: r.rows, more };
}
