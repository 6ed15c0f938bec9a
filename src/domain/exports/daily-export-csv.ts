import type { Db, Queryable } from '../../shared/db/db.js';
import {
  assertServiceDay,
  serviceDayOf,
  yearMonthOfServiceDay,
} from '../../shared/time/service-day.js';
import { ExportRefusedError } from './export-refused-error.js';
import { clockTimeSql } from '../timetables/timetable-time.js';
import { ExportStorageFullError, isStorageFull } from './export-storage-error.js';

/**
 * The live service's daily CSV (compatibility.md): UTF-8 with a byte-order mark, header
 * `trainCode,emuCode,startStation,endStation,startTime,endTime`, rows joined by "\n" (no
 * newline after the last row), one row per daily record.
 *
 * Row order, stable across renders: train prefix (letters, alphabetical: C, D, G, ...), then
 * train number numerically (G2 before G10), then canonical EMU code; so a coupled train's two
 * units are adjacent. The station and time columns come from the record's timetable (the one in
 * force for its train number on the day, set by the build): the origin and its departure, the
 * terminus and its arrival, as HH:MM clock times of the service day, hours counting on past 24
 * after midnight (25:10). They stay empty for a record without a timetable.
 */
export const DAILY_EXPORT_HEADER = [
  'trainCode',
  'emuCode',
  'startStation',
  'endStation',
  'startTime',
  'endTime',
];

/** The columns of the rows, from their tables, for service day $1 (in no order). */
const DAILY_EXPORT_COLUMNS_SQL = `d.train_code, e.code AS emu_code,
         coalesce(t.start_station, '') AS start_station, coalesce(t.end_station, '') AS end_station,
         coalesce(${clockTimeSql('t.start_offset')}, '') AS start_time,
         coalesce(${clockTimeSql('t.end_offset')}, '') AS end_time
    FROM daily_records d
    JOIN emus e ON e.id = d.emu_id
    LEFT JOIN timetables t ON t.id = d.timetable_id
   WHERE d.service_day = $1`;

export const DAILY_EXPORT_ROWS_SQL = `
  SELECT ${DAILY_EXPORT_COLUMNS_SQL}
   ORDER BY substring(d.train_code FROM '^[A-Z]*'), substring(d.train_code FROM '[0-9]+$')::int, e.code`;

/**
 * A field as csv-stringify writes it with "\n" records: quoted, quotes doubled, when it holds a
 * comma, a quote or a "\n" (test/exports checks the two agree).
 */
function csvFieldSql(x: string): string {
  return `CASE WHEN ${x} ~ '[",\\n]' THEN '"' || replace(${x}, '"', '""') || '"' ELSE ${x} END`;
}

const ROW_COLUMNS = [
  'train_code',
  'emu_code',
  'start_station',
  'end_station',
  'start_time',
  'end_time',
];

/**
 * The CSV body (rows joined by "\n", no header) as one text value, in the rows' order: Postgres
 * writes the lines, and the client reads one value instead of six per row. The order keys are
 * computed once per row and the rows sorted once, by the aggregate (sorting them in a subquery
 * first, then again in the aggregate, with the keys computed twice, cost a third of the
 * export's time).
 */
export const DAILY_EXPORT_BODY_SQL = `
  SELECT string_agg(concat_ws(',', ${ROW_COLUMNS.map((c) => csvFieldSql(`r.${c}`)).join(', ')}),
                    E'\\n' ORDER BY r.prefix, r.number, r.emu_code) AS body,
         count(*)::int AS row_count
    FROM (SELECT substring(d.train_code FROM '^[A-Z]*') AS prefix,
                 substring(d.train_code FROM '[0-9]+$')::int AS number,
                 ${DAILY_EXPORT_COLUMNS_SQL}) AS r`;

/**
 * The whole file of service day $1 (BOM, header, body) as bytea, with its row count and sha256:
 * rendered where the rows are, so that storing it sends no bytes back and forth.
 */
const DAILY_EXPORT_CONTENT_SQL = `
  SELECT f.content, f.row_count, encode(sha256(f.content), 'hex') AS sha256
    FROM (SELECT convert_to(chr(65279) || '${DAILY_EXPORT_HEADER.join(',')}' || coalesce(E'\\n' || b.body, ''),
                            'UTF8') AS content,
                 b.row_count
            FROM (${DAILY_EXPORT_BODY_SQL}) AS b) AS f`;

export interface RenderedExport {
  content: Buffer;
  rowCount: number;
  sha256: string;
}

/** Renders one service day's CSV from its daily records (does not store it). */
export async function dailyExportCsv(db: Queryable, serviceDay: number): Promise<RenderedExport> {
  assertServiceDay(serviceDay);
  const r = await db.query<{ content: Uint8Array; row_count: number; sha256: string }>(
    DAILY_EXPORT_CONTENT_SQL,
    [serviceDay],
  );
  const row = r.rows[0]!;
  return { content: Buffer.from(row.content), rowCount: row.row_count, sha256: row.sha256 };
}

export interface StoredExportResult {
  serviceDay: number;
  rowCount: number;
  sha256: string;
  bytes: number;
  /** False when the stored export already had these exact bytes. */
  changed: boolean;
}

export interface RenderExportOptions {
  /** Today's service day (Shanghai). Default: from the clock. */
  today?: number;
}

/**
 * Renders and stores one day's export, in one statement. Unchanged data gives byte-identical
 * content, and then only rendered_at moves: changed_at, sha256 and the bytes stay as they were.
 * Only a day that has happened (not after `today`) and has been built (daily_record_builds) is
 * exported: any other throws ExportRefusedError and writes nothing (the same statement decides,
 * so a build committed meanwhile is seen or not, never half).
 */
