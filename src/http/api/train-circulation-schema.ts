import { z } from 'zod';
import { trainCodeSchema } from './schemas.js';

/**
 * TrainCirculation of the spec (GetCurrentTrainTimetableData.circulation), and the seam through
 * which the circulation issue fills it: GetCurrentTrainTimetable asks the app's
 * TrainCirculationProvider (AppDeps.circulations) when there is one, and leaves the field out
 * when there is none or it answers undefined.
 */
export const trainCirculationNodeSchema = z
  .object({
    internalCode: z.string(),
    allCodes: z.array(trainCodeSchema),
    startStation: z.string(),
    endStation: z.string(),
    startAt: z.int(),
    endAt: z.int(),
  })
  .meta({ id: 'TrainCirculationNode' });

export const inferredTrainCirculationMetadataSchema = z
  .object({
    routeId: z.string(),
    windowStart: z.int(),
    windowEnd: z.int(),
    threshold: z.number(),
    containsLoopBreak: z.boolean(),
    lowestLinkWeight: z.number().optional(),
    lowestLinkSupportCount: z.uint32().optional(),
  })
  .meta({ id: 'InferredTrainCirculationMetadata' });

export const inferredTrainCirculationReferenceSchema = z
  .object({
    nodes: z.array(trainCirculationNodeSchema),
    refreshAt: z.int().optional(),
    metadata: inferredTrainCirculationMetadataSchema.optional(),
  })
  .meta({ id: 'InferredTrainCirculationReference' });

export const trainCirculationMetadataSchema = z
  .object({
    routeId: z.string().optional(),
    windowStart: z.int().optional(),
    windowEnd: z.int().optional(),
    threshold: z.number().optional(),
    lowestLinkWeight: z.number().optional(),
    lowestLinkSupportCount: z.uint32().optional(),
    containsLoopBreak: z.boolean().optional(),
    validationState: z
      .enum(['unspecified', 'raw_official', 'split_official', 'unmatched_official'])
      .optional(),
    originalOfficialEntryKey: z.string().optional(),
    splitSegmentIndex: z.uint32().optional(),
    splitSegmentCount: z.uint32().optional(),
    matchedInferredRouteId: z.string().optional(),
    candidateInferredCirculation: inferredTrainCirculationReferenceSchema.optional(),
  })
  .meta({ id: 'TrainCirculationMetadata' });

export const trainCirculationSchema = z
  .object({
    source: z.enum(['unspecified', 'official', 'inferred']),
    nodes: z.array(trainCirculationNodeSchema),
    refreshAt: z.int().optional(),
    metadata: trainCirculationMetadataSchema.optional(),
  })
  .meta({ id: 'TrainCirculation' });

export type TrainCirculation = z.output<typeof trainCirculationSchema>;

export type { TrainCirculationProvider } from '../../domain/circulation/current-circulation-provider.js';
