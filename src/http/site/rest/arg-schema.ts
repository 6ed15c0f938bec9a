/**
 * WordPress's REST argument schemas (a subset of JSON Schema draft 4, as rest_validate_value_from_schema
 * and rest_sanitize_value_from_schema read it). One schema both validates and coerces a request
 * argument and is what the index shows under `endpoints[].args`.
 */
export type SchemaType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

export interface ArgSchema {
  type?: SchemaType | SchemaType[];
  description?: string;
  default?: unknown;
  enum?: readonly unknown[];
  format?:
    'date-time' | 'uri' | 'email' | 'ip' | 'uuid' | 'hex-color' | 'text-field' | 'textarea-field';
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: ArgSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, ArgSchema>;
  additionalProperties?: boolean | ArgSchema;
  /** Draft-3 style on a property (what WordPress uses for args); draft-4 list on an object. */
  required?: boolean | string[];
  oneOf?: ArgSchema[];
  anyOf?: ArgSchema[];
  readonly?: boolean;
  context?: readonly string[];
  /**
   * Runs after the schema's own checks with the request (WordPress's sanitize_callback): returns
   * the value to use or throws a RestError, reported under rest_invalid_param's details.
   */
  sanitize?: (value: unknown, request: import('./rest-request.js').RestRequest) => unknown;
  title?: string;
  /**
   * The arg has WordPress's validate_callback (get_collection_params' context, page, per_page and
   * search; the args made from an item schema): it is checked by has_valid_params, before and
   * apart from the others, so a request bad in both is refused naming only these.
   */
  validateFirst?: boolean;
  [keyword: string]: unknown;
}

/**
 * A failed check: the message names the parameter, as WordPress's does; `code` is the error
 * rest_validate_value_from_schema gives (only a wrong type carries the parameter as its data).
 */
export class ArgInvalid extends Error {
  constructor(
    readonly param: string,
    message: string,
    readonly code = 'rest_invalid_type',
  ) {
    super(message);
  }

  /** The error as rest_invalid_param's `details` show it. */
  toJSON(): { code: string; message: string; data: { param: string } | null } {
    const data = this.code === 'rest_invalid_type' ? { param: this.param } : null;
    return { code: this.code, message: this.message, data };
  }
}

const DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_COLOR = /^#([A-Fa-f0-9]{3}){1,2}$/;

function typesOf(schema: ArgSchema): SchemaType[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** wp_parse_list: a list given as "a,b c" or as an array. */
export function parseList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((s) => s !== '');
  if (value === undefined || value === null) return [];
  return [value];
}

/** `title: "x"` or `title: {raw: "x"}`, as WordPress takes text fields. */
export function rawText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') {
    const raw = (value as { raw?: unknown }).raw;
    return raw === undefined ? undefined : String(raw);
  }
  return String(value);
}

function isIntegerLike(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v);
  return typeof v === 'string' && /^-?\d+$/.test(v.trim());
}

function isNumberLike(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v));
}

const BOOL_WORDS = new Set(['true', 'false', '1', '0', '']);
function isBooleanLike(v: unknown): boolean {
  if (typeof v === 'boolean') return true;
  if (typeof v === 'number') return v === 0 || v === 1;
  return typeof v === 'string' && BOOL_WORDS.has(v.toLowerCase());
}

function toBoolean(v: unknown): boolean {
  if (typeof v === 'string') return v.toLowerCase() === 'true' || v === '1';
  return Boolean(v);
}

function matchesType(value: unknown, type: SchemaType): boolean {
  switch (type) {
    case 'null':
      return value === null || value === '';
    case 'boolean':
      return isBooleanLike(value);
    case 'integer':
      return isIntegerLike(value);
    case 'number':
      return isNumberLike(value);
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value) || typeof value === 'string';
    case 'object':
      return isPlainObject(value) || value === '';
  }
}

