import type { Queryable } from '../../shared/db/db.js';
import { normalizeTrainCode } from '../trains/train-code.js';
import type { TimetableInput, TimetableStop } from './timetable-input.js';

/** One stop of a stored timetable: a validated stop (timetable-input.ts) and its position. */
export interface StoredTimetableStop extends TimetableStop {
  /** Position in running order, from 1. */
  stationNo: number;
}

/**
 * A stored timetable content (timetables row) with its stops: a validated timetable
 * (timetable-input.ts) less its validFrom, which is not part of the content. Contents never change.
 */
export interface StoredTimetable extends Omit<TimetableInput, 'validFrom' | 'stops'> {
  timetableId: number;
  /** The timetable's own number (G4340 for the paired run G4340/G4337). */
  trainCode: string;
  startStation: string;
  endStation: string;
  startOffset: number;
  endOffset: number;
  /** Unix seconds when this content was first stored. */
  storedAt: number;
  stops: StoredTimetableStop[];
}

interface StopRow {
  timetable_id: number;
  station_no: number;
  station_name: string;
  arrive_offset: number | null;
  depart_offset: number | null;
  station_train_code: string | null;
  wicket: string;
  platform_no: number | null;
  distance: string | number | null;
}

/** Timetable contents by id, stops in running order; ids that do not exist are left out. */
export async function readTimetables(
  db: Queryable,
  timetableIds: readonly number[],
): Promise<Map<number, StoredTimetable>> {
  const ids = [...new Set(timetableIds)];
  const out = new Map<number, StoredTimetable>();
  if (ids.length === 0) return out;
  const [timetables, stops] = await Promise.all([
    // Each column named as its StoredTimetable field, in the interface's order.
    db.query<Omit<StoredTimetable, 'stops'>>(
      `SELECT id AS "timetableId", train_code AS "trainCode", all_codes AS "allCodes",
              internal_code AS "internalCode", bureau_code AS "bureauCode",
              bureau_name AS "bureauName", train_department AS "trainDepartment",
              passenger_department AS "passengerDepartment", start_station AS "startStation",
              end_station AS "endStation", start_offset AS "startOffset", end_offset AS "endOffset",
              floor(extract(epoch FROM created_at))::bigint AS "storedAt"
         FROM timetables WHERE id = ANY ($1::int[])`,
      [ids],
    ),
    db.query<StopRow>(
      `SELECT timetable_id, station_no, station_name, arrive_offset, depart_offset,
              station_train_code, wicket, platform_no, distance
         FROM timetable_stops WHERE timetable_id = ANY ($1::int[])
        ORDER BY timetable_id, station_no`,
      [ids],
    ),
  ]);
  for (const t of timetables.rows) out.set(t.timetableId, { ...t, stops: [] });
  for (const s of stops.rows) {
    out.get(s.timetable_id)?.stops.push({
      stationNo: s.station_no,
      stationName: s.station_name,
      arriveOffset: s.arrive_offset,
      departOffset: s.depart_offset,
      stationTrainCode: s.station_train_code,
      wicket: s.wicket,
      platformNo: s.platform_no,
      distance: s.distance === null ? null : Number(s.distance),
    });
  }
  return out;
}

/** One coverage row: the timetable in force for a number over [start, endExclusive). */
export interface TimetableCoverage {
  coverageId: number;
  timetableId: number;
  serviceDayStart: number;
  /** Null while the version is open (in force until a newer one is declared). */
  serviceDayEndExclusive: number | null;
}

/**
 * Every coverage row of a train number, newest first (by serviceDayStart). The number is
 * normalised; a paired number has rows of its own (pointing at its run's timetable).
 */
export async function readTimetableCoverage(
  db: Queryable,
  trainCode: string,
): Promise<TimetableCoverage[]> {
  const r = await db.query<TimetableCoverage>(
    `SELECT id AS "coverageId", timetable_id AS "timetableId",
            service_day_start AS "serviceDayStart",
            service_day_end_exclusive AS "serviceDayEndExclusive"
       FROM timetable_coverage WHERE train_code = $1
      ORDER BY service_day_start DESC, id DESC`,
    [normalizeTrainCode(trainCode)],
  );
  return r.rows;
}
