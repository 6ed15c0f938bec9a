import { z } from 'zod';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * What a v2 server answers to GET /api/v2/records/daily (docs/api.md), as far as a puller reads
 * it: unknown fields are ignored, a missing or mistyped field we need is a schema change.
 */
const trainCode = z.object({ prefix: z.string().max(8), number: z.int().min(0) });

const item = z.object({
  id: z.int().min(1),
  serviceDay: z.int().min(0),
  timetableId: z.int().min(0).optional(),
  emuId: z.int().min(0),
  trainCode: trainCode.optional(),
  status: z.int().min(0),
});

const timetableSummary = z.object({
  startStation: z.string().optional(),
  endStation: z.string().optional(),
  startOffset: z.int().optional(),
  endOffset: z.int().optional(),
});

const page = z.object({
  serviceDay: z.int().min(0),
  cursor: z.string(),
  limit: z.int().min(1),
  nextCursor: z.string().max(64),
  items: z.array(item),
  emuCodeMappings: z.record(z.string(), z.string().max(64)).optional(),
  timetableMappings: z.record(z.string(), timetableSummary).optional(),
});

/** A record as GET /api/v2/records/changes gives it (docs/change-feed-and-webhooks.md). */
const changedRecord = z.object({
  id: z.int().min(1),
  serviceDay: z.int().min(0),
  trainCode: z.string().max(16),
  emuCode: z.string().max(64),
  status: z.int().min(0),
  firstObservedAt: z.int().optional(),
});

/** A feed cursor: `<position>.<record id>`, or "" before the first change. */
export const FEED_CURSOR = /^(\d{1,19}\.\d{1,19})?$/;

const change = z.object({
  cursor: z.string().regex(FEED_CURSOR),
  kind: z.enum(['added', 'changed', 'removed']),
  cause: z.string().max(40),
  id: z.int().min(1),
  serviceDay: z.int().min(0),
  record: changedRecord.nullable(),
});

const changesPage = z.object({
  cursor: z.string(),
  nextCursor: z.string().regex(FEED_CURSOR, 'expected "" or "<position>.<id>"'),
  more: z.boolean(),
  items: z.array(change),
});

const meta = z.object({
  remain: z.number().optional(),
  cost: z.number().optional(),
  retryAfter: z.number().min(0).optional(),
});

const envelope = z.object({
  ok: z.boolean(),
  meta: meta.optional(),
  data: z.unknown().optional(),
  error: z.union([z.literal(''), z.object({ code: z.string(), message: z.string() })]).optional(),
});

export type V2Page = z.infer<typeof page>;
export type V2Record = z.infer<typeof item>;
export type V2Envelope = z.infer<typeof envelope>;
export type V2ChangesPage = z.infer<typeof changesPage>;
export type V2Change = z.infer<typeof change>;

/** The first problem of a zod result as `field: what is wrong` (the field's path in the JSON). */
function firstIssue(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0]!;
  const where = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${where || 'body'}: ${issue.message}`;
}

/** A body that is not the envelope or page we expect: `reason` names the field. */
export class V2FormatError extends EmutrackError {
  constructor(readonly reason: string) {
    super('source_answer_invalid', reason);
  }
}

/** The envelope of an answer's text; a V2FormatError when it is not JSON or not an envelope. */
export function parseEnvelope(body: string, contentType: string | undefined): V2Envelope {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const looksHtml = /^\s*</.test(body) || /html/i.test(contentType ?? '');
    throw new V2FormatError(
      looksHtml
        ? `answer is HTML, not JSON (content-type ${contentType ?? 'none'})`
        : `answer is not JSON (content-type ${contentType ?? 'none'}, ${body.length} bytes)`,
    );
  }
  const r = envelope.safeParse(json);
  if (!r.success) throw new V2FormatError(`not a v2 envelope: ${firstIssue(r.error, '')}`);
  return r.data;
}

/** The page of a successful envelope; a V2FormatError naming the field that changed. */
export function parsePage(env: V2Envelope): V2Page {
  const r = page.safeParse(env.data);
  if (!r.success) throw new V2FormatError(`unexpected page: ${firstIssue(r.error, 'data')}`);
  return r.data;
}

/** The change-feed page of a successful envelope; a V2FormatError naming the field that changed. */
export function parseChangesPage(env: V2Envelope): V2ChangesPage {
  const r = changesPage.safeParse(env.data);
  if (!r.success) throw new V2FormatError(`unexpected page: ${firstIssue(r.error, 'data')}`);
  return r.data;
}
