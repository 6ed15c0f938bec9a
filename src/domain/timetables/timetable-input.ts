import { z } from 'zod';
import { InvalidServiceDateError, serviceDayFromYmd } from '../../shared/time/service-day.js';
import {
  expandTrainCodes,
  MalformedTrainCodeError,
  normalizeTrainCode,
} from '../trains/train-code.js';
import { clockTimeOfOffset, parseTimetableTime } from './timetable-time.js';

/** One stop of a validated timetable; offsets in seconds from the service day's midnight. */
export interface TimetableStop {
  stationName: string;
  arriveOffset: number | null;
  departOffset: number | null;
  stationTrainCode: string | null;
  wicket: string;
  platformNo: number | null;
  /** Kilometres from the origin, as given. */
  distance: number | null;
}

/** A validated timetable: one train, the day its version takes effect, its stops in running order. */
export interface TimetableInput {
  /** The first number of the written trainCode (G4340 for "G4340/37"). */
  trainCode: string;
  /** Every number the train carries: the written trainCode's and allCodes, in that order. */
  allCodes: string[];
  internalCode: string;
  bureauCode: string;
  bureauName: string;
  trainDepartment: string;
  passengerDepartment: string;
  /** The service day of validFrom. Not part of the content (see timetable-content.ts). */
  validFrom: number;
  stops: TimetableStop[];
}

/** Why a timetable was refused, naming the field (a dotted path: stops[2].arrive). */
export interface TimetableProblem {
  field: string | null;
  reason: string;
}

const MAX_STOPS = 200;
const MAX_TEXT = 100;

const optionalText = z
  .string({ error: 'expected text' })
  .trim()
  .max(MAX_TEXT, `longer than ${MAX_TEXT} characters`)
  .nullish()
  .transform((v) => v ?? '');

/**
 * A transform by `convert`, whose `Refusal` (a value it will not take) becomes the field's issue,
 * with the refusal's message.
 */
