import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { recordsVersion } from '../../../shared/cache/data-versions.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { ApiError } from '../api-error.js';
import { dailyRecordsDataJson } from '../daily-records-json.js';
import { cursorParam, limitParam, serviceDateParam } from '../query-params.js';
import { dailyRecordsDataSchema } from '../schemas.js';
import type { RouteOptions } from '../../app-context.js';
import { queryLimit, sendDataJson } from '../v2-edge.js';

/** GET /api/v2/records/daily: one page of a service day's records. */
export const recordsDailyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { config, costs, pages } = services;
  const days = services.dailyRecords;
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
      // A page is rendered once per version of its day (page-cache.ts), from the day's records
      // read once per version (daily-record-days.ts): the build moves the version in the
      // transaction that changes the day, so neither a kept page nor a kept day is ever stale.
      const pageKey = `records-daily:${serviceDay}:${limit}:${cursor?.text ?? ''}`;
      const page = await pages.page(
        pageKey,
        recordsVersion(serviceDay),
        async (version) => {
          const { items, from, itemsJson, more } = await days.page(
            serviceDay,
            version,
            limit,
            cursor?.id,
          );
          const last = items[items.length - 1];
          const json = dailyRecordsDataJson({
            serviceDay,
            cursor: cursor?.text ?? '',
            limit,
            nextCursor: more && last ? `${serviceDay}:${last.id}` : '',
            items,
            from,
            itemsJson,
          });
          return { body: json, records: items.length };
        },
        // Any cursor and any limit make a page: one asked for once (a client paging from a
        // random cursor) is sliced from the kept day again rather than kept.
        { keep: 'when-asked-again' },
      );
      // Already JSON (the 200 schema's shape, see daily-records-json.ts): sent as it is.
      return sendDataJson(request, reply, page.body, {
        records: page.records,
        etag: page.etag,
      });
    },
  );
};
