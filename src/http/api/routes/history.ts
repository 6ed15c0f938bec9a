import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import type { HistoryPageOptions } from '../../../domain/history/read-history.js';
import { HISTORIES_VERSION } from '../../../shared/cache/data-versions.js';
import { serviceDayOf } from '../../../shared/time/service-day.js';
import { ApiError } from '../api-error.js';
import {
  emuHistoryDataJson,
  trainHistoryDataJson,
  type HistoryPageQuery,
} from '../history-json.js';
import { emuCodePathParam, trainCodePathParam, unixSecondsParam } from '../path-params.js';
import { cursorParam, limitParam, type PageCursor } from '../query-params.js';
import { isKnownTrain } from '../../../domain/trains/known-train.js';
import type { ApiServices, RouteOptions } from '../../app-context.js';
import {
  historicalTimetableSummarySchema,
  recordStatusSchema as statusSchema,
  trainCodeSchema,
} from '../schemas.js';
import { queryLimit, sendDataJson } from '../v2-edge.js';

const trainHistoryRecordSchema = z
  .object({
    id: z.uint32(),
    serviceDay: z.uint32(),
    emuId: z.uint32().describe('Look the code up in emuCodeMappings.'),
    timetableId: z.uint32().optional(),
    status: statusSchema,
    sources: z
      .array(z.string())
      .optional()
      .describe(
        'The distinct sources of the sightings that made the record ("seen by"); an emutrack addition: the live service does not send it.',
      ),
  })
  .meta({ id: 'TrainHistoryRecord' });

const emuHistoryRecordSchema = z
  .object({
    id: z.uint32(),
    serviceDay: z.uint32(),
    timetableId: z.uint32().optional(),
    trainCode: trainCodeSchema.optional(),
    status: statusSchema,
    sources: z
      .array(z.string())
      .optional()
      .describe(
        'The distinct sources of the sightings that made the record ("seen by"); an emutrack addition: the live service does not send it.',
      ),
  })
  .meta({ id: 'EmuHistoryRecord' });

const pageFields = {
  start: z.int().optional().describe('The `start` that was requested.'),
  end: z.int().optional().describe('The `end` that was requested.'),
  cursor: z.string().describe('The cursor that was requested; "" on the first page.'),
  limit: z.uint32().describe('The page size used.'),
  nextCursor: z
    .string()
    .describe(
      'Send as `cursor` (with the same start and end) for the next page: the last item\'s "<serviceDay>:<id>" while more records follow, "" on the last page.',
    ),
  emuCodeMappings: z
    .record(z.string(), z.string())
    .optional()
    .describe('emuId (as a string) -> canonical EMU code.'),
  timetableMappings: z.record(z.string(), historicalTimetableSummarySchema).optional(),
};

export const trainHistoryDataSchema = z
  .object({
    trainCode: trainCodeSchema.optional().describe('The number asked for, normalised.'),
    ...pageFields,
    items: z
      .array(trainHistoryRecordSchema)
      .describe('Newest first: service day, then id, descending.'),
  })
  .meta({ id: 'GetTrainHistoryData' });

export const emuHistoryDataSchema = z
  .object({
    emuId: z.uint32(),
    ...pageFields,
    items: z
      .array(emuHistoryRecordSchema)
      .describe('Newest first: service day, then id, descending.'),
  })
  .meta({ id: 'GetEmuHistoryData' });

const RANGE_DOC =
  '`start` and `end` (Unix seconds, both optional) bound the range inclusively by service day: a record of service day D is in it when D lies between the Shanghai service day of `start` and that of `end` (so any second of a day, its midnight included, takes in the whole day).';

function historyQuery(config: ApiServices['config']) {
  return z.object({
    start: unixSecondsParam('start', 'Range start, Unix seconds (inclusive, by service day).'),
    end: unixSecondsParam('end', 'Range end, Unix seconds (inclusive, by service day).'),
    limit: limitParam(config.PAGE_DEFAULT_LIMIT, config.PAGE_MAX_LIMIT),
    cursor: cursorParam(),
  });
}

/** The page options of a history request; throws invalid_param for start after end. */
function pageOptions(query: {
  start?: number;
  end?: number;
  limit: number;
  cursor?: PageCursor;
}): HistoryPageOptions {
  const { start, end, limit, cursor } = query;
  if (start !== undefined && end !== undefined && start > end) {
    throw new ApiError('invalid_param', `start (${start}) must not be after end (${end})`);
  }
  return {
    limit,
    ...(start !== undefined ? { fromDay: serviceDayOf(start) } : {}),
    ...(end !== undefined ? { toDay: serviceDayOf(end) } : {}),
    ...(cursor ? { before: { serviceDay: cursor.serviceDay, id: cursor.id } } : {}),
  };
}

