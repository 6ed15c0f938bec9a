import { z } from 'zod';
import { InvalidServiceDateError, serviceDayFromYmd } from '../../shared/time/service-day.js';

/**
 * Parameters of the v2 operations as zod schemas: they validate (every message starts with the
 * parameter's name), convert (a date becomes its service day) and document (the OpenAPI document
 * is generated from them). Query values arrive as text; a repeated parameter arrives as a list
 * and is refused.
 */
function text(name: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined ? `${name} is required` : `${name} must be given once`,
  });
}

/** A value sent, for a message: as JSON, cut after 40 characters. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

/** YYYYMMDD, a real calendar date from 1970-01-01 on, as its service day (epoch day). */
export function serviceDateParam(name: string) {
  return text(name)
    .transform((value, ctx) => {
      try {
        const day = serviceDayFromYmd(value);
        if (day >= 0) return day;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be 19700101 or later (got ${quoted(value)})`,
        });
      } catch (err) {
        if (!(err instanceof InvalidServiceDateError)) throw err;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a calendar date written YYYYMMDD: ${err.message}`,
        });
      }
      return z.NEVER;
    })
    .meta({
      type: 'string',
      pattern: '^[0-9]{8}$',
      description: 'Service day as YYYYMMDD (exactly 8 digits, a real calendar date).',
      examples: ['20260810'],
    });
}

/** Page size: a whole number >= 1; absent = `defaultLimit`; above `maxLimit` cut to it. */
export function limitParam(defaultLimit: number, maxLimit: number) {
  return text('limit')
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return Math.min(defaultLimit, maxLimit);
      if (!/^[0-9]+$/.test(value) || Number(value) < 1) {
        ctx.addIssue({
          code: 'custom',
          message: `limit must be a whole number of at least 1 (got ${quoted(value)})`,
        });
        return z.NEVER;
      }
      return Math.min(Number(value), maxLimit);
    })
    .meta({
      type: 'integer',
      minimum: 1,
      description: `Page size; default ${defaultLimit}; values above ${maxLimit} are cut to ${maxLimit} (the response's \`limit\` says which was used).`,
    });
}

export interface PageCursor {
  serviceDay: number;
  id: number;
  /** As sent, for the response's `cursor` echo. */
  text: string;
}

const CURSOR = /^([0-9]{1,7}):([0-9]{1,15})$/;

/** `<serviceDay>:<id>`; absent or "" = the first page. Whether it fits the date is checked by the operation. */
export function cursorParam() {
  return text('cursor')
    .optional()
    .transform((value, ctx): PageCursor | undefined => {
      if (value === undefined || value === '') return undefined;
      const m = CURSOR.exec(value);
      if (!m || Number(m[2]) < 1) {
        ctx.addIssue({
          code: 'custom',
          message: `cursor must be <serviceDay>:<id> as sent in nextCursor, e.g. 20675:1234 (got ${quoted(value)})`,
        });
        return z.NEVER;
      }
      return { serviceDay: Number(m[1]), id: Number(m[2]), text: value };
    })
    .meta({
      type: 'string',
      description:
        "Omit (or send empty) for the first page; then send the previous response's nextCursor unchanged.",
      examples: ['20675:1234'],
    });
}

/** "true" or "false" (default false). */
export function booleanParam(name: string) {
  return text(name)
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === 'false') return false;
      if (value === 'true') return true;
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be true or false (got ${quoted(value)})`,
      });
      return z.NEVER;
    })
    .meta({ type: 'boolean', default: false });
}

/** A whole number within [min, max], optional. */
export function wholeNumberParam(name: string, min: number, max: number) {
  return text(name)
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
      if (!(n >= min && n <= max)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from ${min} to ${max} (got ${quoted(value)})`,
        });
        return z.NEVER;
      }
      return n;
    })
    .meta({ type: 'integer', minimum: min, maximum: max });
}
