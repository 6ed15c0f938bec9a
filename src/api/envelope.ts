import { z } from 'zod';

/**
 * The v2 envelope: success `{meta, data}`, failure `{meta, error: {code, message}}`. Every
 * /api/v2 response carries it (the CSV download and 304 carry the same figures as headers only).
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
        'invalid_param, not_found, no_circulation, rate_limited, internal, render_failed or unavailable.',
      ),
    message: z.string().describe('Human-readable; names the parameter at fault.'),
  })
  .meta({ id: 'ApiError' });

export const errorEnvelopeSchema = z
  .object({ meta: apiMetaSchema, error: apiErrorSchema })
  .meta({ id: 'ErrorEnvelope' });

export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;

/** The success envelope around one operation's data schema. */
export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ meta: apiMetaSchema, data });
}

/** Response schemas shared by every v2 operation, keyed by status. */
export const errorResponses = {
  400: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
  429: errorEnvelopeSchema,
  500: errorEnvelopeSchema,
  503: errorEnvelopeSchema,
} as const;

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

const DATA_AFTER_META = Buffer.from(',"data":');
const ENVELOPE_END = Buffer.from('}');

/**
 * `{"meta":...,"data":<data>}` as one buffer, from data already written as UTF-8 JSON bytes: the
 * meta is written in front and the data copied once (no text encoded per request).
 */
export function dataEnvelopeBytes(meta: ApiMeta, data: Buffer): Buffer {
  const head = `{"meta":${metaJson(meta)}`;
  const headBytes = Buffer.byteLength(head, 'latin1');
  const total = headBytes + DATA_AFTER_META.length + data.length + ENVELOPE_END.length;
  const body = Buffer.allocUnsafe(total);
  body.write(head, 0, 'latin1');
  let at = headBytes;
  at += DATA_AFTER_META.copy(body, at);
  at += data.copy(body, at);
  ENVELOPE_END.copy(body, at);
  return body;
}
