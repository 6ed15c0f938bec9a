import type { Queryable } from '../../shared/db/db.js';

/**
 * On which day of a circulation each of its trains runs. A circulation lists its trains in
 * running order and says nothing of days; a train runs either on the same service day as the
 * one before it or on a later one. One rule, for official tables, inferred routes, split
 * segments and candidates alike (and the prediction's cycle), decides each step A -> B:
 *
 * 1. The timetables, when both trains have one in force: B runs on the first day on which it
 *    leaves no earlier than A arrives, counting A's times from A's own service-day midnight:
 *    A 07:00-09:00 then B 10:00 is the same day; A 21:40-25:10 then B 07:00, or A 07:00-18:00
 *    then B 07:00, is the next.
 * 2. Where a timetable is missing, what was seen, counting only what a unit running both trains
 *    every day cannot produce (such a unit runs A then B the same day AND A one day and B the
 *    next, whichever way round the circulation goes): a unit that ran A then B on day d and ran
 *    neither on d + 1 says "the same day"; a unit that ran A on d and B on d + 1, and neither B
 *    on d nor A on d + 1, says "the next day". The larger count wins; a tie is the same day.
 *    (Sighting times can be far from the timetable, as reports are sent later: they order A and
 *    B within a day, never decide the day on their own.)
 *
 * With neither, B is taken to run the same day.
 */

export interface DayStepEvidence {
  sameDay: number;
  nextDay: number;
}

/** Seconds from a service day's midnight (may pass 86,400). */
export interface OffsetSpan {
  startOffset: number;
  endOffset: number;
}

const DAY_SECONDS = 86_400;

/** Days from A's service day to B's (0 = the same day). */
export function dayStep(
  evidence: DayStepEvidence | undefined,
  from: OffsetSpan | undefined,
  to: OffsetSpan | undefined,
): number {
  if (from && to)
    return from.endOffset > to.startOffset
      ? Math.ceil((from.endOffset - to.startOffset) / DAY_SECONDS)
      : 0;
  if (evidence && evidence.sameDay + evidence.nextDay > 0)
    return evidence.nextDay > evidence.sameDay ? 1 : 0;
  return 0;
}

/** Day offsets of a sequence from its steps: the first node is day 0. */
export function dayOffsetsOf(steps: readonly number[]): number[] {
  const offsets = [0];
  for (const step of steps) offsets.push(offsets[offsets.length - 1]! + step);
  return offsets;
}

/**
 * Counts, for each consecutive pair (from -> to) of a sequence, the units whose records of
 * [firstDay, lastDay] say "the same day" or "the next day" as the rule above counts them. A
 * node is given by its numbers (any of them counts); the result is indexed like `pairs`.
 */
export async function observedDaySteps(
  db: Queryable,
  pairs: readonly { from: readonly string[]; to: readonly string[] }[],
  window: { firstDay: number; lastDay: number },
): Promise<(DayStepEvidence | undefined)[]> {
  const result: (DayStepEvidence | undefined)[] = pairs.map(() => undefined);
  const wanted = pairs.flatMap((p, i) =>
    p.from.length > 0 && p.to.length > 0 ? [{ i, from: p.from, to: p.to }] : [],
  );
  if (wanted.length === 0) return result;
  const r = await db.query<{ i: number; same_day: number; next_day: number }>(
    `WITH p AS (
       SELECT i, string_to_array(from_codes, '/') AS f, string_to_array(to_codes, '/') AS t
         FROM unnest($1::int[], $2::text[], $3::text[]) AS u(i, from_codes, to_codes)
     ), ran AS (
       -- Per pair, unit and day: ran A (first seen when), ran B (first seen when).
       SELECT p.i, r.emu_id, r.service_day,
              min(r.first_observed_at) FILTER (WHERE r.train_code = ANY (p.f)) AS a_at,
              max(r.first_observed_at) FILTER (WHERE r.train_code = ANY (p.t)) AS b_at
         FROM p
         JOIN daily_records r
           ON (r.train_code = ANY (p.f) OR r.train_code = ANY (p.t))
          AND r.service_day BETWEEN $4::int AND $5::int + 1
        GROUP BY p.i, r.emu_id, r.service_day
     )
     SELECT d.i,
            count(*) FILTER (WHERE d.a_at IS NOT NULL AND d.b_at > d.a_at
                               AND n.emu_id IS NULL)::int AS same_day,
            count(*) FILTER (WHERE d.a_at IS NOT NULL AND d.b_at IS NULL
                               AND n.b_at IS NOT NULL AND n.a_at IS NULL)::int AS next_day
       FROM ran d
       LEFT JOIN ran n ON n.i = d.i AND n.emu_id = d.emu_id AND n.service_day = d.service_day + 1
      WHERE d.service_day <= $5::int
      GROUP BY d.i`,
    [
      wanted.map((w) => w.i),
      wanted.map((w) => w.from.join('/')),
      wanted.map((w) => w.to.join('/')),
      window.firstDay,
      window.lastDay,
    ],
  );
  for (const row of r.rows)
    if (row.same_day + row.next_day > 0)
      result[row.i] = { sameDay: row.same_day, nextDay: row.next_day };
  return result;
}