/** The first type (in WordPress's order) the value can be read as. */
function pickType(value: unknown, types: SchemaType[]): SchemaType | undefined {
  const order: SchemaType[] = ['array', 'object', 'integer', 'number', 'boolean', 'string', 'null'];
  // A string that is only a string should not turn into a one-item array.
  for (const t of order) {
    if (!types.includes(t)) continue;
    if (t === 'array' && typeof value === 'string' && types.includes('string')) continue;
    if (matchesType(value, t)) return t;
  }
  return undefined;
}

/** wp_sprintf_l in English: `a`, `a and b`, `a, b, and c`. */
function joinList(values: readonly unknown[]): string {
  const words = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (words.length <= 2) return words.join(' and ');
  return `${words.slice(0, -1).join(', ')}, and ${words[words.length - 1]}`;
}

/**
 * Validates and coerces one value (rest_validate_value_from_schema + rest_sanitize_value_from_schema):
 * numeric strings become numbers, "true"/"1" booleans, "a,b" lists; throws ArgInvalid naming
 * `param` (with its path, e.g. `status[1]`).
 */
export function coerceArg(value: unknown, schema: ArgSchema, param: string): unknown {
  if (schema.anyOf || schema.oneOf) {
    const options = (schema.anyOf ?? schema.oneOf)!;
    for (const option of options) {
      try {
        return coerceArg(
          value,
          { ...schema, anyOf: undefined, oneOf: undefined, ...option },
          param,
        );
      } catch (err) {
        if (!(err instanceof ArgInvalid)) throw err;
      }
    }
    throw new ArgInvalid(
      param,
      `${param} does not match any of the expected formats.`,
      'rest_no_matching_schema',
    );
  }
  const types = typesOf(schema);
  let out: unknown = value;
  if (types.length > 0) {
    const type = pickType(value, types);
    if (type === undefined) {
      throw new ArgInvalid(param, `${param} is not of type ${types.join(',')}.`);
    }
    out = coerceToType(value, type, schema, param);
  }
  if (schema.enum && !schema.enum.some((e) => e === out)) {
    const message =
      schema.enum.length === 1
        ? `${param} is not ${joinList(schema.enum)}.`
        : `${param} is not one of ${joinList(schema.enum)}.`;
    throw new ArgInvalid(param, message, 'rest_not_in_enum');
  }
  return out;
}

function coerceToType(value: unknown, type: SchemaType, schema: ArgSchema, param: string): unknown {
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return toBoolean(value);
    case 'integer':
    case 'number': {
      const n = Number(value);
      checkRange(n, schema, param);
      return n;
    }
    case 'string':
      return checkString(value as string, schema, param);
    case 'array': {
      const list = parseList(value);
      if (schema.minItems !== undefined && list.length < schema.minItems) {
        throw new ArgInvalid(
          param,
          `${param} must contain at least ${schema.minItems} items.`,
          'rest_too_few_items',
        );
      }
      if (schema.maxItems !== undefined && list.length > schema.maxItems) {
        throw new ArgInvalid(
          param,
          `${param} must contain at most ${schema.maxItems} items.`,
          'rest_too_many_items',
        );
      }
      const items = schema.items
        ? list.map((v, i) => coerceArg(v, schema.items!, `${param}[${i}]`))
        : list;
      if (
        schema.uniqueItems &&
        new Set(items.map((v) => JSON.stringify(v))).size !== items.length
      ) {
        throw new ArgInvalid(param, `${param} has duplicate items.`, 'rest_duplicate_items');
      }
      return items;
    }
    case 'object': {
      const obj = value === '' ? {} : (value as Record<string, unknown>);
      const out: Record<string, unknown> = {};
      const required = Array.isArray(schema.required) ? schema.required : [];
      for (const [key, propSchema] of Object.entries(schema.properties ?? {})) {
        if (propSchema.required === true && !(key in obj)) required.push(key);
      }
      for (const key of required) {
        if (!(key in obj))
          throw new ArgInvalid(param, `${key} is a required property of ${param}.`);
      }
      for (const [key, v] of Object.entries(obj)) {
        const propSchema = schema.properties?.[key];
        if (propSchema) out[key] = coerceArg(v, propSchema, `${param}[${key}]`);
        else if (schema.additionalProperties === false) {
          throw new ArgInvalid(param, `${key} is not a valid property of Object.`);
        } else if (isPlainObject(schema.additionalProperties)) {
          out[key] = coerceArg(v, schema.additionalProperties, `${param}[${key}]`);
        } else out[key] = v;
      }
      return out;
    }
  }
}

