import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { predictTrain } from '../../../domain/prediction/predict-train.js';
import { serviceDayOf, ymdOfServiceDay } from '../../../shared/time/service-day.js';
import { isKnownTrain } from '../../../domain/trains/known-train.js';
import { ApiError } from '../api-error.js';
import { trainCodePathParam } from '../path-params.js';
import { serviceDateParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';
import { trainCodeOf } from '../train-codes.js';
import { trainCodeSchema } from '../schemas.js';

/** How far ahead a prediction may be asked for, in days after today. */
export const PREDICTION_MAX_DAYS_AHEAD = 7;

const predictedEmuSchema = z
  .object({
    emuId: z.uint32().describe('Look the code up in emuCodeMappings.'),
    confidence: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'The product of the forward weights of the circulation links between the last sighting and this train (the chance the unit follows each of them).',
      ),
    lastSeenServiceDay: z.uint32(),
    lastSeenTrainCode: trainCodeSchema.describe('The last train the unit was seen on that day.'),
    daysSinceSeen: z.uint32().describe('serviceDay - lastSeenServiceDay.'),
    linksAhead: z.uint32().describe('Circulation links between that train and this one.'),
  })
  .meta({ id: 'PredictedEmu' });

export const trainPredictionDataSchema = z
  .object({
    trainCode: trainCodeSchema,
    serviceDay: z.uint32().describe('The day predicted.'),
    basedOnServiceDay: z.uint32().describe('The last day whose records were used.'),
    routeId: z.string().describe('The inferred route used; "" when the train is in none.'),
    cycleDays: z.uint32().describe('Days of the route as a loop; 0 when it is not a loop.'),
    items: z.array(predictedEmuSchema).describe('Most likely first.'),
    emuCodeMappings: z.record(z.string(), z.string()),
    reason: z
      .string()
      .describe(
        'Why items is empty: no_circulation, no_recent_sighting or no_unit_due; "" otherwise.',
      ),
    reasonMessage: z.string().describe('The reason in words; "" when items is not empty.'),
  })
  .meta({ id: 'GetTrainPredictionData' });

/** GET /prediction/train/{trainCode}: the EMUs most likely to run a train on a coming day. */
export const predictionRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { services }) => {
  const { db, costs, clock, config } = services;
  app.get(
    '/prediction/train/:trainCode',
    {
      config: {
        v2: {
          operationId: 'GetTrainPrediction',
          tag: 'Prediction',
          scope: 'api.prediction.train.read',
          summary: 'The EMUs most likely to run a train on a day up to a week ahead',
          description: `Not in the live service. \`date\` (YYYYMMDD, default today) from today to ${PREDICTION_MAX_DAYS_AHEAD} days ahead. From the train's route in the current inference run and the last sighting of each unit of that route in the last ${config.CIRCULATION_WINDOW_DAYS} days (up to the day before \`date\`, and not after today): a unit last seen on train A is predicted for the train when following the route from A, round the loop as often as needed, brings it there on \`date\`. Its confidence is the product of the forward weights (support / every successor seen) of the links on the way, so it shrinks with every link and day between; several units can be due (coupled trains, a stale sighting), each confidence standing on its own. A unit last seen on a train of another route has left the route and is not counted. An empty \`items\` says why in \`reason\`. 404 not_found for an unknown train. Quota: ${costs.prediction.of()} per request.`,
          cost: { fixed: costs.prediction },
        },
      },
      schema: {
        params: z.object({ trainCode: trainCodePathParam() }),
        querystring: z.object({ date: serviceDateParam('date').optional() }),
        response: { 200: trainPredictionDataSchema },
      },
    },
    async (request) => {
      const { trainCode } = request.params;
      const today = serviceDayOf(clock() / 1000);
      const serviceDay = request.query.date ?? today;
      if (serviceDay < today || serviceDay > today + PREDICTION_MAX_DAYS_AHEAD) {
        throw new ApiError(
          'invalid_param',
          `date must be from today (${ymdOfServiceDay(today)}) to ${PREDICTION_MAX_DAYS_AHEAD} days ahead (${ymdOfServiceDay(today + PREDICTION_MAX_DAYS_AHEAD)}), got ${ymdOfServiceDay(serviceDay)}; for past days see the daily records`,
        );
      }
      if (!(await isKnownTrain(db, trainCode)))
        throw new ApiError('not_found', `no train ${trainCode} is known`);
      const prediction = await predictTrain(db, {
        trainCode,
        serviceDay,
        asOfDay: Math.min(today, serviceDay - 1),
        lookbackDays: config.CIRCULATION_WINDOW_DAYS,
      });
      const emuCodeMappings: Record<string, string> = {};
      const items = prediction.candidates.flatMap((c) => {
        const lastSeen = trainCodeOf(c.lastSeenTrainCode);
        if (!lastSeen) return [];
        emuCodeMappings[c.emuId] = c.emuCode;
        return [
          {
            emuId: c.emuId,
            confidence: c.confidence,
            lastSeenServiceDay: c.lastSeenServiceDay,
            lastSeenTrainCode: lastSeen,
            daysSinceSeen: c.daysSinceSeen,
            linksAhead: c.linksAhead,
          },
        ];
      });
      return {
        trainCode: trainCodeOf(trainCode)!,
        serviceDay,
        basedOnServiceDay: prediction.asOfDay,
        routeId: prediction.routeId ?? '',
        cycleDays: prediction.cycleDays ?? 0,
        items,
        emuCodeMappings,
        reason: prediction.reason?.code ?? '',
        reasonMessage: prediction.reason?.message ?? '',
      };
    },
  );
};
