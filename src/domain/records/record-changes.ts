import type { Queryable } from '../../shared/db/db.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * The change feed of daily records (migration 023): every insert, update and delete of
 * `daily_records`, in commit order, read by a cursor. A change's place is (position, record id):
 * positions are taken under a row lock held to commit, so they become visible in order and a
 * cursor never skips or repeats a change (see the migration for why ids or clocks would not do).
 */
export type RecordChangeKind = 'added' | 'changed' | 'removed';

/** What wrote a change: a build, a rebuild of a stale day after late data, a correction. */
export type RecordChangeCause = 'build' | 'late-data' | 'correction' | (string & {});

/** A place in the feed: the last change a reader has seen. `START` is before the first. */
export interface ChangeCursor {
  position: bigint;
  /** The record the change is of: a statement changes a record once. */
  recordId: bigint;
}

export const START: ChangeCursor = { position: 0n, recordId: 0n };

/** The record a change left (absent for 'removed'). */
export interface ChangedRecord {
  support: number;
  sources: string[];
  firstObservedAt: number;
  lastObservedAt: number;
  status: number;
  timetableId: number | null;
}

export interface RecordChange {
  cursor: ChangeCursor;
  kind: RecordChangeKind;
  cause: RecordChangeCause;
  recordId: number;
  serviceDay: number;
  trainCode: string;
  emuId: number;
  /** The record as this change left it; null when it was removed. */
  record: ChangedRecord | null;
  changedAt: Date;
}

export interface RecordChangesPage {
  changes: RecordChange[];
  /** The cursor to read on from: the last change's, or the one asked with when none came. */
  next: ChangeCursor;
  /** Whether changes after `next` were already committed when this page was read. */
  more: boolean;
}

/** A cursor older than the feed's retention: the client must resynchronise from the daily pages. */
export class ChangeCursorExpiredError extends EmutrackError {
  constructor(
    readonly cursor: ChangeCursor,
    /** Where a client resynchronising from the daily pages now should start reading. */
    readonly head: ChangeCursor,
  ) {
    super(
      'cursor_expired',
      `cursor ${formatChangeCursor(cursor)} is older than the changes kept; read the days again from GET /api/v2/records/daily and follow the feed from cursor ${formatChangeCursor(head)}`,
    );
  }
}

/** A cursor that is not one this feed hands out. */
export class ChangeCursorInvalidError extends EmutrackError {
  constructor(text: string) {
    super(
      'invalid_cursor',
      `cursor ${JSON.stringify(text.slice(0, 64))} is not a change-feed cursor: expected "" or a nextCursor of this feed ("<position>.<record id>")`,
    );
  }
}

const CURSOR = /^(\d{1,18})\.(\d{1,18})$/;

/** `position.recordId`, or "" for the start. */
export function formatChangeCursor(cursor: ChangeCursor): string {
  return cursor.position === 0n && cursor.recordId === 0n
    ? ''
    : `${cursor.position}.${cursor.recordId}`;
}

/** Parses a cursor this feed handed out ("" is the start). Throws ChangeCursorInvalidError. */
export function parseChangeCursor(text: string): ChangeCursor {
  if (text === '') return START;
  const m = CURSOR.exec(text);
  if (!m) throw new ChangeCursorInvalidError(text);
  return { position: BigInt(m[1]!), recordId: BigInt(m[2]!) };
}

function before(a: ChangeCursor, b: ChangeCursor): boolean {
  return a.position < b.position || (a.position === b.position && a.recordId < b.recordId);
}

interface ChangeRow {
  pruned_position: string;
  pruned_record_id: string;
  head_position: string;
  head_record_id: string | null;
  position: string | null;
  kind: RecordChangeKind | null;
  cause: string;
  record_id: string;
  service_day: number;
  train_code: string;
  emu_id: number;
  support: number | null;
  sources: string[] | null;
  first_observed_at: string | null;
  last_observed_at: string | null;
  status: number | null;
  timetable_id: string | null;
  changed_at: Date;
}

/**
 * Up to `limit` changes after `after`, oldest first. One statement reads the retention bound
 * and the changes from one snapshot, so a prune running alongside cannot slip between the check
 * and the read. Throws ChangeCursorExpiredError for a cursor before the changes kept.
 */
