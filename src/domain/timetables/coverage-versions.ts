/**
 * Which timetable is in force for one train number on which service days: the versioning rule.
 *
 * Every ingested timetable declares, for each of its numbers, a version: (validFrom D, content
 * T). The declarations are kept (timetable_versions, one per number and D; a later ingestion
 * with the same D replaces the content: a correction of that version). The coverage rows are
 * derived from all of a number's declarations, sorted by D:
 *
 *   - a version is in force from its D until the next declared D (the last one stays open);
 *   - consecutive versions with the same content are one coverage row (re-publishing the same
 *     timetable with a later validFrom changes nothing; re-ingesting an identical timetable
 *     changes nothing);
 *   - a return to an earlier content is a new row pointing at the old timetableId.
 *
 * So a new version valid from D closes the open row at D and opens one. A validFrom earlier than
 * the open row's start (a correction, or an old timetable arriving late) fills the days from D
 * up to the next declared version and leaves the later versions alone; one before every other
 * declaration extends the history backwards. Because coverage is derived from the set of
 * declarations, the history does not depend on the order files arrive in; only two contents
 * declared for the same number and the same D depend on order (the later ingestion wins).
 *
 * Stored rows keep their coverageId while they describe the same content over an overlapping
 * range (closing an open row keeps its id).
 */
export interface CoverageRow {
  /** timetable_coverage.id, or null for a row not stored yet. */
  id: number | null;
  timetableId: number;
  start: number;
  /** Exclusive; null = open. */
  end: number | null;
}

export interface TimetableVersion {
  validFrom: number;
  timetableId: number;
}

/** The coverage rows (ids null) that a number's declared versions give. */
export function deriveCoverage(versions: readonly TimetableVersion[]): CoverageRow[] {
  const sorted = [...versions].sort((a, b) => a.validFrom - b.validFrom);
  const rows: CoverageRow[] = [];
  for (const v of sorted) {
    const last = rows[rows.length - 1];
    if (last?.timetableId === v.timetableId) continue;
    if (last) last.end = v.validFrom;
    rows.push({ id: null, timetableId: v.timetableId, start: v.validFrom, end: null });
  }
  return rows;
}

const overlaps = (a: CoverageRow, b: CoverageRow) =>
  (a.end === null || b.start < a.end) && (b.end === null || a.start < b.end);

/**
 * Gives derived rows the ids of the stored rows they continue: the same content over an
 * overlapping range (each stored id used once).
 */
export function keepCoverageIds(
  stored: readonly CoverageRow[],
  derived: readonly CoverageRow[],
): CoverageRow[] {
  const free = new Set(stored);
  return derived.map((d) => {
    for (const s of free) {
      if (s.timetableId === d.timetableId && overlaps(s, d)) {
        free.delete(s);
        return { ...d, id: s.id };
      }
    }
    return d;
  });
}

export interface CoverageChanges {
  /** Stored rows to delete. */
  deleted: number[];
  /** Stored rows whose values changed (their new values). */
  updated: CoverageRow[];
  /** Rows to insert (id null). */
  inserted: CoverageRow[];
}

/** What turns the stored rows `before` into `after` (whose ids come from keepCoverageIds). */
export function coverageChanges(
  before: readonly CoverageRow[],
  after: readonly CoverageRow[],
): CoverageChanges {
  const afterById = new Map<number, CoverageRow>();
  const inserted: CoverageRow[] = [];
  for (const r of after) {
    if (r.id === null) inserted.push(r);
    else afterById.set(r.id, r);
  }
  const deleted: number[] = [];
  const updated: CoverageRow[] = [];
  for (const r of before) {
    const now = afterById.get(r.id!);
    if (!now) deleted.push(r.id!);
    else if (now.timetableId !== r.timetableId || now.start !== r.start || now.end !== r.end)
      updated.push(now);
  }
  return { deleted, updated, inserted };
}

/**
 * The earliest service day on which `before` and `after` put different timetables (or one puts
 * none) in force, or undefined when they agree on every day. Both are piecewise constant with
 * steps only at row bounds, so the bounds are the only days to look at.
 */
export function firstDifferentDay(
  before: readonly CoverageRow[],
  after: readonly CoverageRow[],
): number | undefined {
  const days = new Set<number>();
  for (const r of [...before, ...after]) {
    days.add(r.start);
    if (r.end !== null) days.add(r.end);
  }
  const inForce = (rows: readonly CoverageRow[], day: number) =>
    rows.find((r) => r.start <= day && (r.end === null || day < r.end))?.timetableId;
  for (const day of [...days].sort((a, b) => a - b)) {
    if (inForce(before, day) !== inForce(after, day)) return day;
  }
  return undefined;
}
