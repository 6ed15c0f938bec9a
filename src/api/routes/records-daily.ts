import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageCacheOf } from '../../records/page-cache.js';
import { recordsVersionKey } from '../../records/page-versions.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../time/service-day.js';
import { ApiError } from '../api-error.js';
import { dailyRecordsDataJson, recordItems } from '../daily-records-json.js';
import { dailyRecordsPage } from '../daily-records-page.js';
import { cursorParam, limitParam, serviceDateParam } from '../query-params.js';
import { dailyRecordsDataSchema } from '../schemas.js';
import type { RouteOptions } from '../services.js';
import { queryLimit, sendDataJson } from '../v2-edge.js';

/** Version reads begun before validation, by request (see preValidation below). */
const versionReads = new WeakMap<FastifyRequest, { day: number; version: Promise<number> }>();

/** The service day the raw query names, or undefined (validation will say what is wrong). */
function rawServiceDay(query: unknown): number | undefined {
  const date = (query as { date?: unknown } | undefined)?.date;
  if (typeof date !== 'string' || !/^\d{8}$/.test(date)) return undefined;
  try {
    return serviceDayFromYmd(date);
  } catch {
    return undefined;
  }
}

/** GET /api/v2/records/daily: one page of a service day's records. */
export const recordsDailyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { config, db, costs, emuCodes, timetables } = services;
  const pages = pageCacheOf(db);
  app.get(
    '/records/daily',
    {
      config: {
        v2: {
          operationId: 'GetDailyRecords',
          tag: 'Records',
          scope: 'api.records.daily.read',
          summary: 'One page of all train/EMU records of one service day',
          description: `Items are ordered by descending id. Page with \`cursor\` = the previous page's \`nextCursor\` until it is "" (the last page). Quota: ${config.QUOTA_COST_RECORDS_DAILY} per request + ${config.QUOTA_COST_RECORDS_DAILY_PER_RECORD} per returned record, rounded up; a request needs the cost of a full page at its limit available and is charged for the records it returns.`,
          cost: { perRecord: costs.recordsDaily, reserveRecords: queryLimit },
          cache: 'days',
        },
      },
      // The day's version is read while the edge checks the quota (preHandler), not after it.
      preValidation: async (request) => {
        const day = rawServiceDay(request.query);
        if (day !== undefined)
          versionReads.set(request, { day, version: pages.version(recordsVersionKey(day)) });
      },
      schema: {
        querystring: z.object({
          date: serviceDateParam('date'),
          limit: limitParam(config.RECORDS_DAILY_DEFAULT_LIMIT, config.RECORDS_DAILY_MAX_LIMIT),
          cursor: cursorParam(),
        }),
        response: { 200: dailyRecordsDataSchema },
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
      // A page is rendered once per version of its day (page-cache.ts): the build bumps it in
      // the transaction that changes the day, so a kept page is never stale.
      const early = versionReads.get(request);
      const pageKey = `records-daily:${serviceDay}:${limit}:${cursor?.text ?? ''}`;
      const page = await pages.page(
        pageKey,
        recordsVersionKey(serviceDay),
        async () => {
          const { lines, more } = await dailyRecordsPage(db, serviceDay, limit, cursor?.id);
          const items = recordItems(serviceDay, lines);
          await emuCodes.load(items.map((item) => item.emuId));
          const timetableIds = items.flatMap((item) =>
            item.timetableId === null ? [] : [item.timetableId],
          );
          if (timetableIds.length > 0) await timetables.load(timetableIds);
          const last = items[items.length - 1];
          const json = dailyRecordsDataJson(
            {
              serviceDay,
              cursor: cursor?.text ?? '',
              limit,
              nextCursor: more && last ? `${serviceDay}:${last.id}` : '',
              items,
            },
            { emuCodes, timetables },
          );
          return { body: json, records: items.length };
        },
        early?.day === serviceDay ? early.version : undefined,
      );
      // Already JSON (the 200 schema's shape, see daily-records-json.ts): sent as it is.
      return sendDataJson(request, reply, page.bytes, {
        records: page.records,
        prepared: { pageKey, depends: recordsVersionKey(serviceDay) },
        etag: page.etag,
      });
    },
  );
};