function refusing<I, O>(
  Refusal: abstract new (...args: never[]) => Error,
  convert: (value: I) => O,
): (value: I, ctx: z.RefinementCtx) => O {
  return (value, ctx) => {
    try {
      return convert(value);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  };
}

const trainNumber = z
  .string({ error: 'expected a train number such as G1234' })
  .transform(refusing(MalformedTrainCodeError, normalizeTrainCode));

/** A train number as text ("G4337") or as the API's TrainCode object ({prefix, number}). */
const trainNumberOrObject = z.union(
  [
    trainNumber,
    z
      .object({ prefix: z.string(), number: z.number().int() })
      .transform((v) => `${v.prefix}${v.number}`)
      .pipe(trainNumber),
  ],
  { error: 'expected a train number such as G1234' },
);

const time = z
  .union([z.string(), z.number()], {
    error: 'expected HH:MM (hours may pass 24, e.g. 25:10) or seconds from midnight',
  })
  .nullish()
  .transform((v, ctx) => {
    if (v === undefined || v === null || v === '') return null;
    const t = parseTimetableTime(v);
    if (typeof t === 'number') return t;
    ctx.addIssue({ code: 'custom', message: t.reason });
    return z.NEVER;
  });

const wholeNumber = (max: number) =>
  z
    .union([z.number(), z.string().regex(/^\s*\d+\s*$/)], {
      error: `expected a whole number 0-${max}`,
    })
    .nullish()
    .transform((v, ctx) => {
      if (v === undefined || v === null) return null;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > max) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number 0-${max}, got ${v}` });
        return z.NEVER;
      }
      return n;
    });

const distance = z
  .union([z.number(), z.string().regex(/^\s*\d+(\.\d+)?\s*$/)], {
    error: 'expected kilometres from the origin (a number)',
  })
  .nullish()
  .transform((v, ctx) => {
    if (v === undefined || v === null) return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n > 100_000) {
      ctx.addIssue({ code: 'custom', message: `expected 0-100000 km, got ${v}` });
      return z.NEVER;
    }
    return n;
  });

const stopSchema = z.object(
  {
    stationName: z
      .string({ error: 'expected the station name' })
      .trim()
      .min(1, 'missing')
      .max(MAX_TEXT, `longer than ${MAX_TEXT} characters`),
    arrive: time,
    depart: time,
    stationTrainCode: trainNumberOrObject.nullish().transform((v) => v ?? null),
    wicket: optionalText,
    platformNo: wholeNumber(9999),
    distance,
  },
  { error: 'expected a stop object with stationName, arrive and depart' },
);

const timetableSchema = z.object(
  {
    trainCode: z
      .string({ error: 'missing' })
      .transform(refusing(MalformedTrainCodeError, expandTrainCodes)),
    allCodes: z
      .array(trainNumberOrObject, { error: 'expected an array of train numbers' })
      .max(10, 'more than 10 numbers')
      .nullish(),
    internalCode: optionalText,
    bureauCode: optionalText,
    bureauName: optionalText,
    trainDepartment: optionalText,
    passengerDepartment: optionalText,
    validFrom: z
      .union([z.string(), z.number()], { error: 'missing (YYYYMMDD)' })
      .transform(refusing(InvalidServiceDateError, (v) => serviceDayFromYmd(String(v).trim()))),
    stops: z
      .array(stopSchema, { error: 'expected an array of stops' })
      .min(2, 'a timetable needs at least two stops')
      .max(MAX_STOPS, `more than ${MAX_STOPS} stops`),
  },
  { error: 'expected a JSON object with trainCode, validFrom and stops' },
);

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function problem(field: string | null, reason: string): TimetableProblem {
  return { field, reason: field ? `${field}: ${reason}` : reason };
}

const show = (offset: number) => clockTimeOfOffset(offset);

/**
 * Validates one timetable (a parsed JSON object). Beyond the shape: the origin has a departure,
 * the terminus an arrival, every other stop at least one of the two; times never go back along
 * the route (a stop's departure is not before its arrival, nor its arrival before the previous
 * stop's departure); a stationTrainCode is one of the train's numbers. The first problem found
 * is returned, naming its field.
 */
export function toTimetableInput(value: unknown): TimetableInput | TimetableProblem {
  const parsed = timetableSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = z.core.toDotPath(issue.path) || null;
    const message =
      issue.code === 'invalid_type' && field !== null && valueAt(value, issue.path) === undefined
        ? 'missing'
        : issue.message;
    return problem(field, message);
  }
  const t = parsed.data;
  const allCodes = [...new Set([...t.trainCode, ...(t.allCodes ?? [])])];
  const stops: TimetableStop[] = [];
  let previous: { offset: number; field: string } | undefined;
  for (let i = 0; i < t.stops.length; i++) {
    const s = t.stops[i]!;
    const at = `stops[${i}]`;
    if (i === 0 && s.depart === null)
      return problem(`${at}.depart`, 'the origin needs a departure');
    if (i === t.stops.length - 1 && s.arrive === null)
      return problem(`${at}.arrive`, 'the terminus needs an arrival');
    if (s.arrive === null && s.depart === null)
      return problem(at, 'a stop needs an arrival or a departure time');
    for (const [key, offset] of [
      ['arrive', s.arrive],
      ['depart', s.depart],
    ] as const) {
      if (offset === null) continue;
      if (previous && offset < previous.offset) {
        return problem(
          `${at}.${key}`,
          `${show(offset)} is before ${show(previous.offset)} (${previous.field}); stops must be in running order, times counting on past 24:00`,
        );
      }
      previous = { offset, field: `${at}.${key}` };
    }
    if (s.stationTrainCode !== null && !allCodes.includes(s.stationTrainCode)) {
      return problem(
        `${at}.stationTrainCode`,
        `${s.stationTrainCode} is not one of the train's numbers (${allCodes.join(', ')})`,
      );
    }
    stops.push({
      stationName: s.stationName,
      arriveOffset: s.arrive,
      departOffset: s.depart,
      stationTrainCode: s.stationTrainCode,
      wicket: s.wicket,
      platformNo: s.platformNo,
      distance: s.distance,
    });
  }
  return {
    trainCode: t.trainCode[0]!,
    allCodes,
    internalCode: t.internalCode,
    bureauCode: t.bureauCode,
    bureauName: t.bureauName,
    trainDepartment: t.trainDepartment,
    passengerDepartment: t.passengerDepartment,
    validFrom: t.validFrom,
    stops,
  };
}

export function isTimetableProblem(x: TimetableInput | TimetableProblem): x is TimetableProblem {
  return 'reason' in x;
}
