import { hash } from 'node:crypto';
import { parseEmuCode, MalformedEmuCodeError } from '../emus/normalize-emu-code.js';
import {
  emuFormProblem,
  isKnownFamily,
  STRICT_EMU_FORMS,
  type EmuFormPolicy,
} from '../emus/emu-forms.js';
import { expandTrainCodes, MalformedTrainCodeError } from '../trains/train-code.js';
import {
  serviceDayFromYmd,
  serviceDayOf,
  InvalidServiceDateError,
} from '../../shared/time/service-day.js';

/**
 * One sighting as accepted: validated, normalised, and stored with its service day: the
 * serviceDate it states, else the Shanghai calendar day of observedAt (see serviceDateGiven).
 */
export interface ObservationRecord {
  observedAt: number;
  serviceDay: number;
  serviceDateGiven: boolean;
  /** Normalised as written, numbers joined by "/": G4340/G4337. */
  trainCode: string;
  trainCodes: string[];
  /** As written in the source, seat and all (CR400AF-Z-0216-02-03F). */
  emuCode: string;
  /** The unit as written, less any travel-code seat tail: the alias the registry resolves. */
  emuUnit: string;
  source: string;
  ref: string | null;
  /** Hex sha256 of what makes two sightings the same one (see dedupKeyOf). */
  dedupKey: string;
  /** The unit's place in the formation, when the sighting says (status bits 0x04/0x06). */
  position: FormationPosition | null;
  /** Whether the unit replaced a failed one on this run, when the sighting says (0x08). */
  fault: boolean | null;
  /** Whether the unit stood by as a hot spare, when the sighting says (0x10). */
  spare: boolean | null;
}

/** `single` unit, or the `first` or `second` unit of a coupled run. */
export type FormationPosition = 'single' | 'first' | 'second';
export const FORMATION_POSITIONS: readonly FormationPosition[] = ['single', 'first', 'second'];

/** Why a line was refused, naming the field where one is to blame. */
export interface ObservationProblem {
  field: string | null;
  reason: string;
}

// Sightings before the first CRH service or after 2100 are typing errors, not observations.
export const EARLIEST = Date.UTC(2007, 0, 1) / 1000;
export const LATEST = Date.UTC(2100, 0, 1) / 1000;
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
export const MAX_SOURCE = 64;
const MAX_REF = 200;

function problem(field: string | null, reason: string): ObservationProblem {
  return { field, reason: field ? `${field}: ${reason}` : reason };
}

function parseObservedAt(value: unknown): number | ObservationProblem {
  if (
    typeof value === 'number' ||
    (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value))
  ) {
    const n = Number(value);
    if (!Number.isFinite(n)) return problem('observedAt', `not a number: ${JSON.stringify(value)}`);
    if (n > 1e11)
      return problem('observedAt', `${n} looks like milliseconds; expected Unix seconds`);
    if (n < EARLIEST || n >= LATEST) {
      return problem(
        'observedAt',
        `${n} is outside 2007-01-01..2099-12-31 (Unix seconds expected)`,
      );
    }
    return Math.floor(n);
  }
  if (typeof value === 'string') {
    const m = ISO_WITH_OFFSET.exec(value.trim());
    if (!m) {
      return problem(
        'observedAt',
        `expected Unix seconds or ISO-8601 with an offset (2026-08-14T08:30:00+08:00), got ${JSON.stringify(value)}`,
      );
    }
    const [, y, mo, d, h, mi, s] = m.map((x) => (x === undefined ? undefined : x)) as string[];
    const fields = {
      month: [Number(mo), 1, 12],
      day: [Number(d), 1, 31],
      hour: [Number(h), 0, 23],
      minute: [Number(mi), 0, 59],
      second: [Number(s ?? 0), 0, 59],
    } as const;
    for (const [name, [v, lo, hi]] of Object.entries(fields)) {
      if (v < lo || v > hi)
        return problem('observedAt', `${name} ${v} is impossible in ${JSON.stringify(value)}`);
    }
    const dayCheck = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    if (dayCheck.getUTCDate() !== Number(d))
      return problem('observedAt', `date does not exist in ${JSON.stringify(value)}`);
    const ms = Date.parse(
      value
        .trim()
        .replace(' ', 'T')
        .replace(/([+-]\d{2})(\d{2})$/, '$1:$2'),
    );
    if (Number.isNaN(ms)) return problem('observedAt', `unreadable time ${JSON.stringify(value)}`);
    const n = Math.floor(ms / 1000);
    if (n < EARLIEST || n >= LATEST)
      return problem('observedAt', `${value} is outside 2007-01-01..2099-12-31`);
    return n;
  }
  return problem(
    'observedAt',
    value === undefined || value === null || value === ''
      ? 'missing'
      : `expected Unix seconds or an ISO-8601 string, got ${typeof value}`,
  );
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  return t === '' ? undefined : t;
}