export async function readRecordChanges(
  q: Queryable,
  after: ChangeCursor,
  limit: number,
): Promise<RecordChangesPage> {
  const r = await q.query<ChangeRow>(
    `SELECT k.pruned_position::text, k.pruned_record_id::text, k.position::text AS head_position,
            (SELECT max(record_id)::text FROM record_changes WHERE position = k.position)
              AS head_record_id,
            c.position::text, c.record_id::text, c.kind, p.cause, c.service_day, c.train_code,
            c.emu_id, c.support, c.sources, c.first_observed_at::text, c.last_observed_at::text,
            c.status, c.timetable_id::text, p.changed_at
       -- The clock is one row; LIMIT 1 says so to the planner, which otherwise takes the
       -- never-analysed table for a thousand rows, prices the join past jit_above_cost and
       -- spends most of a second compiling it.
       FROM (SELECT * FROM record_change_clock LIMIT 1) k
       LEFT JOIN LATERAL (
         SELECT * FROM record_changes
          WHERE (position, record_id) > ($1::bigint, $2::bigint)
          ORDER BY position, record_id
          LIMIT $3
       ) c ON true
       LEFT JOIN record_change_positions p ON p.position = c.position
      -- The join may come back in any order; the page's order is the cursor's.
      ORDER BY c.position, c.record_id`,
    [after.position.toString(), after.recordId.toString(), limit + 1],
  );
  const first = r.rows[0]!;
  const pruned = {
    position: BigInt(first.pruned_position),
    recordId: BigInt(first.pruned_record_id),
  };
  if (before(after, pruned)) throw new ChangeCursorExpiredError(after, headOf(first));
  const changes: RecordChange[] = [];
  for (const row of r.rows) {
    if (row.position === null || changes.length === limit) continue;
    changes.push(changeOf(row));
  }
  const more = r.rows.filter((row) => row.position !== null).length > limit;
  return { changes, next: changes.at(-1)?.cursor ?? after, more };
}

/**
 * The newest `limit` changes, newest first (what a page of the latest changes shows): read
 * backwards along the feed's key, so it costs `limit` rows whatever the feed holds.
 */
export async function readNewestRecordChanges(
  q: Queryable,
  limit: number,
): Promise<RecordChange[]> {
  const r = await q.query<ChangeRow>(
    `SELECT c.position::text, c.record_id::text, c.kind, p.cause, c.service_day, c.train_code,
            c.emu_id, c.support, c.sources, c.first_observed_at::text, c.last_observed_at::text,
            c.status, c.timetable_id::text, p.changed_at
       FROM (SELECT * FROM record_changes ORDER BY position DESC, record_id DESC LIMIT $1) c
       JOIN record_change_positions p ON p.position = c.position
      ORDER BY c.position DESC, c.record_id DESC`,
    [limit],
  );
  return r.rows.map(changeOf);
}

/** The cursor of the last change committed (START when there is none). */
export async function readChangeHead(q: Queryable): Promise<ChangeCursor> {
  const r = await q.query<{ head_position: string; head_record_id: string | null }>(
    `SELECT k.position::text AS head_position,
            (SELECT max(record_id)::text FROM record_changes WHERE position = k.position)
              AS head_record_id
       FROM record_change_clock k`,
  );
  return headOf(r.rows[0]!);
}

function headOf(row: { head_position: string; head_record_id: string | null }): ChangeCursor {
  // A position whose changes were all pruned has no rows left: any record id is past it, so the
  // largest one stands for "after all of it".
  if (row.head_position === '0') return START;
  return {
    position: BigInt(row.head_position),
    recordId:
      row.head_record_id === null ? BigInt(Number.MAX_SAFE_INTEGER) : BigInt(row.head_record_id),
  };
}

function changeOf(row: ChangeRow): RecordChange {
  const removed = row.kind === 'removed';
  return {
    cursor: { position: BigInt(row.position!), recordId: BigInt(row.record_id) },
    kind: row.kind!,
    cause: row.cause,
    recordId: Number(row.record_id),
    serviceDay: row.service_day,
    trainCode: row.train_code,
    emuId: row.emu_id,
    record: removed
      ? null
      : {
          support: row.support!,
          sources: row.sources!,
          firstObservedAt: Number(row.first_observed_at),
          lastObservedAt: Number(row.last_observed_at),
          status: row.status!,
          timetableId: row.timetable_id === null ? null : Number(row.timetable_id),
        },
    changedAt: new Date(row.changed_at),
  };
}

/**
 * Deletes the changes written more than `retentionDays` ago and moves the retention bound past
 * them (one transaction: a reader sees both or neither). Returns how many were deleted.
 */
export async function pruneRecordChanges(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  retentionDays: number,
): Promise<number> {
  return db.transaction(async (tx) => {
    const last = await tx.query<{ position: string; record_id: string }>(
      `SELECT position::text, max(record_id)::text AS record_id FROM record_changes
        WHERE position = (SELECT max(position) FROM record_change_positions
                           WHERE changed_at < now() - make_interval(days => $1))
        GROUP BY position`,
      [retentionDays],
    );
    const bound = last.rows[0];
    if (!bound) return 0;
    const deleted = await tx.query('DELETE FROM record_changes WHERE position <= $1', [
      bound.position,
    ]);
    await tx.query('DELETE FROM record_change_positions WHERE position <= $1', [bound.position]);
    await tx.query(
      `UPDATE record_change_clock SET pruned_position = $1, pruned_record_id = $2
        WHERE (pruned_position, pruned_record_id) < ($1::bigint, $2::bigint)`,
      [bound.position, bound.record_id],
    );
    return deleted.rowCount;
  });
}
