import { describe, expect, it } from 'vitest';
import {
  coverageChanges,
  deriveCoverage,
  firstDifferentDay,
  keepCoverageIds,
  type CoverageRow,
  type TimetableVersion,
} from '../../src/domain/timetables/coverage-versions.js';

const v = (validFrom: number, timetableId: number): TimetableVersion => ({
  validFrom,
  timetableId,
});
const brief = (rows: CoverageRow[]) => rows.map((r) => [r.timetableId, r.start, r.end]);

/** Applies declarations one at a time as ingestion does: last one wins for the same day. */
function declare(versions: TimetableVersion[]): CoverageRow[] {
  const byDay = new Map<number, number>();
  for (const x of versions) byDay.set(x.validFrom, x.timetableId);
  return deriveCoverage([...byDay].map(([validFrom, timetableId]) => ({ validFrom, timetableId })));
}

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]),
  );
}

describe('the versioning rule', () => {
  it('a new version closes the open coverage at its validFrom and opens one', () => {
    expect(brief(declare([v(10, 1)]))).toEqual([[1, 10, null]]);
    expect(brief(declare([v(10, 1), v(20, 2)]))).toEqual([
      [1, 10, 20],
      [2, 20, null],
    ]);
  });

  it('the same content again (same or later validFrom) changes nothing', () => {
    expect(brief(declare([v(10, 1), v(10, 1)]))).toEqual([[1, 10, null]]);
    expect(brief(declare([v(10, 1), v(15, 1)]))).toEqual([[1, 10, null]]);
  });

  it('a return to an earlier content is a new coverage pointing at the old timetable', () => {
    expect(brief(declare([v(10, 1), v(20, 2), v(30, 1)]))).toEqual([
      [1, 10, 20],
      [2, 20, 30],
      [1, 30, null],
    ]);
  });

  it('a validFrom earlier than the open coverage fills the days up to the next version only', () => {
    expect(brief(declare([v(10, 1), v(20, 2), v(15, 3)]))).toEqual([
      [1, 10, 15],
      [3, 15, 20],
      [2, 20, null],
    ]);
    // Before every other version: the history grows backwards.
    expect(brief(declare([v(10, 1), v(5, 4)]))).toEqual([
      [4, 5, 10],
      [1, 10, null],
    ]);
    // The same content as the version that follows: that coverage starts earlier.
    expect(brief(declare([v(10, 1), v(20, 2), v(15, 2)]))).toEqual([
      [1, 10, 15],
      [2, 15, null],
    ]);
  });

  it('two contents for the same validFrom: the later ingestion wins (a correction)', () => {
    expect(brief(declare([v(10, 1), v(20, 2), v(20, 3)]))).toEqual([
      [1, 10, 20],
      [3, 20, null],
    ]);
  });

  it('does not depend on the order versions arrive in', () => {
    const versions = [v(10, 1), v(20, 2), v(25, 1), v(30, 3), v(40, 3), v(5, 2)];
    const expected = brief(declare(versions));
    expect(expected).toEqual([
      [2, 5, 10],
      [1, 10, 20],
      [2, 20, 25],
      [1, 25, 30],
      [3, 30, null],
    ]);
    for (const order of permutations(versions)) expect(brief(declare(order))).toEqual(expected);
  });
});

describe('stored coverage rows', () => {
  const stored: CoverageRow[] = [
    { id: 7, timetableId: 1, start: 10, end: 20 },
    { id: 8, timetableId: 2, start: 20, end: null },
  ];

  it('closing the open row keeps its id; the new version is a row to insert', () => {
    const after = keepCoverageIds(stored, declare([v(10, 1), v(20, 2), v(30, 3)]));
    expect(after).toEqual([
      { id: 7, timetableId: 1, start: 10, end: 20 },
      { id: 8, timetableId: 2, start: 20, end: 30 },
      { id: null, timetableId: 3, start: 30, end: null },
    ]);
    expect(coverageChanges(stored, after)).toEqual({
      deleted: [],
      updated: [{ id: 8, timetableId: 2, start: 20, end: 30 }],
      inserted: [{ id: null, timetableId: 3, start: 30, end: null }],
    });
  });

  it('a replaced version is deleted; nothing changes for a redundant one', () => {
    const replaced = keepCoverageIds(stored, declare([v(10, 1), v(20, 3)]));
    expect(coverageChanges(stored, replaced)).toEqual({
      deleted: [8],
      updated: [],
      inserted: [{ id: null, timetableId: 3, start: 20, end: null }],
    });
    const same = keepCoverageIds(stored, declare([v(10, 1), v(20, 2), v(25, 2)]));
    expect(coverageChanges(stored, same)).toEqual({ deleted: [], updated: [], inserted: [] });
  });

  it('finds the first day whose timetable in force changed', () => {
    const after = keepCoverageIds(stored, declare([v(10, 1), v(15, 3), v(20, 2)]));
    expect(firstDifferentDay(stored, after)).toBe(15);
    expect(firstDifferentDay(stored, stored)).toBeUndefined();
    expect(firstDifferentDay([], declare([v(10, 1)]))).toBe(10);
    expect(firstDifferentDay(stored, keepCoverageIds(stored, declare([v(5, 1), v(20, 2)])))).toBe(
      5,
    );
  });
});
