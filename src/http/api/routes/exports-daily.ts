import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  dailyExportIndex,
  getDailyExport,
  getDailyExportHead,
} from '../../../domain/exports/daily-export-csv.js';
import { ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { ApiError } from '../api-error.js';
import { cacheControl, CACHE_SECONDS, etagMatches, NOT_MODIFIED_COST } from '../http-caching.js';
import { booleanParam, serviceDateParam, wholeNumberParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';
import { callerOf, quotaOf, sendDataJson } from '../v2-edge.js';

export const dailyExportIndexDataSchema = z
  .object({
    selectedYear: z.uint32().describe('0 when there are no exports at all.'),
    selectedMonth: z.uint32(),
    availableYears: z.array(z.uint32()),
    availableMonths: z.array(z.uint32()).describe('Months of selectedYear that have exports.'),
    items: z
      .array(z.object({ serviceDay: z.uint32() }).meta({ id: 'DailyExportIndexItem' }))
      .describe('The days of the selected month that have exports, ascending.'),
  })
  .meta({ id: 'GetDailyExportIndexData' });

export const dailyExportDataSchema = z
  .object({
    serviceDay: z.uint32(),
    total: z.uint32().describe('Rows in the CSV (records of the day).'),
    content: z.base64().describe('The CSV file, base64.'),
  })
  .meta({ id: 'GetDailyExportData' });

const EXPORTS_SCOPE = 'api.exports.daily.read';

export const exportsDailyRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { db, costs } = services;

  app.get(
    '/exports/daily',
    {
      config: {
        v2: {
          operationId: 'GetDailyExportIndex',
          tag: 'Exports',
          scope: EXPORTS_SCOPE,
          summary: 'Lists the days of one month that have CSV exports',
          description: `Give year and month together, or neither for the latest month that has exports. Quota: ${costs.exportIndex.of()} per request.`,
          cost: { fixed: costs.exportIndex },
          cache: 'days',
        },
      },
      schema: {
        querystring: z.object({
          year: wholeNumberParam('year', 1, 9999),
          month: wholeNumberParam('month', 1, 12),
        }),
        response: { 200: dailyExportIndexDataSchema },
      },
    },
    async (request, reply) => {
      const { year, month } = request.query;
      if ((year === undefined) !== (month === undefined)) {
        const missing = year === undefined ? 'year' : 'month';
        throw new ApiError(
          'invalid_param',
          `${missing} is required when ${missing === 'year' ? 'month' : 'year'} is given (or omit both for the latest month)`,
        );
      }
      // Rendered once per change of the days listed (data version 'exports', page-cache.ts).
      const page = await services.pages.page(
        `exports-index:${year ?? ''}:${month ?? ''}`,
        { name: 'exports' },
        async () => {
          const index = await dailyExportIndex(db, year, month);
          const data = {
            selectedYear: index.selectedYear,
            selectedMonth: index.selectedMonth,
            availableYears: index.availableYears,
            availableMonths: index.availableMonths,
            items: index.serviceDays.map((serviceDay) => ({ serviceDay })),
          };
          return { body: JSON.stringify(data), records: data.items.length };
        },
      );
      return sendDataJson(request, reply, page.body, { etag: page.etag });
    },
  );

  app.get(
    '/exports/daily/:date',
    {
      config: {
        v2: {
          operationId: 'GetDailyExport',
          tag: 'Exports',
          scope: EXPORTS_SCOPE,
          summary: "Downloads one day's CSV export",
          description: `JSON with the CSV in base64 by default; \`binary=true\` sends the CSV itself (text/csv, as an attachment YYYYMMDD.csv). Only days that have been built have exports (404 otherwise). An export changes when late sightings or corrections rebuild its day, so it is cached for a minute at most: its strong ETag is the file's SHA-256 (the JSON's carries a suffix), Cache-Control max-age is ${CACHE_SECONDS.days} s, and If-None-Match answers 304 for ${Math.min(NOT_MODIFIED_COST, costs.exportDay.of())}. Quota: ${costs.exportDay.of()} per download (a caller whose bucket is smaller is charged its whole bucket).`,
          // Charged in the handler: a 304 (If-None-Match) costs NOT_MODIFIED_COST.
          cost: { inHandler: true },
          cache: 'days',
        },
      },
      schema: {
        params: z.object({ date: serviceDateParam('date') }),
        querystring: z.object({ binary: booleanParam('binary') }),
        response: { 200: dailyExportDataSchema },
      },
    },
    async (request, reply) => {
      const serviceDay = request.params.date;
      const { binary } = request.query;
      const ymd = ymdOfServiceDay(serviceDay);
      const notFound = () => new ApiError('not_found', `no export for ${ymd}`);
      const head = await getDailyExportHead(db, serviceDay);
      if (!head) throw notFound();

      // Strong tags: the CSV's own digest, and the JSON (another representation) with a suffix.
      const etagOf = (sha256: string) => (binary ? `"${sha256}"` : `"${sha256}.json"`);
      reply.header(
        'cache-control',
        cacheControl(CACHE_SECONDS.days, callerOf(request).kind === 'anonymous'),
      );
      if (etagMatches(request.headers['if-none-match'], etagOf(head.sha256))) {
        await quotaOf(request).charge(Math.min(NOT_MODIFIED_COST, costs.exportDay.of()));
        reply.header('etag', etagOf(head.sha256));
        // 304 and the CSV are not envelopes: sent past the typed (JSON) response schemas.
        return (reply as FastifyReply).code(304).send();
      }

      await quotaOf(request).charge(costs.exportDay.of());
      const stored = await getDailyExport(db, serviceDay);
      if (!stored) throw notFound();
      reply.header('etag', etagOf(stored.sha256));
      const { content } = stored;
      if (binary) {
        reply.header('content-type', 'text/csv; charset=utf-8');
        reply.header('content-disposition', `attachment; filename=${ymd}.csv`);
        return (reply as FastifyReply).send(content);
      }
      return { serviceDay, total: stored.rowCount, content: content.toString('base64') };
    },
  );
};
