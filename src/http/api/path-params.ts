import { prefixList } from '../../domain/trains/train-prefixes.js';
import { z } from 'zod';
import { MalformedTrainCodeError, normalizeTrainCode } from '../../domain/trains/train-code.js';
import { quoted } from './query-params.js';

/**
 * Path and range parameters of the timetable, history and allocation operations, in the manner
 * of query-params.ts: each validates (the message starts with the parameter's name), converts
 * and documents itself.
 */

/** A single train number, case-insensitive, normalised (g2492 -> G2492). */
export function trainCodePathParam() {
  return z
    .string()
    .transform((value, ctx) => {
      try {
        return normalizeTrainCode(value);
      } catch (err) {
        if (!(err instanceof MalformedTrainCodeError)) throw err;
        ctx.addIssue({
          code: 'custom',
          message: `trainCode must be one train number such as G1234 or DJ8858 (prefix ${prefixList()}; case-insensitive)${err.detail ? `: ${err.detail}` : ''}, got ${quoted(value)}`,
        });
        return z.NEVER;
      }
    })
    .meta({
      type: 'string',
      description:
        'A train number, case-insensitive (g4337 = G4337). One number of a paired run finds the run.',
      examples: ['G4337'],
    });
}

// Control characters name nothing, and Postgres refuses NUL in text outright.
const CONTROL = /\p{Cc}/u;

/** A name given in the path: not blank, no control characters. */
function pathText(name: string) {
  return z
    .string()
    .refine((value) => value.trim() !== '', { message: `${name} must not be empty` })
    .refine((value) => !CONTROL.test(value), {
      message: `${name} must not contain control characters`,
    });
}

/** An EMU's canonical code or any alias it was written as, exactly (case-sensitive). */
export function emuCodePathParam() {
  return pathText('emuCode').meta({
    type: 'string',
    description:
      'The canonical EMU code or an alias, case-sensitive, exactly as written (CR400BFA5157 finds CR400BF-A-5157 when that form was seen).',
    examples: ['CR400AF-2001'],
  });
}

/** A station name, exactly as the timetables write it. */
export function stationNamePathParam() {
  return pathText('stationName').meta({
    type: 'string',
    description: 'The station name exactly as the timetables write it (URL-encoded).',
    examples: ['上海虹桥'],
  });
}

// 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z: the days a service day can name.
const MIN_UNIX_SECONDS = -62_135_596_800;
const MAX_UNIX_SECONDS = 253_402_300_799;

/** Unix seconds (a whole number, optional). */
export function unixSecondsParam(name: string, description: string) {
  return z
    .string({ error: () => `${name} must be given once` })
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const n = /^-?[0-9]{1,12}$/.test(value) ? Number(value) : NaN;
      if (!(n >= MIN_UNIX_SECONDS && n <= MAX_UNIX_SECONDS)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be Unix seconds, a whole number from ${MIN_UNIX_SECONDS} to ${MAX_UNIX_SECONDS} (got ${quoted(value)})`,
        });
        return z.NEVER;
      }
      return n;
    })
    .meta({ type: 'integer', description, examples: [1786291200] });
}
