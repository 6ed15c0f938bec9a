import type { Queryable } from '../../shared/db/db.js';
import { normalizeTrainCode } from '../trains/train-code.js';
import { loopWrapStep, placeNodes, type CirculationStop, type PlacedNodes } from './place-nodes.js';
import {
  readOfficialCirculation,
  readRoute,
  readRouteOfTrain,
  type OfficialCirculation,
  type StoredRoute,
} from './read-circulations.js';
import type {
  InferredTrainCirculationReference,
  TrainCirculation,
  TrainCirculationMetadata,
} from './train-circulation.js';

export interface CurrentCirculationOptions {
  /** Any number of the run (normalised here: g4337 = G4337). */
  trainCode: string;
  /** Every number of the run, when known (a paired run is found by either). */
  allCodes?: readonly string[];
  /** The service day the asked train runs on: its node's times fall on this day. */
  serviceDay: number;
  /** Unix seconds of the next inference run (the metadata's refreshAt); left out when absent. */
  refreshAt?: number;
  /** Days of records before serviceDay that say how trains follow each other. Default 14. */
  evidenceDays?: number;
}

/** A route as stops (an inferred node carries every number of the run). */
function stopsOfRoute(route: StoredRoute): CirculationStop[] {
  return route.nodes.map((n) => ({ codes: n.trainCodes, deadhead: false, written: n.nodeKey }));
}

function indexHolding(stops: readonly CirculationStop[], codes: readonly string[]): number {
  return stops.findIndex((s) => !s.deadhead && s.codes.some((c) => codes.includes(c)));
}

/**
 * The official table covering the day (running_start <= day <= running_end, open-ended when
 * running_end is absent) in which the train runs as a passenger train. When several do, the one
 * published last (latest running_start) wins, then the best confirmed (raw, split, unmatched,
 * unchecked), then the smallest entry key.
 */
async function officialEntryCovering(
  db: Queryable,
  codes: readonly string[],
  serviceDay: number,
): Promise<string | undefined> {
  const r = await db.query<{ entry_key: string }>(
    `SELECT o.entry_key
       FROM official_circulations o
       LEFT JOIN official_circulation_checks c ON c.entry_key = o.entry_key
      WHERE o.skip_reason IS NULL
        AND o.running_start <= $2 AND (o.running_end IS NULL OR o.running_end >= $2)
        AND EXISTS (SELECT 1 FROM official_circulation_trains t
                     WHERE t.entry_key = o.entry_key AND NOT t.deadhead
                       AND t.train_codes && $1::text[])
      ORDER BY o.running_start DESC,
               CASE c.validation_state WHEN 'raw_official' THEN 0 WHEN 'split_official' THEN 1
                                       WHEN 'unmatched_official' THEN 2 ELSE 3 END,
               o.entry_key
      LIMIT 1`,
    [codes, serviceDay],
  );
  return r.rows[0]?.entry_key;
}

/** The trains of a split table's segment holding `position` (a segment may wrap round the end). */
function segmentHolding(official: OfficialCirculation, position: number) {
  const count = official.trains.length;
  for (const s of official.segments) {
    const length = ((s.lastPosition - s.firstPosition + count) % count) + 1;
    const offset = (position - s.firstPosition + count) % count;
    if (offset < length) {
      const positions = Array.from({ length }, (_, k) => (s.firstPosition + k) % count);
      return { segment: s, positions };
    }
  }
  return undefined;
}

interface Context {
  db: Queryable;
  codes: string[];
  serviceDay: number;
  refreshAt?: number;
  evidence: { firstDay: number; lastDay: number };
}

async function place(ctx: Context, stops: CirculationStop[]): Promise<PlacedNodes> {
  const anchor = Math.max(0, indexHolding(stops, ctx.codes));
  return placeNodes(ctx.db, stops, anchor, ctx.serviceDay, ctx.evidence);
}

function withRefresh<T extends object>(value: T, refreshAt: number | undefined): T {
  return refreshAt === undefined ? value : { ...value, refreshAt };
}

