import type { Queryable } from '../db/db.js';

/**
 * On which day of a circulation each of its trains runs. A circulation lists its trains in
 * running order and says nothing of days; a train runs either on the same service day as the
 * one before it or on a later one. Two sources decide, in this order:
 *
 * 1. What was seen: units that ran A and then B on the same service day (B first seen after A),
 *    against units that ran A on one day and B on the next. The larger count wins; a tie is the
 *    same day. Every inferred link was seen this way (that is how it was found).
 * 2. The timetables, when nothing was seen (official tables, deadheads, new trains): B runs on
 *    the first day on which it leaves no earlier than A arrives, counting A's times from its own
 *    midnight: A 07:00-09:00 then B 10:00 is the same day; A 21:40-25:10 then B 07:00, or A
 *    07:00-18:00 then B 07:00, is the next.
 *
 * Without either (no sightings, a timetable missing on one side) B is taken to run the same day.
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
  if (evidence && evidence.sameDay + evidence.nextDay > 0)
    return evidence.nextDay > evidence.sameDay ? 1 : 0;
  if (from && to && from.endOffset > to.startOffset)
    return Math.ceil((from.endOffset - to.startOffset) / DAY_SECONDS);
  return 0;
}

/** Day offsets of a sequence from its steps: the first node is day 0. */
export function dayOffsetsOf(steps: readonly number[]): number[] {
  const offsets = [0];
  for (const step of steps) offsets.push(offsets[offsets.length - 1]! + step);
  return offsets;
}

/**
 * Counts, for each consecutive pair (from -> to) of a sequence, the units that ran `from` on a
 * service day of [firstDay, lastDay] and `to` after it on the same day or on the next day. A
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
    `SELECT p.i, count(*) FILTER (WHERE b.service_day = a.service_day)::int AS same_day,
            count(*) FILTER (WHERE b.service_day = a.service_day + 1)::int AS next_day
       FROM unnest($1::int[], $2::text[], $3::text[]) AS p(i, from_codes, to_codes)
       JOIN daily_records a
         ON a.train_code = ANY (string_to_array(p.from_codes, '/'))
        AND a.service_day BETWEEN $4::int AND $5::int
       JOIN daily_records b
         ON b.emu_id = a.emu_id
        AND b.train_code = ANY (string_to_array(p.to_codes, '/'))
        AND (b.service_day = a.service_day + 1
             OR (b.service_day = a.service_day AND b.first_observed_at > a.first_observed_at))
      GROUP BY p.i`,
    [
      wanted.map((w) => w.i),
      wanted.map((w) => w.from.join('/')),
      wanted.map((w) => w.to.join('/')),
      window.firstDay,
      window.lastDay,
    ],
  );
  for (const row of r.rows) result[row.i] = { sameDay: row.same_day, nextDay: row.next_day };
  return result;
}
