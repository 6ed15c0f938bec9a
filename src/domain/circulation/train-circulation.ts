import type { TrainCode } from '../trains/train-code.js';
import type { InferredRouteMetadata } from './read-circulations.js';
import type { ValidationState } from './match-official.js';

/**
 * TrainCirculation of the spec (GetCurrentTrainTimetableData.circulation), as the domain builds
 * it: plain data, shaped exactly like the API's schema (src/http/api/train-circulation-schema.ts).
 */
export interface TrainCirculationNode {
  /** The timetable's internal code ("" when it has none); a deadhead's written number (0D6911). */
  internalCode: string;
  /** Every public number of the run; empty for a deadhead (it carries no passengers). */
  allCodes: TrainCode[];
  /** "" when no timetable is in force for the node on its day. */
  startStation: string;
  endStation: string;
  /** Unix seconds; 0 when no timetable is in force for the node on its day. */
  startAt: number;
  endAt: number;
}

export interface InferredTrainCirculationReference {
  nodes: TrainCirculationNode[];
  refreshAt?: number;
  metadata?: InferredRouteMetadata;
}

export interface TrainCirculationMetadata {
  routeId?: string;
  windowStart?: number;
  windowEnd?: number;
  threshold?: number;
  lowestLinkWeight?: number;
  lowestLinkSupportCount?: number;
  containsLoopBreak?: boolean;
  validationState?: ValidationState;
  originalOfficialEntryKey?: string;
  splitSegmentIndex?: number;
  splitSegmentCount?: number;
  matchedInferredRouteId?: string;
  candidateInferredCirculation?: InferredTrainCirculationReference;
}

export interface TrainCirculation {
  source: 'unspecified' | 'official' | 'inferred';
  nodes: TrainCirculationNode[];
  refreshAt?: number;
  metadata?: TrainCirculationMetadata;
}