/** What a history page shows besides its key: range as asked, limit, cursor. */
function pageKeyOf(query: HistoryPageQuery): string {
  return `${query.start ?? ''}:${query.end ?? ''}:${query.limit}:${query.cursor?.text ?? ''}`;
}

/**
 * GET /history/train/{trainCode} and /history/emu/{emuCode}. A page is rendered once per
 * version of the histories (page-cache.ts, kept when asked for again), from the history read
 * once per version (kept-histories.ts); its ETag names that version.
 */
export const historyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { config, db, costs, pages, histories, emuAliases: emus } = services;
  const rangeAndPaging = `${RANGE_DOC} Page with \`cursor\` = the previous page's \`nextCursor\` until it is "".`;

  app.get(
    '/history/train/:trainCode',
    {
      config: {
        v2: {
          operationId: 'GetTrainHistory',
          tag: 'History',
          scope: 'api.history.train.read',
          summary: 'Which EMUs ran a train number, newest first',
          description: `The daily records of one train number (case-insensitive), newest first. ${rangeAndPaging} 404 not_found when the number has neither a record nor a timetable. Quota: ${config.QUOTA_COST_TRAIN_HISTORY_PER_RECORD} per returned record, rounded up; a request needs the cost of a full page at its limit available.`,
          cost: { perRecord: costs.trainHistory, reserveRecords: queryLimit },
          cache: 'days',
        },
      },
      schema: {
        params: z.object({ trainCode: trainCodePathParam() }),
        querystring: historyQuery(config),
        response: { 200: trainHistoryDataSchema },
      },
    },
    async (request, reply) => {
      const { trainCode } = request.params;
      const options = pageOptions(request.query);
      const page = await pages.page(
        `history-train:${trainCode}:${pageKeyOf(request.query)}`,
        HISTORIES_VERSION,
        async (version) => {
          const found = await histories.trainPage(trainCode, version, options);
          // Written as JSON directly (history-json.ts: the 200 schema's bytes).
          const body = await trainHistoryDataJson(services, { trainCode, ...found }, request.query);
          return { body, records: found.records.length };
        },
        { keep: 'when-asked-again' },
      );
      // Whether a number is known moves with timetables too: asked each time, never kept.
      if (page.records === 0 && !(await isKnownTrain(db, trainCode))) {
        throw new ApiError('not_found', `no record and no timetable of ${trainCode} is known`);
      }
      return sendDataJson(request, reply, page.body, { records: page.records, etag: page.etag });
    },
  );

  app.get(
    '/history/emu/:emuCode',
    {
      config: {
        v2: {
          operationId: 'GetEmuHistory',
          tag: 'History',
          scope: 'api.history.emu.read',
          summary: 'Which train numbers an EMU ran, newest first',
          description: `The daily records of one EMU, named by its canonical code or any alias (case-sensitive); \`emuCodeMappings\` gives its canonical code. ${rangeAndPaging} 404 not_found for an unknown code. Quota: ${config.QUOTA_COST_EMU_HISTORY_PER_RECORD} per returned record, rounded up; a request needs the cost of a full page at its limit available.`,
          cost: { perRecord: costs.emuHistory, reserveRecords: queryLimit },
          cache: 'days',
        },
      },
      schema: {
        params: z.object({ emuCode: emuCodePathParam() }),
        querystring: historyQuery(config),
        response: { 200: emuHistoryDataSchema },
      },
    },
    async (request, reply) => {
      const { emuCode } = request.params;
      const options = pageOptions(request.query);
      // The page's query (or the whole history's) follows a merge itself.
      const named = await emus.findUnmerged(emuCode);
      if (named === undefined) throw new ApiError('not_found', `no EMU is known as ${emuCode}`);
      const page = await pages.page(
        `history-emu:${named}:${pageKeyOf(request.query)}`,
        HISTORIES_VERSION,
        async (version) => {
          const found = await histories.emuPage(named, version, options);
          const body = await emuHistoryDataJson(services, found, request.query);
          return { body, records: found.records.length };
        },
        { keep: 'when-asked-again' },
      );
      return sendDataJson(request, reply, page.body, { records: page.records, etag: page.etag });
    },
  );
};