/**
 * An optional status field: absent, null or "" = not said. `position` is single, first or
 * second (any case); `fault` and `spare` are JSON booleans, or true/false written as text (CSV).
 */
function parsePosition(value: unknown): FormationPosition | null | ObservationProblem {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    return problem('position', `expected "single", "first" or "second", got ${typeof value}`);
  }
  const v = value.trim().toLowerCase();
  if (v === '') return null;
  if ((FORMATION_POSITIONS as readonly string[]).includes(v)) return v as FormationPosition;
  return problem(
    'position',
    `expected "single", "first" or "second", got ${JSON.stringify(value.slice(0, 40))}`,
  );
}

function parseFlag(field: 'fault' | 'spare', value: unknown): boolean | null | ObservationProblem {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === '') return null;
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return problem(
    field,
    `expected true or false, got ${JSON.stringify(typeof value === 'string' ? value.slice(0, 40) : value)}`,
  );
}

/** A written EMU code as parsed: canonical code, written unit and family (for emuFormProblem). */
interface ParsedEmu {
  canonical: string;
  unit: string;
  family: string;
  /** Of a known model family: accepted whatever the policy (the common case, decided once). */
  known: boolean;
}

/** Memoised per distinct input: a day's file names a few thousand codes a million times. */
const emuCache = new Map<string, ParsedEmu | ObservationProblem>();
const trainCache = new Map<string, string[] | ObservationProblem>();

export function checkEmu(raw: string, policy: EmuFormPolicy): ParsedEmu | ObservationProblem {
  let hit = emuCache.get(raw);
  if (hit === undefined) {
    try {
      const parsed = parseEmuCode(raw);
      hit = {
        canonical: parsed.code,
        unit: parsed.writtenUnit,
        family: parsed.family,
        known: parsed.family !== '' && isKnownFamily(parsed.family),
      };
    } catch (err) {
      if (!(err instanceof MalformedEmuCodeError)) throw err;
      hit = problem('emuCode', err.message);
    }
    if (emuCache.size > 100_000) emuCache.clear();
    emuCache.set(raw, hit);
  }
  if ('reason' in hit || hit.known) return hit;
  // The policy is asked after the cache: it differs between ingestions (the fleet, the setting).
  const refused = emuFormProblem({ code: hit.canonical, family: hit.family }, raw, policy);
  return refused === undefined ? hit : problem('emuCode', refused);
}

export function checkTrain(raw: string): string[] | ObservationProblem {
  let hit = trainCache.get(raw);
  if (hit === undefined) {
    try {
      hit = expandTrainCodes(raw);
    } catch (err) {
      if (!(err instanceof MalformedTrainCodeError)) throw err;
      hit = problem('trainCode', err.message);
    }
    if (trainCache.size > 100_000) trainCache.clear();
    trainCache.set(raw, hit);
  }
  return hit;
}

/**
 * What makes two lines the same sighting: the source's own id when it gives one, else the
 * sighting's whole content. The canonical EMU code is used so that CR400AF2001 and
 * CR400AF-2001 from one source at one second are one sighting.
 */
