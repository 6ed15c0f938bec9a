import type { Queryable } from '../../shared/db/db.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';
import { runningSequence, runningStart, type PlacedRun } from './running-order.js';

/**
 * What the sightings say about the trains around an official table's links that the inference
 * did not keep (match-official.ts): which trains units were seen running next after a train, and
 * just before it, on at least `minDays` days of the window (pairs seen on fewer days are not
 * evidence, as a link needs minSupport days to be kept). Read from the daily records, a unit's
 * runs in running order (readSightingEvidence); a run's next is its next run that day or the
 * first of the next day.
 */
export interface SightingEvidence {
  /** Trains seen next after `code`, with the days each was seen on. */
  next(code: string): ReadonlyMap<string, number> | undefined;
  /** Trains seen just before `code`, with the days each was seen on. */
  previous(code: string): ReadonlyMap<string, number> | undefined;
  /** Whether `code` has records in the window at all. */
  seen(code: string): boolean;
}

export const NO_EVIDENCE: SightingEvidence = {
  next: () => undefined,
  previous: () => undefined,
  seen: () => false,
};

class EvidenceMaps implements SightingEvidence {
  readonly after = new Map<string, Map<string, number>>();
  readonly before = new Map<string, Map<string, number>>();
  readonly seenCodes = new Set<string>();

  next(code: string) {
    return this.after.get(code);
  }

  previous(code: string) {
    return this.before.get(code);
  }

  seen(code: string) {
    return this.seenCodes.has(code);
  }
}

interface EvidenceRecord extends PlacedRun {
  code: string;
}

/** Records that `other` was seen beside `code` (next after it, or just before it) on `day`. */
function see(
  days: Map<string, Map<string, Set<number>>>,
  code: string,
  other: string,
  day: number,
): void {
  let byOther = days.get(code);
  if (!byOther) days.set(code, (byOther = new Map()));
  let set = byOther.get(other);
  if (!set) byOther.set(other, (set = new Set()));
  set.add(day);
}

/**
 * The sighting evidence about `codes` over the service days start..end: one read of the records
 * of the units that ran any of them in the window (an index range per number), and the day
 * before and after it. A unit's runs are put in running order exactly as the inference puts
 * them (runningSequence of runningStart: the timetable's start, the sighting time only for a
 * record without a timetable), never in the order they happened to be sighted: sightings come
 * late and out of order, and a unit reported on its afternoon train before its morning train
 * would otherwise make a step that points backwards.
 */
export async function readSightingEvidence(
  db: Queryable,
  window: { start: number; end: number },
  codes: readonly string[],
  minDays: number,
): Promise<SightingEvidence> {
  const evidence = new EvidenceMaps();
  if (codes.length === 0) return evidence;
  const asked = new Set(codes);
  const r = await db.query<{
    emu_id: number;
    service_day: number;
    train_code: string;
    first_observed_at: string;
    last_observed_at: string;
    start_offset: number | null;
    end_offset: number | null;
  }>(
    `WITH units AS (
       SELECT DISTINCT emu_id FROM daily_records
        WHERE train_code = ANY ($3::text[]) AND service_day BETWEEN $1 AND $2
     )
     SELECT d.emu_id, d.service_day, d.train_code, d.first_observed_at, d.last_observed_at,
            t.start_offset, t.end_offset
       FROM daily_records d JOIN units u ON u.emu_id = d.emu_id
       LEFT JOIN timetables t ON t.id = d.timetable_id
      WHERE d.service_day BETWEEN $1 - 1 AND $2 + 1
      ORDER BY d.emu_id`,
    [window.start, window.end, [...asked]],
  );
  const midnights = new Map<number, number>();
  const midnight = (day: number) => {
    let m = midnights.get(day);
    if (m === undefined) midnights.set(day, (m = midnightOfServiceDay(day)));
    return m;
  };
  const after = new Map<string, Map<string, Set<number>>>();
  const before = new Map<string, Map<string, Set<number>>>();
  const inWindow = (day: number) => day >= window.start && day <= window.end;
  const addUnit = (records: EvidenceRecord[]) => {
    const seq = runningSequence(
      records,
      (x, y) => x.code === y.code,
      (x, y) => (x.code < y.code ? -1 : x.code > y.code ? 1 : 0),
    );
    for (let i = 0; i + 1 < seq.length; i++) {
      const x = seq[i]!;
      const y = seq[i + 1]!;
      if (y.day - x.day > 1 || x.code === y.code) continue;
      if (asked.has(x.code) && inWindow(x.day)) see(after, x.code, y.code, x.day);
      if (asked.has(y.code) && inWindow(y.day)) see(before, y.code, x.code, y.day);
    }
  };
  let emu: number | undefined;
  let records: EvidenceRecord[] = [];
  for (const row of r.rows) {
    if (row.emu_id !== emu) {
      addUnit(records);
      records = [];
      emu = row.emu_id;
    }
    const day = row.service_day;
    if (asked.has(row.train_code) && inWindow(day)) evidence.seenCodes.add(row.train_code);
    const timetable =
      row.start_offset === null || row.end_offset === null
        ? undefined
        : { start: row.start_offset, end: row.end_offset };
    records.push({
      day,
      code: row.train_code,
      at: runningStart(
        midnight(day),
        Number(row.first_observed_at),
        Number(row.last_observed_at),
        timetable,
      ),
    });
  }
  addUnit(records);
  for (const [days, maps] of [
    [after, evidence.after],
    [before, evidence.before],
  ] as const) {
    for (const [code, byOther] of days) {
      for (const [other, set] of byOther) {
        if (set.size < minDays) continue;
        let m = maps.get(code);
        if (!m) maps.set(code, (m = new Map()));
        m.set(other, set.size);
      }
    }
  }
  return evidence;
}
