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

const isInt = (x: unknown, min: number): x is number =>
  Number.isSafeInteger(x) && (x as number) >= min;
const isText = (x: unknown, max: number): x is string => typeof x === 'string' && x.length <= max;
const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
const optionalInt = (x: unknown) => x === undefined || isInt(x, -Infinity);
const optionalText = (x: unknown) => x === undefined || typeof x === 'string';

function isItem(x: unknown): boolean {
  if (!isObject(x)) return false;
  const t = x.trainCode;
  return (
    isInt(x.id, 1) &&
    isInt(x.serviceDay, 0) &&
    (x.timetableId === undefined || isInt(x.timetableId, 0)) &&
    isInt(x.emuId, 0) &&
    isInt(x.status, 0) &&
    (t === undefined || (isObject(t) && isText(t.prefix, 8) && isInt(t.number, 0)))
  );
}

function isSummary(x: unknown): boolean {
  return (
    isObject(x) &&
    optionalText(x.startStation) &&
    optionalText(x.endStation) &&
    optionalInt(x.startOffset) &&
    optionalInt(x.endOffset)
  );
}

/**
 * Whether `x` is a page the schema accepts, checked without copying it: a puller reads pages of
 * 200 records by the thousand, and zod's parse allocates the page again. Never looser than the
 * schema; anything it does not accept goes to zod, which accepts it or names the field.
 */
function isPlainPage(x: unknown): x is V2Page {
  if (!isObject(x)) return false;
  if (!isInt(x.serviceDay, 0) || typeof x.cursor !== 'string' || !isInt(x.limit, 1)) return false;
  if (!isText(x.nextCursor, 64) || !Array.isArray(x.items) || !x.items.every(isItem)) return false;
  const codes = x.emuCodeMappings;
  if (codes !== undefined && !(isObject(codes) && Object.values(codes).every((c) => isText(c, 64))))
    return false;
  const summaries = x.timetableMappings;
  return (
    summaries === undefined || (isObject(summaries) && Object.values(summaries).every(isSummary))
  );
}

/** The page of a successful envelope; a V2FormatError naming the field that changed. */
export function parsePage(env: V2Envelope): V2Page {
  if (isPlainPage(env.data)) return env.data;
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
