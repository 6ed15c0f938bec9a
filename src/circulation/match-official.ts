import type { OfficialTrain } from './official-entry.js';
import { codesOfNodeKey, type RouteShape } from './route-store.js';

export type ValidationState =
  'unspecified' | 'raw_official' | 'split_official' | 'unmatched_official';

/** A contiguous part of an official table that one inferred route confirms. */
export interface OfficialSegment {
  segmentIndex: number;
  segmentCount: number;
  /** Positions in the table's trains, inclusive; first > last when the part wraps round. */
  firstPosition: number;
  lastPosition: number;
  routeId: string;
}

export interface OfficialCheck {
  state: ValidationState;
  /** raw: the matching route; unmatched: the best candidate, when any route shares a train. */
  matchedRouteId?: string;
  /** Links between the table's passenger trains, read as a cycle. */
  officialLinks: number;
  /** Of those, the links an inferred route has too. */
  confirmedLinks: number;
  /** split_official only. */
  segments: OfficialSegment[];
}

interface Place {
  route: RouteShape;
  position: number;
}

/** Where each train number sits in the inferred routes (every number of a node). */
export class RouteIndex {
  private readonly byCode = new Map<string, Place>();

  constructor(readonly routes: readonly RouteShape[]) {
    for (const route of routes) {
      route.nodes.forEach((key, position) => {
        for (const code of codesOfNodeKey(key)) this.byCode.set(code, { route, position });
      });
    }
  }

  placeOf(train: OfficialTrain): Place | undefined {
    for (const code of train.codes) {
      const p = this.byCode.get(code);
      if (p) return p;
    }
    return undefined;
  }
}

/** b follows a in one route: the next node, the same node (numbers split differently), or a cut loop's wrap. */
function follows(a: Place | undefined, b: Place | undefined): boolean {
  if (!a || !b || a.route !== b.route) return false;
  if (b.position === a.position + 1 || b.position === a.position) return true;
  return a.route.containsLoopBreak && a.position === a.route.nodes.length - 1 && b.position === 0;
}

/**
 * Checks one official table against the inferred routes, both read as cycles: the table repeats
 * day after day, and a route cut from a loop is that loop, so neither where the table starts nor
 * where the loop was cut matters. Deadheads are skipped (no one sees them); the links are those
 * between consecutive passenger trains, the last one back to the first included.
 *
 * - raw_official: one route holds every passenger train of the table, in the table's order
 *   (all links confirmed, or all but one, that one being where the cycle opens).
 * - split_official: the cycle falls into two or more contiguous parts of at least two trains,
 *   each held in order by one route. Segment 0 is the part holding the table's first passenger
 *   train; deadheads go with the part whose train they follow.
 * - unmatched_official: anything else. The candidate is the route confirming most links, then
 *   holding most of the table's trains, then the smallest routeId.
 */
export function matchOfficial(trains: readonly OfficialTrain[], index: RouteIndex): OfficialCheck {
  const passenger: number[] = [];
  trains.forEach((t, i) => {
    if (!t.deadhead) passenger.push(i);
  });
  const n = passenger.length;
  const places = passenger.map((i) => index.placeOf(trains[i]!));
  const officialLinks = n >= 2 ? n : 0;
  const ok = places.map((p, k) => n >= 2 && follows(p, places[(k + 1) % n]));
  const confirmedLinks = ok.filter(Boolean).length;
  const base = { officialLinks, confirmedLinks, segments: [] as OfficialSegment[] };

  const breaks = ok.flatMap((good, k) => (good ? [] : [k]));
  if (n === 1) {
    const p = places[0];
    if (p && p.route.nodes.length === 1)
      return { ...base, state: 'raw_official', matchedRouteId: p.route.routeId };
  } else if (breaks.length <= 1) {
    return { ...base, state: 'raw_official', matchedRouteId: places[0]!.route.routeId };
  } else {
    // Parts run from the passenger train after one break to the train at the next.
    const parts = breaks.map((b, j) => {
      const from = (b + 1) % n;
      const to = breaks[(j + 1) % breaks.length]!;
      return { from, to, length: ((to - from + n) % n) + 1 };
    });
    if (parts.every((p) => p.length >= 2)) {
      const first = parts.findIndex((p) => (p.from <= p.to ? p.from === 0 : true));
      const ordered = [...parts.slice(first), ...parts.slice(0, first)];
      return {
        ...base,
        state: 'split_official',
        segments: ordered.map((p, j) => {
          const nextFrom = ordered[(j + 1) % ordered.length]!.from;
          return {
            segmentIndex: j,
            segmentCount: ordered.length,
            firstPosition: passenger[p.from]!,
            lastPosition: (passenger[nextFrom]! - 1 + trains.length) % trains.length,
            routeId: places[p.from]!.route.routeId,
          };
        }),
      };
    }
  }

  const score = new Map<RouteShape, { links: number; trains: number }>();
  places.forEach((p, k) => {
    if (!p) return;
    const s = score.get(p.route) ?? { links: 0, trains: 0 };
    s.trains++;
    if (ok[k]) s.links++;
    score.set(p.route, s);
  });
  let best: RouteShape | undefined;
  for (const [route, s] of score) {
    const b = best && score.get(best)!;
    if (
      !b ||
      s.links > b.links ||
      (s.links === b.links &&
        (s.trains > b.trains || (s.trains === b.trains && route.routeId < best!.routeId)))
    )
      best = route;
  }
  return {
    ...base,
    state: 'unmatched_official',
    ...(best ? { matchedRouteId: best.routeId } : {}),
  };
}
