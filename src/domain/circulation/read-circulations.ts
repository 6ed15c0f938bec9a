import type { Queryable } from '../../shared/db/db.js';
import type { ValidationState } from './match-official.js';

/** InferredTrainCirculationMetadata of the spec: what a route's numbers mean is in the README. */
export interface InferredRouteMetadata {
  routeId: string;
  /** Unix seconds: local midnight starting the window's first day. */
  windowStart: number;
  /** Unix seconds: local midnight ending the window's last day. */
  windowEnd: number;
  threshold: number;
  containsLoopBreak: boolean;
  lowestLinkWeight?: number;
  lowestLinkSupportCount?: number;
}

export interface RouteNode {
  nodeKey: string;
  trainCodes: string[];
  /** The link to the next node (on a cut loop's last node: the cut link back to the first). */
  next?: { weight: number; forward: number; backward: number; support: number };
}

export interface StoredRoute {
  runId: number;
  nodes: RouteNode[];
  metadata: InferredRouteMetadata;
}

interface RouteRow {
  run_id: number;
  route_id: string;
  contains_loop_break: boolean;
  lowest_link_weight: number | null;
  lowest_link_support: number | null;
  window_start_at: number;
  window_end_at: number;
  threshold: number;
  nodes: {
    k: string;
    c: string[];
    w: number | null;
    f: number | null;
    b: number | null;
    s: number | null;
  }[];
}

const SELECT_ROUTE = `
  SELECT r.run_id, r.route_id, r.contains_loop_break, r.lowest_link_weight, r.lowest_link_support,
         x.window_start_at, x.window_end_at, x.threshold,
         (SELECT json_agg(json_build_object('k', n.node_key, 'c', n.train_codes, 'w', n.next_weight,
                                            'f', n.next_forward_weight, 'b', n.next_backward_weight,
                                            's', n.next_support) ORDER BY n.position)
            FROM circulation_route_nodes n
           WHERE n.run_id = r.run_id AND n.route_id = r.route_id) AS nodes
    FROM circulation_routes r
    JOIN circulation_runs x ON x.id = r.run_id`;

function toRoute(row: RouteRow): StoredRoute {
  const metadata: InferredRouteMetadata = {
    routeId: row.route_id,
    windowStart: row.window_start_at,
    windowEnd: row.window_end_at,
    threshold: row.threshold,
    containsLoopBreak: row.contains_loop_break,
  };
  if (row.lowest_link_weight !== null) metadata.lowestLinkWeight = row.lowest_link_weight;
  if (row.lowest_link_support !== null) metadata.lowestLinkSupportCount = row.lowest_link_support;
  return {
    runId: row.run_id,
    metadata,
    nodes: row.nodes.map((n) => ({
      nodeKey: n.k,
      trainCodes: n.c,
      ...(n.w !== null
        ? { next: { weight: n.w, forward: n.f!, backward: n.b!, support: n.s! } }
        : {}),
    })),
  };
}

/** A route of a run (the current run when runId is omitted). */
export async function readRoute(
  db: Queryable,
  routeId: string,
  runId?: number,
): Promise<StoredRoute | undefined> {
  const r = await db.query<RouteRow>(
    `${SELECT_ROUTE}
      WHERE r.route_id = $1
        AND r.run_id = COALESCE($2::bigint, (SELECT run_id FROM circulation_current))`,
    [routeId, runId ?? null],
  );
  return r.rows[0] ? toRoute(r.rows[0]) : undefined;
}

/** The current run's route that holds a train number, if any. */
export async function readRouteOfTrain(
  db: Queryable,
  trainCode: string,
): Promise<StoredRoute | undefined> {
  const r = await db.query<RouteRow>(
    `${SELECT_ROUTE}
      WHERE (r.run_id, r.route_id) IN (
              SELECT n.run_id, n.route_id FROM circulation_route_nodes n
               WHERE n.run_id = (SELECT run_id FROM circulation_current)
                 AND n.train_codes @> ARRAY[$1::text])`,
    [trainCode],
  );
  return r.rows[0] ? toRoute(r.rows[0]) : undefined;
}

/** Every route of the current run, ordered by routeId. */
export async function readCurrentRoutes(db: Queryable): Promise<StoredRoute[]> {
  const r = await db.query<RouteRow>(
    `${SELECT_ROUTE}
      WHERE r.run_id = (SELECT run_id FROM circulation_current)
      ORDER BY r.route_id`,
  );
  return r.rows.map(toRoute);
}

/** An official table with its check (the official side of TrainCirculationMetadata). */
export interface OfficialCirculation {
  entryKey: string;
  runningStart: number;
  runningEnd?: number;
  emuNote: string;
  administrator: string;
  trains: { written: string; codes: string[]; deadhead: boolean }[];
  skipReason?: string;
  validationState: ValidationState;
  /** raw: the matching route; unmatched: the best candidate (candidateInferredCirculation). */
  matchedInferredRouteId?: string;
  checkedAgainstRunId?: number;
  segments: {
    splitSegmentIndex: number;
    splitSegmentCount: number;
    firstPosition: number;
    lastPosition: number;
    matchedInferredRouteId: string;
  }[];
}

/** One stored official table and its check. */
export async function readOfficialCirculation(
  db: Queryable,
  entryKey: string,
): Promise<OfficialCirculation | undefined> {
  const r = await db.query<{
    entry_key: string;
    running_start: number;
    running_end: number | null;
    emu_note: string;
    administrator: string;
    skip_reason: string | null;
    validation_state: ValidationState | null;
    matched_route_id: string | null;
    run_id: number | null;
    trains: { w: string; c: string[]; d: boolean }[] | null;
    segments: { i: number; n: number; f: number; l: number; r: string }[] | null;
  }>(
    `SELECT o.entry_key, o.running_start, o.running_end, o.emu_note, o.administrator, o.skip_reason,
            c.validation_state, c.matched_route_id, c.run_id,
            (SELECT json_agg(json_build_object('w', t.written, 'c', t.train_codes, 'd', t.deadhead)
                             ORDER BY t.position)
               FROM official_circulation_trains t WHERE t.entry_key = o.entry_key) AS trains,
            (SELECT json_agg(json_build_object('i', s.segment_index, 'n', s.segment_count,
                                               'f', s.first_position, 'l', s.last_position,
                                               'r', s.matched_route_id) ORDER BY s.segment_index)
               FROM official_circulation_segments s WHERE s.entry_key = o.entry_key) AS segments
       FROM official_circulations o
       LEFT JOIN official_circulation_checks c ON c.entry_key = o.entry_key
      WHERE o.entry_key = $1`,
    [entryKey],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  const result: OfficialCirculation = {
    entryKey: row.entry_key,
    runningStart: row.running_start,
    emuNote: row.emu_note,
    administrator: row.administrator,
    trains: (row.trains ?? []).map((t) => ({ written: t.w, codes: t.c, deadhead: t.d })),
    validationState: row.validation_state ?? 'unspecified',
    segments: (row.segments ?? []).map((s) => ({
      splitSegmentIndex: s.i,
      splitSegmentCount: s.n,
      firstPosition: s.f,
      lastPosition: s.l,
      matchedInferredRouteId: s.r,
    })),
  };
  if (row.running_end !== null) result.runningEnd = row.running_end;
  if (row.skip_reason !== null) result.skipReason = row.skip_reason;
  if (row.matched_route_id !== null) result.matchedInferredRouteId = row.matched_route_id;
  if (row.run_id !== null) result.checkedAgainstRunId = row.run_id;
  return result;
}
