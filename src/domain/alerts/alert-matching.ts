import type { Queryable } from '../../shared/db/db.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';
import type { RecordChange } from '../records/record-changes.js';
import type { AlertData, AlertEvent, AlertKind } from './alert-events.js';

/** An active subscription as matching needs it. */
export interface ActiveSubscription {
  id: string;
  kind: AlertKind;
  code: string;
  emuId: number | null;
  events: AlertEvent[];
  digest: boolean;
}

/** A delivery to write: its key makes one per (subscription, event). */
export interface MatchedAlert {
  subscriptionId: string;
  /** Unique per subscription: the same event seen twice (a second dispatcher, a rebuild) is one. */
  eventKey: string;
  data: AlertData;
  digest: boolean;
}

/** How far back "a unit it has not run" looks (days before the day of the change). */
export const RARE_UNIT_DAYS = 30;

/**
 * The alerts a page of the change feed gives, one per subscription and event:
 * - train.rareUnit: a record of the train added with a unit not among its records of the 30 days
 *   before (only when it has some: a train new to the data is not news);
 * - train.unitChanged: a transaction that added or removed a unit of the train on a day that had
 *   records of it before (the first build of a day is not a change);
 * - emu.seen: the first record of the unit on a day (once a day, whatever rebuilds follow);
 * - station.changed: a record added or removed of a train whose timetable calls at the station;
 * - *.corrected: any change an operator's correction made to a record of the train, the unit or
 *   a train calling at the station (once per correction and day).
 * emu.movedDepot comes from the outbox, not from here.
 */
export async function matchChanges(
  tx: Queryable,
  changes: readonly RecordChange[],
  subs: readonly ActiveSubscription[],
): Promise<MatchedAlert[]> {
  const out: MatchedAlert[] = [];
  if (changes.length === 0 || subs.length === 0) return out;
  const byTrain = group(
    subs.filter((s) => s.kind === 'train'),
    (s) => s.code,
  );
  const byEmu = group(
    subs.filter((s) => s.kind === 'emu'),
    (s) => String(s.emuId),
  );
  const byStation = group(
    subs.filter((s) => s.kind === 'station'),
    (s) => s.code,
  );
  const codes = await emuCodes(tx, changes);
  // The timetable of each change's record: a removed record's is the one it had when added.
  const timetables = new Map<RecordChange, number | null>();
  if (byStation.size > 0)
    for (const c of changes)
      timetables.set(c, c.record?.timetableId ?? (await removedTimetable(tx, c)));
  const stations =
    byStation.size > 0
      ? await stationsOf(tx, [...timetables.values()])
      : new Map<number, string[]>();
  const push = (
    s: ActiveSubscription,
    event: AlertEvent,
    key: string,
    data: Omit<AlertData, 'event' | 'kind' | 'code'>,
  ) => {
    if (s.events.includes(event))
      out.push({
        subscriptionId: s.id,
        eventKey: `${event}:${key}`,
        digest: s.digest,
        data: { event, kind: s.kind, code: s.code, ...data },
      });
  };
  // The transaction's changes per (position, day, train): what unitChanged compares.
  const unitGroups = new Map<string, RecordChange[]>();
  for (const c of changes) {
    const date = ymdOfServiceDay(c.serviceDay);
    const emuCode = codes.get(c.emuId) ?? '';
    const base = { date, trainCode: c.trainCode, emuCode };
    const corrected = c.cause === 'correction';
    const pos = `${c.cursor.position}:${date}`;
    for (const s of byTrain.get(c.trainCode) ?? []) {
      if (corrected) push(s, 'train.corrected', pos, base);
      if (c.kind === 'added' && s.events.includes('train.rareUnit')) {
        if (await isRareUnit(tx, c)) push(s, 'train.rareUnit', `${date}:${c.emuId}`, base);
      }
    }
    if (byTrain.has(c.trainCode) && c.kind !== 'changed') {
      const key = `${c.cursor.position}:${c.serviceDay}:${c.trainCode}`;
      unitGroups.set(key, [...(unitGroups.get(key) ?? []), c]);
    }
    for (const s of byEmu.get(String(c.emuId)) ?? []) {
      if (corrected) push(s, 'emu.corrected', pos, base);
      if (c.kind === 'added') push(s, 'emu.seen', date, base);
    }
    const timetable = timetables.get(c) ?? null;
    for (const station of timetable === null ? [] : (stations.get(timetable) ?? []))
      for (const s of byStation.get(station) ?? []) {
        if (corrected) push(s, 'station.corrected', pos, base);
        if (c.kind !== 'changed')
          push(s, 'station.changed', `${pos}:${c.trainCode}:${c.emuId}`, {
            ...base,
            change: c.kind,
          });
      }
  }
  for (const list of unitGroups.values()) {
    const first = list[0]!;
    const now = await unitsOf(tx, first.serviceDay, first.trainCode);
    const before = new Set(now.map((u) => u.id));
    for (const c of list) if (c.kind === 'added') before.delete(c.emuId);
    for (const c of list) if (c.kind === 'removed') before.add(c.emuId);
    if (before.size === 0) continue;
    const date = ymdOfServiceDay(first.serviceDay);
    for (const s of byTrain.get(first.trainCode) ?? [])
      push(s, 'train.unitChanged', `${first.cursor.position}:${date}`, {
        date,
        trainCode: first.trainCode,
        units: now.map((u) => u.code),
      });
  }
  return out;
}