export async function renderDailyExport(
  db: Db,
  serviceDay: number,
  options: RenderExportOptions = {},
): Promise<StoredExportResult> {
  assertServiceDay(serviceDay);
  const today = options.today ?? serviceDayOf(Date.now() / 1000);
  if (serviceDay > today) throw new ExportRefusedError(serviceDay, 'future_day', today);
  const { year, month } = yearMonthOfServiceDay(serviceDay);
  const r = await db
    .query<{ changed: boolean; row_count: number; sha256: string; bytes: number }>(
      `WITH rendered AS (${DAILY_EXPORT_CONTENT_SQL})
     INSERT INTO daily_exports AS x (service_day, year, month, content, row_count, sha256)
     SELECT $1::int, $2::smallint, $3::smallint, r.content, r.row_count, r.sha256 FROM rendered r
      WHERE EXISTS (SELECT 1 FROM daily_record_builds b WHERE b.service_day = $1::int)
     ON CONFLICT (service_day) DO UPDATE
        SET content = CASE WHEN x.sha256 = EXCLUDED.sha256 THEN x.content ELSE EXCLUDED.content END,
            row_count = EXCLUDED.row_count,
            changed_at = CASE WHEN x.sha256 = EXCLUDED.sha256 THEN x.changed_at ELSE now() END,
            sha256 = EXCLUDED.sha256,
            rendered_at = now()
     RETURNING (xmax = 0 OR changed_at = rendered_at) AS changed, row_count, sha256,
               octet_length(content) AS bytes`,
      [serviceDay, year, month],
    )
    .catch((err: unknown) => {
      throw isStorageFull(err) ? new ExportStorageFullError(serviceDay, err) : err;
    });
  const row = r.rows[0];
  if (!row) throw new ExportRefusedError(serviceDay, 'not_built', today);
  return {
    serviceDay,
    rowCount: row.row_count,
    sha256: row.sha256,
    bytes: row.bytes,
    changed: row.changed,
  };
}

/**
 * Which stored exports are a day's export (of `daily_exports x`): a built day's. One stored for
 * a day never built (by a version before exports were refused for such days) is neither listed
 * nor served.
 */
const BUILT_DAY =
  'EXISTS (SELECT 1 FROM daily_record_builds b WHERE b.service_day = x.service_day)';

/** What is known of a stored export without its bytes (getDailyExportHead). */
export interface StoredExportHead {
  serviceDay: number;
  rowCount: number;
  sha256: string;
  changedAt: Date;
}

export interface StoredExport extends StoredExportHead {
  content: Buffer;
}

interface StoredExportRow {
  row_count: number;
  sha256: string;
  changed_at: Date;
}

function headOf(serviceDay: number, row: StoredExportRow): StoredExportHead {
  return { serviceDay, rowCount: row.row_count, sha256: row.sha256, changedAt: row.changed_at };
}

/** The export of a built day, undefined when there is none. */
export async function getDailyExport(
  db: Queryable,
  serviceDay: number,
): Promise<StoredExport | undefined> {
  const r = await db.query<StoredExportRow & { content: Uint8Array }>(
    `SELECT content, row_count, sha256, changed_at FROM daily_exports x
      WHERE service_day = $1 AND ${BUILT_DAY}`,
    [serviceDay],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  // A view of the bytes read (pg gives a Buffer, PGlite a Uint8Array): not a copy of a file.
  const { buffer, byteOffset, byteLength } = row.content;
  return { ...headOf(serviceDay, row), content: Buffer.from(buffer, byteOffset, byteLength) };
}

/** getDailyExport without the bytes (what a conditional request is answered from). */
export async function getDailyExportHead(
  db: Queryable,
  serviceDay: number,
): Promise<StoredExportHead | undefined> {
  const r = await db.query<StoredExportRow>(
    `SELECT row_count, sha256, changed_at FROM daily_exports x
      WHERE service_day = $1 AND ${BUILT_DAY}`,
    [serviceDay],
  );
  const row = r.rows[0];
  return row ? headOf(serviceDay, row) : undefined;
}

/** Years and months that have exports, and the days of one month: the export index. */
export async function dailyExportIndex(
  db: Queryable,
  year?: number,
  month?: number,
): Promise<{
  selectedYear: number;
  selectedMonth: number;
  availableYears: number[];
  availableMonths: number[];
  serviceDays: number[];
}> {
  const listed = `daily_exports x WHERE ${BUILT_DAY}`;
  if (year === undefined || month === undefined) {
    const latest = await db.query<{ year: number; month: number }>(
      `SELECT year, month FROM ${listed} ORDER BY year DESC, month DESC LIMIT 1`,
    );
    year = latest.rows[0]?.year ?? 0;
    month = latest.rows[0]?.month ?? 0;
  }
  const years = await db.query<{ year: number }>(
    `SELECT DISTINCT year FROM ${listed} ORDER BY year`,
  );
  const months = await db.query<{ month: number }>(
    `SELECT DISTINCT month FROM ${listed} AND year = $1 ORDER BY month`,
    [year],
  );
  const days = await db.query<{ service_day: number }>(
    `SELECT service_day FROM ${listed} AND year = $1 AND month = $2 ORDER BY service_day`,
    [year, month],
  );
  return {
    selectedYear: year,
    selectedMonth: month,
    availableYears: years.rows.map((r) => r.year),
    availableMonths: months.rows.map((r) => r.month),
    serviceDays: days.rows.map((r) => r.service_day),
  };
}
