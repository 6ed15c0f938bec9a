import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { referenceModelsOfTrain } from '../../../domain/records/read-reference-models.js';
import { midnightOfServiceDay, serviceDayOf } from '../../../shared/time/service-day.js';
import {
  StationCursorError,
  stationBoardPage,
  stationBoardVersions,
  stationKnown,
} from '../../../domain/timetables/station-board.js';
import { ApiError } from '../api-error.js';
import { stationNamePathParam } from '../path-params.js';
import { cursorParam, limitParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';
import { trainCodeOf, trainCodesOf } from '../train-codes.js';
import { referenceModelItemSchema, trainCodeSchema } from '../schemas.js';
import { queryLimit } from '../v2-edge.js';

const stationTimetableRecordSchema = z
  .object({
    allCodes: z.array(trainCodeSchema),
    startStation: z.string(),
    endStation: z.string(),
    referenceModels: z.array(referenceModelItemSchema),
    trainCode: trainCodeSchema
      .optional()
      .describe('The number the train carries at this station (of a paired run: the one here).'),
    arriveAt: z.int().optional().describe('Unix seconds; absent where the train starts.'),
    departAt: z.int().optional().describe('Unix seconds; absent where the train ends.'),
    platformNo: z.uint32().optional(),
    updatedAt: z.int().optional().describe("Unix seconds when the timetable's content was stored."),
  })
  .meta({ id: 'StationTimetableRecord' });

export const stationTimetableDataSchema = z
  .object({
    stationName: z.string(),
    cursor: z.string().describe('The cursor that was requested; "" on the first page.'),
    limit: z.uint32().describe('The page size used.'),
    nextCursor: z
      .string()
      .describe(
        'Send as `cursor` for the next page: "<serviceDay>:<timetableId>" of the last item while more trains follow, "" on the last page.',
      ),
    items: z
      .array(stationTimetableRecordSchema)
      .describe('By time at the station: arrival, or departure where the train starts.'),
  })
  .meta({ id: 'GetStationTimetableData' });

type StationTimetableRecord = z.output<typeof stationTimetableRecordSchema>;

// Cursor ids name timetables (integer ids).
const MAX_TIMETABLE_ID = 2_147_483_647;

/** GET /timetable/station/{stationName}: today's trains at a station, paged. */
export const timetableStationRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { config, db, costs, clock } = services;
  const boards = services.stationBoards;
  const referenceModels = services.referenceModels;
  app.get(
    '/timetable/station/:stationName',
    {
      config: {
        v2: {
          operationId: 'GetStationTimetable',
          tag: 'Timetable',
          scope: 'api.timetable.station.read',
          summary: 'Every train stopping at a station today, by time',
          description: `The trains whose timetable in force on today's Shanghai service day stops at the station (exact name), one item per train (a paired run is one item; \`trainCode\` is the number it carries here), ordered by arrival, a train starting here by its departure; times are Unix seconds of today's runs (past midnight: tomorrow). Page with \`cursor\` = the previous page's \`nextCursor\` ("<serviceDay>:<timetableId>" of the last item) until it is "". A cursor keeps its day, so a board paged across midnight finishes the day it began; a cursor of an older day is refused. 404 not_found when no timetable stops at the station. Quota: ${config.QUOTA_COST_STATION_TIMETABLE_PER_RECORD} per returned train, rounded up; a request needs the cost of a full page at its limit available.`,
          cost: { perRecord: costs.stationTimetable, reserveRecords: queryLimit },
          cache: 'timetables',
        },
      },
      schema: {
        params: z.object({ stationName: stationNamePathParam() }),
        querystring: z.object({
          limit: limitParam(config.PAGE_DEFAULT_LIMIT, config.PAGE_MAX_LIMIT),
          cursor: cursorParam(),
        }),
        response: { 200: stationTimetableDataSchema },
      },
    },
    async (request) => {
      const { stationName } = request.params;
      const { limit, cursor } = request.query;
      const today = serviceDayOf(clock() / 1000);
      let serviceDay = today;
      if (cursor) {
        if (cursor.serviceDay !== today && cursor.serviceDay !== today - 1) {
          throw new ApiError(
            'invalid_param',
            `cursor ${JSON.stringify(cursor.text)} is of service day ${cursor.serviceDay}; the board is of today (${today}): start again without cursor`,
          );
        }
        if (cursor.id > MAX_TIMETABLE_ID) {
          throw new ApiError(
            'invalid_param',
            `cursor ${JSON.stringify(cursor.text)}: no such train`,
          );
        }
        serviceDay = cursor.serviceDay;
      }
      // Both versions first, in one statement: the board and the models are then never older
      // than what had committed when the request began.
      const versions = await stationBoardVersions(db);
      let page;
      try {
        const board = await boards.board(stationName, serviceDay, versions.timetables);
        page = await stationBoardPage(db, board, stationName, limit, cursor?.id);
      } catch (err) {
        if (!(err instanceof StationCursorError)) throw err;
        throw new ApiError(
          'invalid_param',
          `cursor ${JSON.stringify(cursor!.text)} does not name a train of ${stationName}'s board: send the nextCursor of the previous page unchanged`,
        );
      }
      const { entries, more } = page;
      if (entries.length === 0 && !(await stationKnown(db, stationName))) {
        throw new ApiError('not_found', `no timetable stops at station ${stationName}`);
      }
      const models = await referenceModels.models(
        entries.flatMap((e) => [e.trainCode, ...e.allCodes]),
        versions.referenceModels,
      );
      const midnight = midnightOfServiceDay(serviceDay);
      const items = entries.map((e) => {
        const item: StationTimetableRecord = {
          allCodes: trainCodesOf(e.allCodes),
          startStation: e.startStation,
          endStation: e.endStation,
          referenceModels: referenceModelsOfTrain(models, [e.trainCode, ...e.allCodes]),
        };
        const here = trainCodeOf(e.stationTrainCode ?? e.trainCode);
        if (here) item.trainCode = here;
        if (e.arriveOffset !== null) item.arriveAt = midnight + e.arriveOffset;
        if (e.departOffset !== null) item.departAt = midnight + e.departOffset;
        if (e.platformNo !== null) item.platformNo = e.platformNo;
        item.updatedAt = e.storedAt;
        return item;
      });
      const last = entries[entries.length - 1];
      return {
        stationName,
        cursor: cursor?.text ?? '',
        limit,
        nextCursor: more && last ? `${serviceDay}:${last.timetableId}` : '',
        items,
      };
    },
  );
};
