import { z } from 'zod';

/**
 * The v2 envelope: success `{ok: true, meta, data, error: ""}`, failure `{ok: false, meta,
 * error: {code, message}}`. Every /api/v2 response carries it (the CSV download and 304 carry the
 * same figures as headers only). `ok` and the empty `error` beside `data` are the live service's
 * (its clients test `ok`; the seed's daily-records sample shows both); `meta` is the seed's.
 */
export const apiMetaSchema = z
  .object({
    remain: z.int().describe('Quota left after this request.'),
    cost: z.int().describe('Quota charged for this request.'),
    retryAfter: z
      .int()
      .optional()
      .describe('Seconds to wait before the request can succeed; only when throttled.'),
  })
  .meta({ id: 'ApiMeta' });

export type ApiMeta = z.output<typeof apiMetaSchema>;

export const apiErrorSchema = z
  .object({
    code: z
      .string()
      .describe(
        'invalid_param, invalid_api_key, account_banned, insufficient_scope, forbidden, cost_exceeds_quota_limit, not_found, no_circulation, rate_limited, internal, render_failed or unavailable.',
      ),
    message: z.string().describe('Human-readable; names the parameter at fault.'),
  })
  .meta({ id: 'ApiError' });

export const errorEnvelopeSchema = z
  .object({
    ok: z.literal(false).describe('Always false on a failure.'),
    meta: apiMetaSchema,
    error: apiErrorSchema,
  })
  .meta({ id: 'ErrorEnvelope' });

export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;

/** The success envelope around one operation's data schema. */
export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    ok: z.literal(true).describe('Always true on a success (clients of the live service test it).'),
    meta: apiMetaSchema,
    data,
    error: z.literal('').describe('Always the empty string on a success.'),
  });
}

/** The success envelope as a value (what preSerialization wraps a handler's data in). */
export function dataEnvelopeOf<T>(meta: ApiMeta, data: T) {
  return { ok: true as const, meta, data, error: '' as const };
}

/** The failure envelope as a value. */
export function errorEnvelopeOf(meta: ApiMeta, error: { code: string; message: string }) {
  return { ok: false as const, meta, error };
}

export const QUOTA_HEADERS = {
  remain: 'x-api-remain',
  cost: 'x-api-cost',
  retryAfter: 'retry-after',
} as const;

/** The meta as JSON text (what `meta` serialises to, written by hand: it is on every response). */
export function metaJson(meta: ApiMeta): string {
  return meta.retryAfter === undefined
    ? `{"remain":${meta.remain},"cost":${meta.cost}}`
    : `{"remain":${meta.remain},"cost":${meta.cost},"retryAfter":${meta.retryAfter}}`;
}

/** What comes before the data of a success envelope written as text: `{"ok":true,"meta":...,"data":`. */
export function dataEnvelopeHead(meta: ApiMeta): string {
  return `{"ok":true,"meta":${metaJson(meta)},"data":`;
}

/** What comes after the data of a success envelope written as text. */
export const DATA_ENVELOPE_TAIL = ',"error":""}';
/** DATA_ENVELOPE_TAIL as bytes (one buffer for every request). */
export const DATA_ENVELOPE_TAIL_BYTES = Buffer.from(DATA_ENVELOPE_TAIL);

/**
 * Text pieces as one UTF-8 buffer, each piece encoded straight into it: no joined string is
 * made. A page cut from a kept day is a few pieces, its items a slice of the day's text; joining
 * them first would copy that slice into a new string (two bytes a character once a station name
 * is in it) only to encode it again.
 */
export function utf8Concat(pieces: readonly string[]): Buffer {
  let total = 0;
  for (const piece of pieces) total += Buffer.byteLength(piece);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const piece of pieces) at += out.write(piece, at);
  return out;
}

/** The success envelope around data given as JSON text pieces (utf8Concat), as one buffer. */
export function dataEnvelopeOfPieces(meta: ApiMeta, data: readonly string[]): Buffer {
  return utf8Concat([dataEnvelopeHead(meta), ...data, DATA_ENVELOPE_TAIL]);
}

/**
 * `{"ok":true,"meta":...,"data":<data>,"error":""}` as one buffer, from data already written as
 * UTF-8 JSON bytes: the meta is written in front and the data copied once (no text encoded per
 * request).
 */
export function dataEnvelopeBytes(meta: ApiMeta, data: Buffer): Buffer {
  const head = dataEnvelopeHead(meta);
  const headBytes = Buffer.byteLength(head, 'latin1');
  const total = headBytes + data.length + DATA_ENVELOPE_TAIL_BYTES.length;
  const body = Buffer.allocUnsafe(total);
  body.write(head, 0, 'latin1');
  let at = headBytes;
  at += data.copy(body, at);
  DATA_ENVELOPE_TAIL_BYTES.copy(body, at);
  return body;
}
