import type { Queryable } from '../../shared/db/db.js';
import { textPageLines } from '../../shared/db/text-page.js';

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
  /**
   * The record's sources (daily_records.sources: the distinct sources of the sightings that
   * made it) as a JSON array text, as Postgres wrote it: the API's items carry it as it is, and
   * only a page that shows it parses it (historySources).
   */
  sourcesJson: string;
}

/** A history record's sources. */
export function historySources(r: Pick<HistoryRecord, 'sourcesJson'>): string[] {
  return JSON.parse(r.sourcesJson) as string[];
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

// $1 the train or EMU, $2..$3 the day range, ($4, $5) the key to continue below, $6 rows wanted.
const RANGE_AND_KEY = `service_day BETWEEN $2 AND $3 AND (service_day, id) < ($4::int, $5::bigint)
  ORDER BY service_day DESC, id DESC LIMIT $6`;

/**
 * A page as one text value, a line per record: "id,serviceDay,emuId,status,timetableId,
 * trainCode,sources" (timetableId empty when null; train codes are normalised at ingest,
 * [A-Z]?[0-9]+, so they hold no separator; sources last, a JSON array, whose strings escape any
 * line break). As for records/daily (read-daily-records.ts), one value costs node
 * a fraction of what a DataRow of six columns per record costs to parse, and Postgres no more.
 * ARRAY(subquery) keeps the index's order.
 */
function pageSql(where: string): string {
  return `array_to_string(ARRAY(
    SELECT concat_ws(',', id, service_day, emu_id, status, coalesce(timetable_id::text, ''), train_code,
                     coalesce(array_to_json(sources)::text, '[]'))
      FROM daily_records WHERE ${where} AND ${RANGE_AND_KEY}), E'\\n')`;
}

export const TRAIN_HISTORY_SQL = `SELECT ${pageSql('train_code = $1')} AS page`;
export const EMU_HISTORY_SQL = `SELECT ${pageSql('emu_id = $1')} AS page`;

/**
 * EMU_HISTORY_SQL for the unit $1 was merged into (src/domain/corrections), or $1 itself, with
 * that unit: one row, so a page costs one query whether or not the unit was merged.
 */
export const MERGED_EMU_HISTORY_SQL = `SELECT m.unit, ${pageSql('emu_id = m.unit')} AS page FROM
  (SELECT coalesce((SELECT target_emu_id FROM emu_merges WHERE from_emu_id = $1), $1::int) AS unit) m`;

// Wider than any service day an API range or cursor can name (uint32 days fit in int).
const NO_LOWER_DAY = -2_147_483_648;
const NO_UPPER_DAY = 2_147_483_647;

/**
 * The parameters of TRAIN_HISTORY_SQL / EMU_HISTORY_SQL for one page (limit + 1 rows: is there
 * more), or for the whole history (`whole`: every record, LIMIT NULL).
 */
export function historyQueryParams(
  key: string | number,
  options: HistoryPageOptions | 'whole',
): unknown[] {
  const page = options === 'whole' ? undefined : options;
  return [
    key,
    page?.fromDay ?? NO_LOWER_DAY,
    page?.toDay ?? NO_UPPER_DAY,
    page?.before?.serviceDay ?? NO_UPPER_DAY,
    page?.before?.id ?? Number.MAX_SAFE_INTEGER,
    page ? page.limit + 1 : null,
  ];
}

/** One line of a page (see pageSql) as a record. */
function parseHistoryLine(line: string): HistoryRecord {
  const a = line.indexOf(',');
  const b = line.indexOf(',', a + 1);
  const c = line.indexOf(',', b + 1);
  const d = line.indexOf(',', c + 1);
  const e = line.indexOf(',', d + 1);
  const f = line.indexOf(',', e + 1);
  return {
    id: Number(line.slice(0, a)),
    serviceDay: Number(line.slice(a + 1, b)),
    emuId: Number(line.slice(b + 1, c)),
    status: Number(line.slice(c + 1, d)),
    timetableId: e === d + 1 ? null : Number(line.slice(d + 1, e)),
    trainCode: line.slice(e + 1, f),
    sourcesJson: line.slice(f + 1),
  };
}

/** The records of a page's text (limit + 1 lines at most: is there more; every line when whole). */
function pageOf(
  page: string | null,
  options: HistoryPageOptions | 'whole',
): { records: HistoryRecord[]; more: boolean } {
  const { lines, more } = textPageLines(page, options === 'whole' ? undefined : options.limit);
  return { more, records: lines.map(parseHistoryLine) };
}

/**
 * Where a page lies in a whole history (newest first, as read): records [from, to) are the ones
 * the page's query would return, found by binary search, so a page costs its own length however
 * deep the cursor; `more` whether any follow within the range.
 */
export function historyPageRange(
  whole: readonly HistoryRecord[],
  options: HistoryPageOptions,
): { from: number; to: number; more: boolean } {
  const { fromDay, toDay, before } = options;
  // Records are in descending (serviceDay, id): those after the cursor and within toDay are a
  // suffix, those from fromDay on a prefix.
  let from = 0;
  if (toDay !== undefined) from = firstIndex(whole, (r) => r.serviceDay <= toDay);
  if (before) {
    const { serviceDay, id } = before;
    const after = firstIndex(
      whole,
      (r) => r.serviceDay < serviceDay || (r.serviceDay === serviceDay && r.id < id),
    );
    from = Math.max(from, after);
  }
  const end =
    fromDay === undefined ? whole.length : firstIndex(whole, (r) => r.serviceDay < fromDay);
  const to = Math.max(from, Math.min(from + options.limit, end));
  return { from, to, more: to < end };
}

/** The first index whose record meets `test` (false up to it, true from it on). */
function firstIndex(
  records: readonly HistoryRecord[],
  test: (record: HistoryRecord) => boolean,
): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (test(records[mid]!)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * One page of a train number's records (the number as stored: normalised, e.g. G4337), or all of
 * them (`whole`, for historyPageRange).
 */
export async function trainHistoryPage(
  db: Queryable,
  trainCode: string,
  options: HistoryPageOptions | 'whole',
): Promise<{ records: HistoryRecord[]; more: boolean }> {
  const r = await db.query<{ page: string | null }>(
    TRAIN_HISTORY_SQL,
    historyQueryParams(trainCode, options),
  );
  return pageOf(r.rows[0]!.page, options);
}

/**
 * One page (or all: `whole`) of the records of the unit `emuId` names: itself, or the unit a
 * correction merged it into (followMerge), found in the same query; `emuId` is the unit the page
 * is of.
 */
export async function mergedEmuHistoryPage(
  db: Queryable,
  emuId: number,
  options: HistoryPageOptions | 'whole',
): Promise<{ emuId: number; records: HistoryRecord[]; more: boolean }> {
  const r = await db.query<{ unit: number; page: string | null }>(
    MERGED_EMU_HISTORY_SQL,
    historyQueryParams(emuId, options),
  );
  const row = r.rows[0]!;
  return { emuId: row.unit, ...pageOf(row.page, options) };
}
