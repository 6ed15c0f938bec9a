import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  ChangeCursorExpiredError,
  ChangeCursorInvalidError,
  formatChangeCursor,
  parseChangeCursor,
  readRecordChanges,
  type RecordChange,
} from '../../../domain/records/record-changes.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { ApiError } from '../api-error.js';
import { limitParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';
import { queryLimit } from '../v2-edge.js';

const changedRecordSchema = z
  .object({
    id: z.number().int(),
    serviceDay: z.number().int(),
    date: z.string(),
    trainCode: z.string(),
    emuId: z.number().int(),
    emuCode: z.string(),
    status: z.number().int(),
    timetableId: z.number().int().nullable(),
    support: z.number().int(),
    sources: z.array(z.string()),
    firstObservedAt: z.number().int().describe('Unix seconds of the first sighting counted.'),
    lastObservedAt: z.number().int().describe('Unix seconds of the last sighting counted.'),
  })
  .meta({ id: 'ChangedDailyRecord' });

const recordChangeSchema = z
  .object({
    cursor: z.string().describe("This change's place in the feed: read on from it to skip it."),
    kind: z.enum(['added', 'changed', 'removed']),
    cause: z
      .string()
      .describe(
        "What wrote the change: 'build', 'late-data' (a stale day rebuilt after late sightings or timetables), 'correction'.",
      ),
    id: z.number().int().describe('The record id (stable across rebuilds).'),
    serviceDay: z.number().int(),
    date: z.string().describe('The service day as YYYYMMDD.'),
    key: z
      .object({ trainCode: z.string(), emuId: z.number().int(), emuCode: z.string() })
      .describe("The record's key: one record per service day, train and EMU."),
    record: changedRecordSchema
      .nullable()
      .describe('The record as this change left it; null when it was removed.'),
    changedAt: z.string().describe('When the writing transaction began (ISO 8601).'),
  })
  .meta({ id: 'DailyRecordChange' });

export const recordChangesDataSchema = z
  .object({
    cursor: z.string(),
    limit: z.number().int(),
    nextCursor: z
      .string()
      .describe('Send it as `cursor` next time; equal to `cursor` when nothing was new.'),
    more: z.boolean().describe('Whether more changes were already waiting after this page.'),
    items: z.array(recordChangeSchema),
  })
  .meta({ id: 'GetDailyRecordChangesData' });

/** GET /api/v2/records/changes: every change to daily records, in commit order. */
export const recordChangesRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { config, db, costs, emuCodes } = services;
  app.get(
    '/records/changes',
    {
      config: {
        v2: {
          operationId: 'GetDailyRecordChanges',
          tag: 'Records',
          scope: 'api.records.changes.read',
          summary: 'Every change to daily records since a cursor, in commit order',
          description: `Added, changed and removed daily records, oldest first, each with the record as the change left it (or its key when removed), its service day and its cause. Start with an empty \`cursor\` (or resynchronise from GET /records/daily and start from the \`nextCursor\` a 410 gives), then send each answer's \`nextCursor\`: a cursor never skips or repeats a change, even while builds commit concurrently. Changes are kept ${config.RECORD_CHANGES_RETENTION_DAYS} days; an older cursor is answered 410 \`cursor_expired\`. Quota: ${config.QUOTA_COST_RECORD_CHANGES} per request + ${config.QUOTA_COST_RECORD_CHANGES_PER_RECORD} per change returned, rounded up; a request needs the cost of a full page at its limit available.`,
          cost: { perRecord: costs.recordChanges, reserveRecords: queryLimit },
        },
      },
      schema: {
        querystring: z.object({
          cursor: z
            .string({ error: () => 'cursor must be given once' })
            .optional()
            .meta({
              description: 'Empty or absent: from the first change kept; else a nextCursor.',
              examples: ['', '1042.88120'],
            }),
          limit: limitParam(config.RECORD_CHANGES_DEFAULT_LIMIT, config.RECORD_CHANGES_MAX_LIMIT),
        }),
        response: { 200: recordChangesDataSchema },
      },
    },
    async (request) => {
      const { cursor: text = '', limit } = request.query;
      let after;
      try {
        after = parseChangeCursor(text);
      } catch (err) {
        if (err instanceof ChangeCursorInvalidError)
          throw new ApiError('invalid_param', err.message);
        throw err;
      }
      let page;
      try {
        page = await readRecordChanges(db, after, limit);
      } catch (err) {
        if (err instanceof ChangeCursorExpiredError)
          throw new ApiError('cursor_expired', err.message);
        throw err;
      }
      await emuCodes.load(page.changes.map((c) => c.emuId));
      return {
        cursor: text,
        limit,
        nextCursor: formatChangeCursor(page.next),
        more: page.more,
        items: page.changes.map((c) => changeItem(c, emuCodes.code(c.emuId) ?? '')),
      };
    },
  );
};

function changeItem(c: RecordChange, emuCode: string) {
  const date = ymdOfServiceDay(c.serviceDay);
  return {
    cursor: formatChangeCursor(c.cursor),
    kind: c.kind,
    cause: c.cause,
    id: c.recordId,
    serviceDay: c.serviceDay,
    date,
    key: { trainCode: c.trainCode, emuId: c.emuId, emuCode },
    record: c.record && {
      id: c.recordId,
      serviceDay: c.serviceDay,
      date,
      trainCode: c.trainCode,
      emuId: c.emuId,
      emuCode,
      ...c.record,
    },
    changedAt: c.changedAt.toISOString(),
  };
}
