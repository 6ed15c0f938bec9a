import { MAX_SKIPPED_RUNS } from './inference-rule.js';
import { NO_EVIDENCE, type SightingEvidence } from './official-evidence.js';
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

/** Whether the inference kept a link out of the train at `p` (to anything). */
function hasKeptNext(p: Place | undefined): boolean {
  if (!p) return false;
  return p.position < p.route.nodes.length - 1 || p.route.containsLoopBreak;
}

/** Whether the inference kept a link into the train at `p` (from anything). */
function hasKeptPrevious(p: Place | undefined): boolean {
  if (!p) return false;
  return p.position > 0 || p.route.containsLoopBreak;
}

/**
 * Adds to `codes` the numbers of up to `hops` nodes after (`step` 1) or before (-1) the train
 * at `p` in its route, round a cut loop's wrap.
 */
function alongRoute(p: Place | undefined, step: 1 | -1, hops: number, codes: Set<string>): void {
  if (!p) return;
  const { nodes, containsLoopBreak } = p.route;
  let position = p.position;
  for (let h = 0; h < hops; h++) {
    position += step;
    if (position < 0 || position >= nodes.length) {
      if (!containsLoopBreak) return;
      position = (position + nodes.length) % nodes.length;
    }
    if (position === p.position) return;
    for (const c of codesOfNodeKey(nodes[position]!)) codes.add(c);
  }
}

/**
 * Checks one official table against the inferred routes and the sightings, both read as cycles:
 * the table repeats day after day, and a route cut from a loop is that loop, so neither where the
 * table starts nor where the loop was cut matters. Deadheads are skipped (no one sees them); the
 * links are those between consecutive passenger trains, the last one back to the first included.
 *
 * A link is confirmed when one route holds its two trains in order. A link that is not is judged
 * on evidence, not on completeness:
 *   - contradicted, when the inference kept a link out of its first train or into its second
 *     (to or from another train), or the sightings show a unit running another train next after
 *     its first train, or just before its second, on at least minSupport days (`evidence`; a
 *     train up to MAX_SKIPPED_RUNS places further on in the table is no contradiction: the runs
 *     between went unseen; nor is a train an inferred route runs after one of those, within as
 *     many runs: that step left the table where a kept link breaks it, and counts against that
 *     link);
 *   - missing, otherwise: the inference did not keep it (too few sightings), and nothing says
 *     it is wrong. A missing link is no evidence against the table.
 * Then:
 * - raw_official: no link is contradicted, and at least one is confirmed or every train of the
 *   table was seen in the window (its units seen on it; the links just not kept). A table of
 *   trains no one saw, none of whose links is confirmed, has no evidence for it.
 * - split_official: two or more links are contradicted, and they cut the cycle into parts of at
 *   least two passenger trains, each with a confirmed link (or all its trains seen) and a train in
 *   a route: the table joins circulations the
 *   inference keeps apart. Segment 0 is the part holding the table's first passenger train;
 *   deadheads go with the part whose train they follow; a part's route is the route holding the
 *   most of its trains.
 * - unmatched_official: anything else (one contradicted link, a part of one train, no evidence).
 *   (`evidence` also says which trains were seen; without it, none was.)
 *   The candidate is the route confirming most links, then holding most of the table's trains,
 *   then the smallest routeId.
 */
export function matchOfficial(
  trains: readonly OfficialTrain[],
  index: RouteIndex,
  evidence: SightingEvidence = NO_EVIDENCE,
): OfficialCheck {
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
  const trainAt = (k: number) => trains[passenger[((k % n) + n) % n]!]!;

  /** Whether the table's link k (passenger train k to k + 1) is contradicted. */
  const contradicted = (k: number): boolean => {
    if (hasKeptNext(places[k]) || hasKeptPrevious(places[(k + 1) % n])) return true;
    const from = trainAt(k);
    const to = trainAt(k + 1);
    // What may follow `from` without contradicting the table: its own numbers (a paired run's
    // records), the next trains up to MAX_SKIPPED_RUNS unseen ones further on, and what the
    // inferred routes run after any of those within the same number of runs. A step that left
    // the table where a kept link already breaks it counts against that link, not this one.
    const ahead = new Set(from.codes);
    for (let j = 1; j <= MAX_SKIPPED_RUNS + 1 && j < n; j++) {
      for (const c of trainAt(k + j).codes) ahead.add(c);
      alongRoute(places[(k + j) % n], 1, MAX_SKIPPED_RUNS + 1 - j, ahead);
    }
    for (const code of from.codes)
      for (const other of evidence.next(code)?.keys() ?? []) if (!ahead.has(other)) return true;
    const behind = new Set(to.codes);
    for (let j = 0; j <= MAX_SKIPPED_RUNS && j < n - 1; j++) {
      for (const c of trainAt(k - j).codes) behind.add(c);
      alongRoute(places[(((k - j) % n) + n) % n], -1, MAX_SKIPPED_RUNS - j, behind);
    }
    for (const code of to.codes)
      for (const other of evidence.previous(code)?.keys() ?? [])
        if (!behind.has(other)) return true;
    return false;
  };
  const breaks = n >= 2 ? ok.flatMap((good, k) => (good || !contradicted(k) ? [] : [k])) : [];

  /** Whether every passenger train first..first+length-1 (cyclic) has records in the window. */
  const allSeen = (first: number, length: number): boolean =>
    Array.from({ length }, (_, j) => trainAt(first + j)).every((t) =>
      t.codes.some((c) => evidence.seen(c)),
    );

  /** The route holding most of the passenger trains first..first+length-1 (cyclic), if any. */
  const mainRoute = (first: number, length: number): RouteShape | undefined => {
    const count = new Map<RouteShape, number>();
    let best: RouteShape | undefined;
    for (let j = 0; j < length; j++) {
      const route = places[(first + j) % n]?.route;
      if (!route) continue;
      const c = (count.get(route) ?? 0) + 1;
      count.set(route, c);
      if (!best || c > count.get(best)!) best = route;
    }
    return best;
  };

  if (n === 1) {
    const p = places[0];
    if (p && p.route.nodes.length === 1)
      return { ...base, state: 'raw_official', matchedRouteId: p.route.routeId };
  } else if (breaks.length === 0 && (confirmedLinks > 0 || allSeen(0, n))) {
    const route = mainRoute(0, n);
    return { ...base, state: 'raw_official', ...(route ? { matchedRouteId: route.routeId } : {}) };
  } else if (breaks.length >= 2) {
    // Parts run from the passenger train after one contradicted link to the train at the next.
    const parts = breaks.map((b, j) => {
      const from = (b + 1) % n;
      const to = breaks[(j + 1) % breaks.length]!;
      return { from, to, length: ((to - from + n) % n) + 1 };
    });
    const confirmedIn = (p: { from: number; length: number }) =>
      Array.from({ length: p.length - 1 }, (_, j) => ok[(p.from + j) % n]).some(Boolean);
    if (
      parts.every(
        (p) =>
          p.length >= 2 &&
          (confirmedIn(p) || allSeen(p.from, p.length)) &&
          mainRoute(p.from, p.length),
      )
    ) {
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
            routeId: mainRoute(p.from, p.length)!.routeId,
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
