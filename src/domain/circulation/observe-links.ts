import { notRetractedSql } from '../corrections/counted-sightings.js';
import type { Db } from '../../shared/db/db.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';
import type { ObservedLink } from './inference-rule.js';
import { LinkCounter, type CountedRun } from './link-counter.js';
import { runningStart } from './running-order.js';

export interface ObservedWindow {
  links: ObservedLink[];
  /** Runs in the window (one train, paired numbers counted once, by one EMU on one day). */
  runs: number;
  /** Runs placed by their first sighting's time of day because they had no timetable. */
  runsOrderedBySighting: number;
}

/**
 * Paired numbers learnt from the window's sightings, for records without a timetable: a
 * sighting written G4340/37 names both numbers of one run. Each number takes the pair it was
 * seen in most often, and a pair counts only when every number in it chose it. Retracted
 * sightings do not vote.
 */
const LEARN_PAIRS = `
  WITH votes AS (
    SELECT o.train_codes AS codes, count(*) AS n
      FROM observations o
     WHERE o.service_day BETWEEN $1 AND $2 AND cardinality(o.train_codes) > 1
       AND ${notRetractedSql('o')}
     GROUP BY o.train_codes
  ), choice AS (
    SELECT DISTINCT ON (code) code, codes
      FROM votes, unnest(codes) AS code
     ORDER BY code, n DESC, codes
  )
  SELECT c.code, array_to_string(c.codes, '/') AS node_key
    FROM choice c
   WHERE NOT EXISTS (SELECT 1 FROM choice o WHERE o.code = ANY (c.codes) AND o.codes <> c.codes)`;

interface Timetable {
  key: string;
  start: number;
  end: number;
}

/** The COPY text rows of a query, split into fields (\N is null). */
async function* copyRows(db: Db, sql: string): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of db.copyTo(sql)) {
    const text = rest + chunk.toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const line of lines) yield line.split('\t');
  }
  if (rest !== '') yield rest.split('\t');
}

/**
 * Reads the window's daily records (one streamed pass, in EMU order) and returns every link
 * seen between consecutive runs of one EMU, with its counts (see InferenceRule; `minSupport`
 * decides which links are known well enough for a skip through them to count).
 *
 * A run's node key is every number it carries, in running order, joined by '/': the
 * timetable's all_codes, else a pair learnt from sightings, else the record's number; records of
 * one EMU and day with the same key are one run. Runs of a day are ordered by the timetable's
 * start (seconds from the day's midnight), else by the first sighting's time of day. A record
 * whose sightings all fall in the small hours before its timetable's after-midnight arrival is
 * the evening train of the day before, seen after midnight: it is placed a day early, first of
 * its day, and so merges with that train.
 */
export async function observeLinks(
  db: Db,
  windowStart: number,
  windowEnd: number,
  minSupport: number,
): Promise<ObservedWindow> {
  const midnight = new Map<number, number>();
  for (let d = windowStart; d <= windowEnd; d++) midnight.set(d, midnightOfServiceDay(d));
  const timetables = new Map<number, Timetable>();
  const tt = await db.query<{ id: number; key: string; start_offset: number; end_offset: number }>(
    `SELECT t.id, array_to_string(t.all_codes, '/') AS key, t.start_offset, t.end_offset
       FROM timetables t
      WHERE t.id IN (SELECT DISTINCT timetable_id FROM daily_records
                      WHERE service_day BETWEEN $1 AND $2 AND timetable_id IS NOT NULL)`,
    [windowStart, windowEnd],
  );
  for (const r of tt.rows)
    timetables.set(r.id, { key: r.key, start: r.start_offset, end: r.end_offset });
  const untimed = await db.query(
    `SELECT 1 FROM daily_records
      WHERE service_day BETWEEN $1 AND $2 AND timetable_id IS NULL LIMIT 1`,
    [windowStart, windowEnd],
  );
  const pairs = new Map<string, string>();
  // A timetable lists all its numbers: pairs matter only for records without one.
  if (untimed.rows.length > 0) {
    const r = await db.query<{ code: string; node_key: string }>(LEARN_PAIRS, [
      windowStart,
      windowEnd,
    ]);
    for (const p of r.rows) pairs.set(p.code, p.node_key);
  }

  const counter = new LinkCounter();
  let emu = -1;
  // The current EMU's runs by (day, node).
  let runs = new Map<string, CountedRun>();
  const flush = () => {
    if (emu >= 0) counter.addEmu(emu, [...runs.values()]);
    runs = new Map();
  };
  const rows = copyRows(
    db,
    `SELECT emu_id, service_day, train_code, first_observed_at, last_observed_at, timetable_id
       FROM daily_records
      WHERE service_day BETWEEN ${Number(windowStart)} AND ${Number(windowEnd)}
      ORDER BY emu_id, service_day`,
  );
  for await (const [emuField, dayField, code, firstField, lastField, ttField] of rows) {
    const e = Number(emuField);
    if (e !== emu) {
      flush();
      emu = e;
    }
    const day = Number(dayField);
    const m = midnight.get(day)!;
    const t = ttField === '\\N' ? undefined : timetables.get(Number(ttField));
    const key = t ? t.key : (pairs.get(code!) ?? code!);
    const at = runningStart(m, Number(firstField), Number(lastField), t);
    const node = counter.node(key);
    const slot = `${day}:${node}`;
    const seen = runs.get(slot);
    if (seen) {
      seen.at = Math.min(seen.at, at);
      seen.bySighting &&= !t;
    } else {
      runs.set(slot, { day, node, at, bySighting: !t });
    }
  }
  flush();
  return {
    links: counter.links(minSupport),
    runs: counter.runs,
    runsOrderedBySighting: counter.runsOrderedBySighting,
  };
}
