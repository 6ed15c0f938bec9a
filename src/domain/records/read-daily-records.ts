import type { Queryable } from '../../shared/db/db.js';
import { textPageLines } from '../../shared/db/text-page.js';

/**
 * A page of a service day's records, highest id first, below a cursor's id. The API reads whole
 * days with it (dailyRecordLines: no limit) and slices pages from them (daily-record-days.ts);
 * run per page, it is the database floor the bench measures a never-served page against.
 *
 * The page comes back as one text value, a line per record, "id,emuId,status,timetableId,
 * trainCode" (timetableId empty when null; train codes are normalised at ingest, [A-Z]?[0-9]+,
 * so they hold no separator). Measured on a 200-record page, this costs node a third of what
 * 201 DataRow messages of five columns cost (about 100 µs instead of 300 µs per request) and
 * Postgres no more; node's one thread is what limits the API's throughput.
 *
 * ARRAY(subquery) keeps the subquery's order (an aggregate would need its own ORDER BY, a sort
 * that costs Postgres ~30 µs more). The subquery is served by the (service_day, id DESC) index
 * (or the primary key, for a day that holds most of the table): a range scan that stops after
 * limit + 1 rows.
 */
export const DAILY_RECORDS_PAGE_SQL = `SELECT array_to_string(ARRAY(
    SELECT concat_ws(',', id, emu_id, status, coalesce(timetable_id::text, ''), train_code)
      FROM daily_records
     WHERE service_day = $1 AND id < $2
     ORDER BY id DESC
     LIMIT $3), E'\\n') AS page`;

/** Larger than any record id: "before this" means the first page. */
const FIRST_PAGE = Number.MAX_SAFE_INTEGER;

/** The parameters of DAILY_RECORDS_PAGE_SQL for one page (limit + 1 rows: is there more). */
export function dailyRecordsPageParams(
  serviceDay: number,
  limit: number,
  beforeId?: number,
): unknown[] {
  return [serviceDay, beforeId ?? FIRST_PAGE, limit + 1];
}

/**
 * Every record of a service day as lines, highest id first: DAILY_RECORDS_PAGE_SQL with no
 * limit (LIMIT NULL), read once per version of the day by DailyRecordDays.
 */
export async function dailyRecordLines(db: Queryable, serviceDay: number): Promise<string[]> {
  const r = await db.query<{ page: string | null }>(DAILY_RECORDS_PAGE_SQL, [
    serviceDay,
    FIRST_PAGE,
    null,
  ]);
  return textPageLines(r.rows[0]?.page).lines;
}

export interface DailyRecordRow {
  id: number;
  emuId: number;
  status: number;
  timetableId: number | null;
  trainCode: string;
}

/** One line of a page (see DAILY_RECORDS_PAGE_SQL) as a record. */
export function parseRecordLine(line: string): DailyRecordRow {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = line.indexOf(',', b + 1);
  const d = line.indexOf(',', c + 1);
  return {
    id: Number(line.slice(0, a)),
    emuId: Number(line.slice(a + 1, b)),
    status: Number(line.slice(b + 1, c)),
    timetableId: d === c + 1 ? null : Number(line.slice(c + 1, d)),
    trainCode: line.slice(d + 1),
  };
}

/**
 * One page of a service day's records, highest id first, as lines (parseRecordLine reads them),
 * and whether more follow. `beforeId` is the id of the previous page's last record (from the
 * cursor); absent = first page.
 */
export async function dailyRecordsPage(
  db: Queryable,
  serviceDay: number,
  limit: number,
  beforeId?: number,
): Promise<{ lines: string[]; more: boolean }> {
  const r = await db.query<{ page: string | null }>(
    DAILY_RECORDS_PAGE_SQL,
    dailyRecordsPageParams(serviceDay, limit, beforeId),
  );
  return textPageLines(r.rows[0]?.page, limit);
}

/**
 * Whether the service day has been built (daily_record_builds): a built day with no records had
 * no train seen, an unbuilt one is not known yet. The row is written in the build's transaction,
 * with the day's records version moved (migration 028), so an answer kept under that version
 * stays true.
 */
export async function isDayBuilt(db: Queryable, serviceDay: number): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM daily_record_builds WHERE service_day = $1', [
    serviceDay,
  ]);
  return r.rows.length > 0;
}