/**
 * An inferred route placed in time. A route cut from a loop is read from the first train of a
 * day: when its cut fell inside a day (the weakest link need not be the overnight one), it is
 * turned round to start after its first change of day, so that a one-day loop shows as one day.
 */
async function placeRoute(ctx: Context, route: StoredRoute): Promise<PlacedNodes> {
  const stops = stopsOfRoute(route);
  const placed = await place(ctx, stops);
  if (!route.metadata.containsLoopBreak || stops.length < 2) return placed;
  if ((await loopWrapStep(ctx.db, stops, placed, ctx.evidence)) > 0) return placed;
  const j = placed.dayOffsets.findIndex((d, i) => i > 0 && d > placed.dayOffsets[i - 1]!);
  if (j <= 0) return placed;
  return place(ctx, [...stops.slice(j), ...stops.slice(0, j)]);
}

async function inferredCirculation(ctx: Context, route: StoredRoute): Promise<TrainCirculation> {
  const { nodes } = await placeRoute(ctx, route);
  return withRefresh({ source: 'inferred', nodes, metadata: { ...route.metadata } }, ctx.refreshAt);
}

async function officialCirculation(
  ctx: Context,
  official: OfficialCirculation,
): Promise<TrainCirculation> {
  const all: CirculationStop[] = official.trains.map((t) => ({
    codes: t.codes,
    deadhead: t.deadhead,
    written: t.written,
  }));
  const metadata: TrainCirculationMetadata = {
    validationState: official.validationState,
    originalOfficialEntryKey: official.entryKey,
  };
  let stops = all;
  if (official.validationState === 'split_official') {
    const held = segmentHolding(official, indexHolding(all, ctx.codes));
    if (held) {
      stops = held.positions.map((p) => all[p]!);
      metadata.splitSegmentIndex = held.segment.splitSegmentIndex;
      metadata.splitSegmentCount = held.segment.splitSegmentCount;
      metadata.matchedInferredRouteId = held.segment.matchedInferredRouteId;
    }
  } else if (official.matchedInferredRouteId !== undefined) {
    metadata.matchedInferredRouteId = official.matchedInferredRouteId;
  }
  if (official.validationState === 'unmatched_official' && official.matchedInferredRouteId) {
    const candidate = await readRoute(ctx.db, official.matchedInferredRouteId);
    if (candidate) {
      const { nodes } = await placeRoute(ctx, candidate);
      const reference: InferredTrainCirculationReference = withRefresh(
        { nodes, metadata: { ...candidate.metadata } },
        ctx.refreshAt,
      );
      metadata.candidateInferredCirculation = reference;
    }
  }
  const { nodes } = await place(ctx, stops);
  return withRefresh({ source: 'official', nodes, metadata }, ctx.refreshAt);
}

/**
 * The circulation of a train on a service day (TrainCirculation of the spec): the official table
 * covering that day when one holds the train, else the current inference run's route holding it,
 * else undefined. Nodes are in the circulation's order, each with the timetable in force on its
 * own day: the asked train's node on `serviceDay`, the others on the days their place gives them
 * (see circulation-days.ts). A split official table is answered with the segment holding the
 * train; an unmatched one carries its best candidate route as candidateInferredCirculation.
 */
export async function currentCirculation(
  db: Queryable,
  options: CurrentCirculationOptions,
): Promise<TrainCirculation | undefined> {
  const codes = [
    ...new Set([options.trainCode, ...(options.allCodes ?? [])].map(normalizeTrainCode)),
  ];
  const evidenceDays = options.evidenceDays ?? 14;
  const ctx: Context = {
    db,
    codes,
    serviceDay: options.serviceDay,
    refreshAt: options.refreshAt,
    evidence: { firstDay: options.serviceDay - evidenceDays, lastDay: options.serviceDay },
  };
  const entryKey = await officialEntryCovering(db, codes, options.serviceDay);
  const official = entryKey ? await readOfficialCirculation(db, entryKey) : undefined;
  if (official) return officialCirculation(ctx, official);
  for (const code of codes) {
    const route = await readRouteOfTrain(db, code);
    if (route) return inferredCirculation(ctx, route);
  }
  return undefined;
}
