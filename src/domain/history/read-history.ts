import type { Queryable } from '../../shared/db/db.js';

/**
 * Assignment histories: the daily records of one train number or one EMU over a range of
 * service days, newest first (service day descending, then record id descending), paged by
 * keyset. Both queries are served by an index whose order is the page order
 * (daily_records_train_history, daily_records_emu_history), so a page reads limit + 1 index
 * entries however long the history and however deep the cursor; test/history/query-plans.test.ts
 * holds the plans.
 */
export interface HistoryRecord {
  id: number;
  serviceDay: number;
  emuId: number;
  trainCode: string;
  status: number;
  timetableId: number | null;
}

export interface HistoryPageOptions {
  /** First service day of the range (inclusive); absent = from the first record. */
  fromDay?: number;
  /** Last service day of the range (inclusive); absent = up to the last record. */
  toDay?: number;
  /** The previous page's last record (from the cursor); absent = first page. */
  before?: { serviceDay: number; id: number };
  limit: number;
}

const COLUMNS = 'id, service_day, emu_id, train_code, status, timetable_id';

// $1 the train or EMU, $2..$3 the day range, ($4, $5) the key to continue below, $6 rows wanted.
const RANGE_AND_KEY = `service_day BETWEEN $2 AND $3 AND (service_day, id) < ($4::int, $5::bigint)
  ORDER BY service_day DESC, id DESC LIMIT $6`;

export const TRAIN_HISTORY_SQL = `SELECT ${COLUMNS} FROM daily_records WHERE train_code = $1 AND ${RANGE_AND_KEY}`;
export const EMU_HISTORY_SQL = `SELECT ${COLUMNS} FROM daily_records WHERE emu_id = $1 AND ${RANGE_AND_KEY}`;

/**
 * EMU_HISTORY_SQL for the unit $1 was merged into (src/domain/corrections), or $1 itself: the unit
 * comes first in every row (one row of nulls besides it on an empty page), so a page costs one
 * query whether or not the unit was merged.
 */
export const MERGED_EMU_HISTORY_SQL = `SELECT m.unit, r.* FROM
  (SELECT coalesce((SELECT target_emu_id FROM emu_merges WHERE from_emu_id = $1), $1::int) AS unit) m
  LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM daily_records WHERE emu_id = m.unit AND ${RANGE_AND_KEY}) r ON true`;

// Wider than any service day an API range or cursor can name (uint32 days fit in int).
const NO_LOWER_DAY = -2_147_483_648;
const NO_UPPER_DAY = 2_147_483_647;

/** The parameters of TRAIN_HISTORY_SQL / EMU_HISTORY_SQL for one page (limit + 1 rows: is there more). */
export function historyQueryParams(key: string | number, options: HistoryPageOptions): unknown[] {
  return [
    key,
    options.fromDay ?? NO_LOWER_DAY,
    options.toDay ?? NO_UPPER_DAY,
    options.before?.serviceDay ?? NO_UPPER_DAY,
    options.before?.id ?? Number.MAX_SAFE_INTEGER,
    options.limit + 1,
  ];
}

interface Row {
  id: number;
  service_day: number;
  emu_id: number;
  train_code: string;
  status: number;
  timetable_id: number | null;
}

function pageOf(
  found: readonly Row[],
  options: HistoryPageOptions,
): { records: HistoryRecord[]; more: boolean } {
  const more = found.length > options.limit;
  const rows = more ? found.slice(0, options.limit) : found;
  return {
    more,
    records: rows.map((row) => ({
      id: Number(row.id),
      serviceDay: row.service_day,
      emuId: row.emu_id,
      trainCode: row.train_code,
      status: row.status,
      timetableId: row.timetable_id === null ? null : Number(row.timetable_id),
    })),
  };
}

async function page(
  db: Queryable,
  sql: string,
  key: string | number,
  options: HistoryPageOptions,
): Promise<{ records: HistoryRecord[]; more: boolean }> {
  const r = await db.query<Row>(sql, historyQueryParams(key, options));
  return pageOf(r.rows, options);
}

/** One page of a train number's records (the number as stored: normalised, e.g. G4337). */
export function trainHistoryPage(
  db: Queryable,
  trainCode: string,
  options: HistoryPageOptions,
): Promise<{ records: HistoryRecord[]; more: boolean }> {
  return page(db, TRAIN_HISTORY_SQL, trainCode, options);
}

/**
 * One page of the records of the unit `emuId` names: itself, or the unit a correction merged it
 * into (followMerge), found in the same query; `emuId` is the unit the page is of.
 */
export async function mergedEmuHistoryPage(
  db: Queryable,
  emuId: number,
  options: HistoryPageOptions,
): Promise<{ emuId: number; records: HistoryRecord[]; more: boolean }> {
  const r = await db.query<Row & { unit: number }>(
    MERGED_EMU_HISTORY_SQL,
    historyQueryParams(emuId, options),
  );
  const unit = r.rows[0]!.unit;
  const found = r.rows[0]!.id === null ? [] : r.rows;
  return { emuId: unit, ...pageOf(found, options) };
}
