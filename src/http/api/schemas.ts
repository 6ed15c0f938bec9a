import { z } from 'zod';

/**
 * The zod schemas more than one operation uses. They live here, apart from the routes and the
 * OpenAPI set-up, so that any module can import them without pulling a route in (importing them
 * from route files made openapi.ts, app-context.ts, train-circulation-schema.ts and
 * routes/records-daily.ts import one another in a cycle).
 */
export const trainCodeSchema = z
  .object({
    prefix: z.string().describe('Letter prefix of the train number ("" when it has none).'),
    number: z.uint32(),
  })
  .meta({ id: 'TrainCode' });

/** The `status` bit field of record items (compatibility.md). */
export const recordStatusSchema = z
  .uint32()
  .describe(
    'Bit field: 0x01 confirmed; 0x06 formation (0x00 single unit, 0x02 coupled with position unknown, 0x04 coupled first unit, 0x06 coupled second unit); 0x08 replaced a failed unit; 0x10 hot spare.',
  );

export const dailyRecordItemSchema = z
  .object({
    id: z.uint32(),
    serviceDay: z.uint32().describe('Days since 1970-01-01, counted in Shanghai time.'),
    timetableId: z.uint32().optional(),
    emuId: z.uint32().describe('Look the code up in emuCodeMappings.'),
    trainCode: trainCodeSchema.optional(),
    status: recordStatusSchema,
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

export const referenceModelItemSchema = z
  .object({
    model: z.string(),
    weightedShare: z
      .number()
      .describe(
        'Share of the last days (REFERENCE_MODEL_WINDOW_DAYS) this model ran the train, each day weighed once, unconfirmed records half; shares under REFERENCE_MODEL_MIN_SHARE are dropped.',
      ),
  })
  .meta({ id: 'ReferenceModelItem' });
