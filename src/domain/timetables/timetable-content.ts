import { hash } from 'node:crypto';
import type { TimetableInput } from './timetable-input.js';

/**
 * The canonical content of a timetable: every field but validFrom, in a fixed order, with times
 * as seconds (so "25:10" and 90600 are the same content) and absent optional values as null.
 * Two timetables with the same canonical JSON are one timetable (one timetableId), whatever day
 * they take effect and however they were written.
 */
export function canonicalTimetableJson(t: TimetableInput): string {
  return JSON.stringify([
    1, // the canonical form's own version: a change of this function changes every hash
    t.trainCode,
    t.allCodes,
    t.internalCode,
    t.bureauCode,
    t.bureauName,
    t.trainDepartment,
    t.passengerDepartment,
    t.stops.map((s) => [
      s.stationName,
      s.arriveOffset,
      s.departOffset,
      s.stationTrainCode,
      s.wicket,
      s.platformNo,
      s.distance,
    ]),
  ]);
}

/** Hex sha256 of the canonical content: timetables.content_hash. */
export function timetableContentHash(t: TimetableInput): string {
  return hash('sha256', canonicalTimetableJson(t), 'hex');
}

/** Where the train starts and ends: the origin's departure and the terminus's arrival. */
export function timetableEnds(t: TimetableInput): {
  startStation: string;
  endStation: string;
  startOffset: number;
  endOffset: number;
} {
  const first = t.stops[0]!;
  const last = t.stops[t.stops.length - 1]!;
  return {
    startStation: first.stationName,
    endStation: last.stationName,
    startOffset: first.departOffset!,
    endOffset: last.arriveOffset!,
  };
}