function group<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) m.set(key(i), [...(m.get(key(i)) ?? []), i]);
  return m;
}

async function emuCodes(
  tx: Queryable,
  changes: readonly RecordChange[],
): Promise<Map<number, string>> {
  const r = await tx.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
    [[...new Set(changes.map((c) => c.emuId))]],
  );
  return new Map(r.rows.map((row) => [row.id, row.code]));
}

async function stationsOf(
  tx: Queryable,
  timetables: readonly (number | null | undefined)[],
): Promise<Map<number, string[]>> {
  const ids = [...new Set(timetables.filter((t) => t != null))];
  if (ids.length === 0) return new Map();
  const r = await tx.query<{ timetable_id: number; names: string[] }>(
    `SELECT timetable_id, array_agg(station_name) AS names FROM timetable_stops
      WHERE timetable_id = ANY($1::int[]) GROUP BY timetable_id`,
    [ids],
  );
  return new Map(r.rows.map((row) => [row.timetable_id, row.names]));
}

/**
 * A removed record has no timetable in its change: the feed's earlier changes of the record
 * have (the record gone, the train's other records that day may be gone too), else the train's
 * other record that day.
 */
async function removedTimetable(tx: Queryable, c: RecordChange): Promise<number | null> {
  if (c.kind !== 'removed') return null;
  const r = await tx.query<{ timetable_id: string }>(
    `SELECT timetable_id::text FROM (
       (SELECT timetable_id FROM record_changes
         WHERE record_id = $3 AND timetable_id IS NOT NULL ORDER BY position DESC LIMIT 1)
       UNION ALL
       (SELECT timetable_id FROM daily_records
         WHERE service_day = $1 AND train_code = $2 AND timetable_id IS NOT NULL LIMIT 1)
     ) t LIMIT 1`,
    [c.serviceDay, c.trainCode, c.recordId],
  );
  return r.rows[0] ? Number(r.rows[0].timetable_id) : null;
}

async function isRareUnit(tx: Queryable, c: RecordChange): Promise<boolean> {
  const r = await tx.query<{ any_run: boolean; this_unit: boolean }>(
    `SELECT count(*) > 0 AS any_run, coalesce(bool_or(emu_id = $3), false) AS this_unit
       FROM daily_records
      WHERE train_code = $1 AND service_day BETWEEN $2 - ${RARE_UNIT_DAYS} AND $2 - 1`,
    [c.trainCode, c.serviceDay, c.emuId],
  );
  return r.rows[0]!.any_run && !r.rows[0]!.this_unit;
}

async function unitsOf(
  tx: Queryable,
  day: number,
  train: string,
): Promise<{ id: number; code: string }[]> {
  const r = await tx.query<{ id: number; code: string }>(
    `SELECT e.id, e.code FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 AND d.train_code = $2 ORDER BY e.code`,
    [day, train],
  );
  return r.rows;
}
