import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  readReferenceModels,
  referenceModelsOfTrain,
} from '../../../domain/records/read-reference-models.js';
import {
  midnightOfServiceDay,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../../shared/time/service-day.js';
import {
  readTimetableCoverage,
  readTimetables,
  type StoredTimetable,
} from '../../../domain/timetables/read-timetables.js';
import { timetableInForce } from '../../../domain/timetables/timetable-lookup.js';
import { ApiError } from '../api-error.js';
import { trainCodePathParam } from '../path-params.js';
import type { RouteOptions } from '../../app-context.js';
import { trainCirculationSchema } from '../train-circulation-schema.js';
import { trainCodeOf, trainCodesOf } from '../train-codes.js';
import { referenceModelItemSchema, trainCodeSchema } from '../schemas.js';
import { quotaOf, sendDataJson } from '../v2-edge.js';

const currentStopSchema = z
  .object({
    stationNo: z.uint32().describe('Position in running order, from 1.'),
    stationName: z.string(),
    wicket: z.string().describe('"" when the timetable does not say.'),
    isStart: z.boolean(),
    isEnd: z.boolean(),
    arriveAt: z.int().optional().describe('Unix seconds; absent at the origin.'),
    departAt: z.int().optional().describe('Unix seconds; absent at the terminus.'),
    stationTrainCode: trainCodeSchema.optional(),
    distance: z.number().optional().describe('Kilometres from the origin.'),
    platformNo: z.uint32().optional(),
  })
  .meta({ id: 'CurrentTrainTimetableStop' });

export const currentTrainTimetableDataSchema = z
  .object({
    internalCode: z.string(),
    allCodes: z.array(trainCodeSchema),
    bureauCode: z.string(),
    bureauName: z.string(),
    trainDepartment: z.string(),
    passengerDepartment: z.string(),
    referenceModels: z.array(referenceModelItemSchema),
    startStation: z.string(),
    endStation: z.string(),
    startAt: z.int().describe("Unix seconds of the departure from the origin on today's run."),
    endAt: z.int().describe('Unix seconds of the arrival at the terminus (may be tomorrow).'),
    stops: z.array(currentStopSchema),
    serviceDay: z.uint32().describe("Today's service day (Shanghai), the day the times are of."),
    updatedAt: z
      .int()
      .optional()
      .describe("Unix seconds when this timetable's content was stored."),
    requestTrainCode: trainCodeSchema.optional().describe('The number asked for.'),
    trainCode: trainCodeSchema
      .optional()
      .describe("The timetable's own number (G4340 when G4337 of the run G4340/37 was asked)."),
    circulation: trainCirculationSchema.optional(),
  })
  .meta({ id: 'GetCurrentTrainTimetableData' });

const timetableStopSchema = z
  .object({
    stationNo: z.uint32(),
    stationName: z.string(),
    isStart: z.boolean(),
    isEnd: z.boolean(),
    arriveOffset: z.int().optional().describe("Seconds from the service day's midnight."),
    departOffset: z.int().optional().describe("Seconds from the service day's midnight."),
    stationTrainCode: trainCodeSchema.optional(),
  })
  .meta({ id: 'TimetableStop' });

const historicalTimetableContentSchema = z
  .object({
    timetableId: z.uint32(),
    stops: z.array(timetableStopSchema),
    startStation: z.string().optional(),
    endStation: z.string().optional(),
    startOffset: z.int().optional(),
    endOffset: z.int().optional(),
  })
  .meta({ id: 'HistoricalTimetableContent' });

const coverageSchema = z
  .object({
    coverageId: z.uint32(),
    timetableId: z.uint32(),
    serviceDayStart: z.uint32(),
    serviceDayEndExclusive: z
      .uint32()
      .describe('Exclusive end (epoch day); 0 while the coverage is open (still in force).'),
  })
  .meta({ id: 'TrainTimetableHistoryCoverage' });

export const trainTimetableHistoryDataSchema = z
  .object({
    trainCode: trainCodeSchema.optional().describe('The number asked for, normalised.'),
    items: z.array(coverageSchema).describe('Newest first (serviceDayStart descending).'),
    timetableMappings: z
      .record(z.string(), historicalTimetableContentSchema)
      .optional()
      .describe('timetableId (as a string) -> the full timetable, for every item.'),
  })
  .meta({ id: 'GetTrainTimetableHistoryData' });

type CurrentTrainTimetableData = z.output<typeof currentTrainTimetableDataSchema>;
type CurrentStop = z.output<typeof currentStopSchema>;
type HistoricalTimetableContent = z.output<typeof historicalTimetableContentSchema>;

/** A stored timetable's stops as Unix times of one service day's run. */
function currentStops(t: StoredTimetable, serviceDay: number): CurrentStop[] {
  const midnight = midnightOfServiceDay(serviceDay);
  const last = t.stops.length - 1;
  return t.stops.map((s, i) => {
    const stop: CurrentStop = {
      stationNo: s.stationNo,
      stationName: s.stationName,
      wicket: s.wicket,
      isStart: i === 0,
      isEnd: i === last,
    };
    if (s.arriveOffset !== null) stop.arriveAt = midnight + s.arriveOffset;
    if (s.departOffset !== null) stop.departAt = midnight + s.departOffset;
    const code = s.stationTrainCode === null ? undefined : trainCodeOf(s.stationTrainCode);
    if (code) stop.stationTrainCode = code;
    if (s.distance !== null) stop.distance = s.distance;
    if (s.platformNo !== null) stop.platformNo = s.platformNo;
    return stop;
  });
}

function historicalContent(t: StoredTimetable): HistoricalTimetableContent {
  const last = t.stops.length - 1;
  return {
    timetableId: t.timetableId,
    startStation: t.startStation,
    endStation: t.endStation,
    startOffset: t.startOffset,
    endOffset: t.endOffset,
    stops: t.stops.map((s, i) => {
      const code = s.stationTrainCode === null ? undefined : trainCodeOf(s.stationTrainCode);
      return {
        stationNo: s.stationNo,
        stationName: s.stationName,
        isStart: i === 0,
        isEnd: i === last,
        ...(s.arriveOffset !== null ? { arriveOffset: s.arriveOffset } : {}),
        ...(s.departOffset !== null ? { departOffset: s.departOffset } : {}),
        ...(code ? { stationTrainCode: code } : {}),
      };
    }),
  };
}

/** GET /timetable/train/{trainCode}/current and /history. */
export const timetableTrainRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { db, costs, clock } = services;
  const params = z.object({ trainCode: trainCodePathParam() });

  app.get(
    '/timetable/train/:trainCode/current',
    {
      config: {
        v2: {
          operationId: 'GetCurrentTrainTimetable',
          tag: 'Timetable',
          scope: 'api.timetable.train.current.read',
          summary: "A train's timetable in force today, with today's times",
          description: `The timetable in force on today's Shanghai service day, its times as Unix seconds of today's run (a time past midnight is tomorrow's). One number of a paired run finds the run's timetable: \`requestTrainCode\` is the number asked for, \`trainCode\` the timetable's own. 404 not_found when no timetable of the number is in force today (its history may still have some). Quota: ${costs.timetableCurrent.of()} per request.`,
          cost: { fixed: costs.timetableCurrent },
          cache: 'timetables',
        },
      },
      schema: { params, response: { 200: currentTrainTimetableDataSchema } },
    },
    async (request) => {
      const { trainCode } = request.params;
      const serviceDay = serviceDayOf(clock() / 1000);
      const inForce = await timetableInForce(db, trainCode, serviceDay);
      if (!inForce) {
        throw new ApiError(
          'not_found',
          `no timetable of ${trainCode} is in force today (service day ${serviceDay}, ${ymdOfServiceDay(serviceDay)}); see /api/v2/timetable/train/${trainCode}/history for earlier ones`,
        );
      }
      const [timetables, models, circulation] = await Promise.all([
        readTimetables(db, [inForce.timetableId]),
        readReferenceModels(db, [inForce.timetableTrainCode, trainCode]),
        services.circulations?.circulationOf({
          trainCode: inForce.timetableTrainCode,
          allCodes: inForce.allCodes,
          serviceDay,
        }),
      ]);
      const t = timetables.get(inForce.timetableId)!;
      const midnight = midnightOfServiceDay(serviceDay);
      const data: CurrentTrainTimetableData = {
        internalCode: t.internalCode,
        allCodes: trainCodesOf(t.allCodes),
        bureauCode: t.bureauCode,
        bureauName: t.bureauName,
        trainDepartment: t.trainDepartment,
        passengerDepartment: t.passengerDepartment,
        referenceModels: referenceModelsOfTrain(models, [t.trainCode, trainCode]),
        startStation: t.startStation,
        endStation: t.endStation,
        startAt: midnight + t.startOffset,
        endAt: midnight + t.endOffset,
        stops: currentStops(t, serviceDay),
        serviceDay,
        updatedAt: t.storedAt,
      };
      const requested = trainCodeOf(trainCode);
      if (requested) data.requestTrainCode = requested;
      const resolved = trainCodeOf(t.trainCode);
      if (resolved) data.trainCode = resolved;
      if (circulation) data.circulation = circulation;
      return data;
    },
  );

  app.get(
    '/timetable/train/:trainCode/history',
    {
      config: {
        v2: {
          operationId: 'GetTrainTimetableHistory',
          tag: 'Timetable',
          scope: 'api.timetable.train.history.read',
          summary: "A train number's timetables and the service days each was in force",
          description: `Every coverage of the number, newest first: the timetable (\`timetableId\`) in force from \`serviceDayStart\` up to, not including, \`serviceDayEndExclusive\`; the open coverage (in force until a new version is declared) has \`serviceDayEndExclusive\` 0. A return to an earlier timetable is a new coverage with the earlier timetableId. \`timetableMappings\` holds each timetable in full. 404 not_found when the number has no timetable. Quota: ${costs.timetableHistory.of()} per request + ${services.config.QUOTA_COST_TIMETABLE_HISTORY_PER_RECORD} per coverage, rounded up.`,
          // Charged in the handler once the coverages are counted (base + per coverage).
          cost: { inHandler: true },
          cache: 'timetables',
        },
      },
      schema: { params, response: { 200: trainTimetableHistoryDataSchema } },
    },
    async (request, reply) => {
      const { trainCode } = request.params;
      // Rendered once per change of timetable coverage (data version 'timetables', page-cache.ts).
      const page = await services.pages.page(
        `timetable-history:${trainCode}`,
        { name: 'timetables' },
        async () => {
          const coverage = await readTimetableCoverage(db, trainCode);
          if (coverage.length === 0) {
            throw new ApiError('not_found', `no timetable of ${trainCode} is known`);
          }
          const timetables = await readTimetables(
            db,
            coverage.map((c) => c.timetableId),
          );
          const timetableMappings: Record<string, HistoricalTimetableContent> = {};
          for (const t of timetables.values())
            timetableMappings[t.timetableId] = historicalContent(t);
          const requested = trainCodeOf(trainCode);
          const data = {
            ...(requested ? { trainCode: requested } : {}),
            items: coverage.map((c) => ({
              coverageId: c.coverageId,
              timetableId: c.timetableId,
              serviceDayStart: c.serviceDayStart,
              serviceDayEndExclusive: c.serviceDayEndExclusive ?? 0,
            })),
            timetableMappings,
          };
          return { body: JSON.stringify(data), records: coverage.length };
        },
      );
      await quotaOf(request).charge(costs.timetableHistory.of(page.records));
      return sendDataJson(request, reply, page.body, { etag: page.etag });
    },
  );
};