export function dedupKeyOf(o: {
  source: string;
  ref: string | null;
  observedAt: number;
  trainCodes: string[];
  /** Canonical EMU code. */
  emuCode: string;
  serviceDay: number;
  serviceDateGiven: boolean;
}): string {
  const material =
    o.ref !== null
      ? `ref\u0000${o.source}\u0000${o.ref}`
      : `content\u0000${o.source}\u0000${o.observedAt}\u0000${o.trainCodes.join('/')}\u0000${o.emuCode}\u0000${o.serviceDateGiven ? o.serviceDay : ''}`;
  // The service day leads the key so that one day's keys sit together in the unique index:
  // ingestion then probes and inserts into a small, cached part of it instead of all over a
  // large one (3x faster at a month of data). Two sightings are thus the same one only within
  // a service day, which every true duplicate is.
  const day = (o.serviceDay >>> 0).toString(16).padStart(8, '0');
  return day + hash('sha256', material, 'hex').slice(0, 56);
}

/**
 * Validates one parsed line (an NDJSON object, or a CSV row keyed by header). `emuForms`: which
 * EMU codes may register a unit (emu-forms.ts; default the known model families only).
 */
export function toObservationRecord(
  input: unknown,
  emuForms: EmuFormPolicy = STRICT_EMU_FORMS,
): ObservationRecord | ObservationProblem {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return problem(null, 'expected a JSON object with observedAt, trainCode, emuCode and source');
  }
  const o = input as Record<string, unknown>;
  const observedAt = parseObservedAt(o.observedAt);
  if (typeof observedAt !== 'number') return observedAt;

  const trainRaw = optionalString(o.trainCode);
  if (trainRaw === undefined) return problem('trainCode', 'missing');
  const trainCodes = checkTrain(trainRaw);
  if (!Array.isArray(trainCodes)) return trainCodes;

  const emuRaw = optionalString(o.emuCode);
  if (emuRaw === undefined) return problem('emuCode', 'missing');
  const emu = checkEmu(emuRaw, emuForms);
  if ('reason' in emu) return emu;

  const source = optionalString(o.source);
  if (source === undefined) return problem('source', 'missing');
  if (source.length > MAX_SOURCE) return problem('source', `longer than ${MAX_SOURCE} characters`);

  const ref = optionalString(o.ref) ?? null;
  if (ref !== null && ref.length > MAX_REF)
    return problem('ref', `longer than ${MAX_REF} characters`);

  let serviceDay: number;
  const serviceDate = optionalString(o.serviceDate);
  if (serviceDate !== undefined) {
    try {
      serviceDay = serviceDayFromYmd(serviceDate);
    } catch (err) {
      if (!(err instanceof InvalidServiceDateError)) throw err;
      return problem('serviceDate', err.message);
    }
  } else {
    // The calendar day. A sighting after midnight of a train that left the evening before is
    // counted for the earlier day by the build, which knows the timetables (day-sightings.ts).
    serviceDay = serviceDayOf(observedAt);
  }
  const position = parsePosition(o.position);
  if (position !== null && typeof position === 'object') return position;
  const fault = parseFlag('fault', o.fault);
  if (fault !== null && typeof fault === 'object') return fault;
  const spare = parseFlag('spare', o.spare);
  if (spare !== null && typeof spare === 'object') return spare;
  const record = {
    observedAt,
    serviceDay,
    serviceDateGiven: serviceDate !== undefined,
    trainCode: trainCodes.join('/'),
    trainCodes,
    emuCode: emuRaw,
    emuUnit: emu.unit,
    source,
    ref,
    dedupKey: '',
    position,
    fault,
    spare,
  };
  record.dedupKey = dedupKeyOf({ ...record, emuCode: emu.canonical });
  return record;
}

export function isProblem(x: ObservationRecord | ObservationProblem): x is ObservationProblem {
  return 'reason' in x;
}
