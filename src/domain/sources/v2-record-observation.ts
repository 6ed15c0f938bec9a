import { midnightOfServiceDay, ymdOfServiceDay } from '../../shared/time/service-day.js';
import type { ObservationValue } from '../ingest/ingest-values.js';
import type { Source } from './source-store.js';

/** Where a record's sighting is put when nothing says when it ran: noon of its day. */
export const NOON = 12 * 3600;

/** The service day records are read for, its text and its midnight worked out once. */
export interface SightingDay {
  day: number;
  ymd: string;
  midnight: number;
}

export function sightingDay(day: number): SightingDay {
  return { day, ymd: ymdOfServiceDay(day), midnight: midnightOfServiceDay(day) };
}

/** A record of a v2 server, as either of its listings gives it, with its names resolved. */
export interface V2RecordSighting {
  id: number;
  serviceDay: number;
  status: number;
  /** Written as `G7001`; undefined when the record has none. */
  trainCode: string | undefined;
  /** The unit's code; undefined when the answer does not say it (why: `emuMissing`). */
  emuCode: string | undefined;
  emuMissing: string;
  /** Seconds after the day's midnight (Shanghai) the sighting is put at; noon when absent. */
  startOffset: number | undefined;
}

/**
 * One upstream record as an observation of its train on its unit at its service day, keyed by
 * the record's id (a repeated pull adds nothing): the mapping of every kind reading a v2 server.
 */
export function v2RecordObservation(
  source: Source,
  d: SightingDay,
  r: V2RecordSighting,
  /** The record's text, kept with it when it is refused (made only then when a function). */
  raw: string | (() => string),
  index: number,
): ObservationValue {
  const line = r.id <= 0x7fffffff ? r.id : index + 1;
  const refused = (field: string, reason: string): ObservationValue => ({
    line,
    raw,
    value: null,
    problem: { field, reason },
  });
  if (r.serviceDay !== d.day)
    return refused('serviceDay', `serviceDay: ${r.serviceDay}, not the page's ${d.day}`);
  if (r.emuCode === undefined) return refused('emuCode', r.emuMissing);
  if (r.trainCode === undefined) return refused('trainCode', 'trainCode: missing');
  const start = r.startOffset;
  const offset = start !== undefined && start >= 0 && start < 2 * 86_400 ? start : NOON;
  const formation = r.status & 0x06;
  return {
    line,
    raw,
    value: {
      observedAt: d.midnight + offset,
      serviceDate: d.ymd,
      trainCode: r.trainCode,
      emuCode: r.emuCode,
      source: source.name,
      ref: String(r.id),
      position: formation === 0x04 ? 'first' : formation === 0x06 ? 'second' : null,
      fault: r.status & 0x08 ? true : null,
      spare: r.status & 0x10 ? true : null,
    },
  };
}