function checkRange(n: number, s: ArgSchema, param: string): void {
  const { minimum: min, maximum: max } = s;
  const belowMin = min !== undefined && (s.exclusiveMinimum ? n <= min : n < min);
  const aboveMax = max !== undefined && (s.exclusiveMaximum ? n >= max : n > max);
  if (!belowMin && !aboveMax) return;
  const minWord = s.exclusiveMinimum ? 'exclusive' : 'inclusive';
  const maxWord = s.exclusiveMaximum ? 'exclusive' : 'inclusive';
  if (min !== undefined && max !== undefined) {
    throw new ArgInvalid(
      param,
      `${param} must be between ${min} (${minWord}) and ${max} (${maxWord})`,
      'rest_out_of_bounds',
    );
  }
  if (min !== undefined) {
    throw new ArgInvalid(
      param,
      `${param} must be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${min}`,
      'rest_out_of_bounds',
    );
  }
  throw new ArgInvalid(
    param,
    `${param} must be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${max}`,
    'rest_out_of_bounds',
  );
}

function checkString(v: string, s: ArgSchema, param: string): string {
  const length = [...v].length;
  if (s.minLength !== undefined && length < s.minLength) {
    throw new ArgInvalid(
      param,
      `${param} must be at least ${s.minLength} characters long.`,
      'rest_too_short',
    );
  }
  if (s.maxLength !== undefined && length > s.maxLength) {
    throw new ArgInvalid(
      param,
      `${param} must be at most ${s.maxLength} characters long.`,
      'rest_too_long',
    );
  }
  if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) {
    throw new ArgInvalid(
      param,
      `${param} does not match pattern ${s.pattern}.`,
      'rest_invalid_pattern',
    );
  }
  switch (s.format) {
    case 'date-time':
      if (!DATE_TIME.test(v) || Number.isNaN(Date.parse(v.replace(' ', 'T')))) {
        throw new ArgInvalid(param, 'Invalid date.', 'rest_invalid_date');
      }
      break;
    case 'email':
      if (!EMAIL.test(v))
        throw new ArgInvalid(param, 'Invalid email address.', 'rest_invalid_email');
      break;
    case 'uuid':
      if (!UUID.test(v))
        throw new ArgInvalid(param, `${param} is not a valid UUID.`, 'rest_invalid_uuid');
      break;
    case 'hex-color':
      if (!HEX_COLOR.test(v))
        throw new ArgInvalid(param, 'Invalid hex color.', 'rest_invalid_hex_color');
      break;
    case 'uri':
      if (v !== '') {
        try {
          new URL(v);
        } catch {
          throw new ArgInvalid(param, `${param} is not a valid URL.`);
        }
      }
      break;
    case 'text-field':
      return v
        .replace(/<[^>]*>/g, '')
        .replace(/[\r\n\t ]+/g, ' ')
        .trim();
    default:
      break;
  }
  return v;
}

/** The keywords of an arg the index shows (WordPress's allowed schema keywords). */
const INDEX_KEYWORDS = [
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
] as const;

/** One arg as `endpoints[].args[name]` of the index: required, default, description, keywords. */
export function argForIndex(schema: ArgSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (schema.description !== undefined) out.description = schema.description;
  for (const key of INDEX_KEYWORDS) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.default !== undefined) out.default = schema.default;
  out.required = schema.required === true;
  return out;
}
