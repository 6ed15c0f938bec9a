import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import { ymdOfServiceDay } from '../../time/service-day.js';
import { ApiError } from '../api-error.js';
import { dailyRecordsEnvelopeJson, recordItems } from '../daily-records-json.js';
import { dailyRecordsPage } from '../daily-records-page.js';
import { dataEnvelope, errorResponses } from '../envelope.js';
import { v2Operation } from '../openapi.js';
import { cursorParam, limitParam, serviceDateParam } from '../query-params.js';
import type { ApiServices, V2App } from '../services.js';

export const trainCodeSchema = z
  .object({
    prefix: z.string().describe('Letter prefix of the train number ("" when it has none).'),
    number: z.uint32(),
  })
  .meta({ id: 'TrainCode' });

export const dailyRecordItemSchema = z
  .object({
    id: z.uint32(),
    serviceDay: z.uint32().describe('Days since 1970-01-01, counted in Shanghai time.'),
    timetableId: z.uint32().optional(),
    emuId: z.uint32().describe('Look the code up in emuCodeMappings.'),
    trainCode: trainCodeSchema.optional(),
    status: z
      .uint32()
      .describe(
        'Bit field: 0x01 confirmed; 0x06 formation (0x00 single unit, 0x02 coupled with position unknown, 0x04 coupled first unit, 0x06 coupled second unit); 0x08 replaced a failed unit; 0x10 hot spare.',
      ),
  })
  .meta({ id: 'DailyRecordItem' });

export const historicalTimetableSummarySchema = z
  .object({
    startStation: z.string().optional(),
    endStation: z.string().optional(),
    startOffset: z.int().optional(),
    endOffset: z.int().optional(),
  })
  .meta({ id: 'HistoricalTimetableSummary' });

export const dailyRecordsDataSchema = z
  .object({
    serviceDay: z.uint32(),
    cursor: z.string().describe('The cursor that was requested; "" on the first page.'),
    limit: z.uint32().describe('The page size used.'),
    nextCursor: z
      .string()
      .describe(
        'Send as `cursor` for the next page: the last item\'s "<serviceDay>:<id>" while more records follow, "" on the last page.',
      ),
    items: z.array(dailyRecordItemSchema).describe('Descending id.'),
    emuCodeMappings: z
      .record(z.string(), z.string())
      .optional()
      .describe('emuId (as a string) -> canonical EMU code, for the EMUs on this page.'),
    timetableMappings: z.record(z.string(), historicalTimetableSummarySchema).optional(),
  })
  .meta({ id: 'GetDailyRecordsData' });

/** GET /api/v2/records/daily: one page of a service day's records. */
export function registerRecordsDaily(app: V2App, services: ApiServices): void {
  const { config, db, gate, costs, emuCodes, timetables } = services;
  app.get(
    '/api/v2/records/daily',
    {
      schema: {
        ...v2Operation({
          operationId: 'GetDailyRecords',
          tag: 'Records',
          scope: 'api.records.daily.read',
          summary: 'One page of all train/EMU records of one service day',
          description: `Items are ordered by descending id. Page with \`cursor\` = the previous page's \`nextCursor\` until it is "" (the last page). Quota: ${config.QUOTA_COST_RECORDS_DAILY} per request + ${config.QUOTA_COST_RECORDS_DAILY_PER_RECORD} per returned record, rounded up; a request needs the cost of a full page at its limit available and is charged for the records it returns.`,
        }),
        querystring: z.object({
          date: serviceDateParam('date'),
          limit: limitParam(config.RECORDS_DAILY_DEFAULT_LIMIT, config.RECORDS_DAILY_MAX_LIMIT),
          cursor: cursorParam(),
        }),
        response: { 200: dataEnvelope(dailyRecordsDataSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { date: serviceDay, limit, cursor } = request.query;
      if (cursor && cursor.serviceDay !== serviceDay) {
        throw new ApiError(
          'invalid_param',
          `cursor ${JSON.stringify(cursor.text)} belongs to service day ${cursor.serviceDay}, not to date ${ymdOfServiceDay(serviceDay)} (service day ${serviceDay})`,
        );
      }
      await gate.charge(request, costs.recordsDaily.of(limit));
      const { lines, more } = await dailyRecordsPage(db, serviceDay, limit, cursor?.id);
      const items = recordItems(serviceDay, lines);
      await emuCodes.load(items.map((item) => item.emuId));
      const timetableIds = items.flatMap((item) =>
        item.timetableId === null ? [] : [item.timetableId],
      );
      if (timetableIds.length > 0) await timetables.load(timetableIds);
      await gate.settle(request, costs.recordsDaily.of(items.length));
      const last = items[items.length - 1];
      const meta = await gate.meta(request);
      gate.setHeaders(reply, meta);
      const json = dailyRecordsEnvelopeJson(
        meta,
        {
          serviceDay,
          cursor: cursor?.text ?? '',
          limit,
          nextCursor: more && last ? `${serviceDay}:${last.id}` : '',
          items,
        },
        { emuCodes, timetables },
      );
      // Already JSON (the 200 schema's shape, see daily-records-json.ts): sent as it is.
      reply.header('content-type', 'application/json; charset=utf-8');
      return (reply as FastifyReply).send(json);
    },
  );
}
