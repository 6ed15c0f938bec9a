import { createHash } from 'node:crypto';
import type { WeightedLink } from './inference-rule.js';

/** A chain of kept links: the trains one EMU runs in turn, day after day. */
export interface ChainedRoute {
  routeId: string;
  /** Node keys in running order (a cut loop starts right after its cut link). */
  nodes: string[];
  /** links[i] joins nodes[i] to nodes[i + 1]. */
  links: WeightedLink[];
  /** The chain closed on itself and was cut at its weakest link, `loopBreak`. */
  containsLoopBreak: boolean;
  loopBreak?: WeightedLink;
  /** Over `links`; undefined for a single-node route. */
  lowestLinkWeight?: number;
  lowestLinkSupportCount?: number;
}

/** Strongest first: weight, then support, then the keys (so ties resolve the same every run). */
function stronger(a: WeightedLink, b: WeightedLink): number {
  return (
    b.weight - a.weight ||
    b.support - a.support ||
    (a.from < b.from ? -1 : a.from > b.from ? 1 : 0) ||
    (a.to < b.to ? -1 : a.to > b.to ? 1 : 0)
  );
}

/**
 * The route id: a hash of the ordered node keys. A loop is hashed from its rotation that starts
 * at its smallest key, so its id does not move when the weakest link (where it is cut) does.
 */
export function routeIdOf(nodes: readonly string[], loop: boolean): string {
  let ordered = nodes;
  if (loop && nodes.length > 1) {
    let min = 0;
    for (let i = 1; i < nodes.length; i++) if (nodes[i]! < nodes[min]!) min = i;
    ordered = [...nodes.slice(min), ...nodes.slice(0, min)];
  }
  const hash = createHash('sha256')
    .update(loop ? 'loop' : 'path')
    .update('\n')
    .update(ordered.join('\n'))
    .digest('hex');
  return hash.slice(0, 20);
}

function finish(
  nodes: string[],
  links: WeightedLink[],
  loopBreak: WeightedLink | undefined,
): ChainedRoute {
  const route: ChainedRoute = {
    routeId: routeIdOf(nodes, loopBreak !== undefined),
    nodes,
    links,
    containsLoopBreak: loopBreak !== undefined,
  };
  if (loopBreak) route.loopBreak = loopBreak;
  if (links.length > 0) {
    let lowest = links[0]!;
    for (const l of links) if (l.weight < lowest.weight) lowest = l;
    route.lowestLinkWeight = lowest.weight;
    route.lowestLinkSupportCount = Math.min(...links.map((l) => l.support));
  }
  return route;
}

/**
 * Chains kept links into routes. Each train keeps at most one link out and one in (strongest
 * first); then every maximal path is a route, and every cycle is cut at its weakest link (lowest
 * weight, then lowest support, then keys) and becomes a route marked containsLoopBreak that
 * starts at the train after the cut. Routes come out ordered by routeId.
 */
export function chainRoutes(kept: readonly WeightedLink[]): ChainedRoute[] {
  const next = new Map<string, WeightedLink>();
  const hasPrev = new Set<string>();
  for (const link of [...kept].sort(stronger)) {
    if (next.has(link.from) || hasPrev.has(link.to)) continue;
    next.set(link.from, link);
    hasPrev.add(link.to);
  }
  const routes: ChainedRoute[] = [];
  const visited = new Set<string>();
  const starts = [...next.keys()].filter((n) => !hasPrev.has(n)).sort();
  for (const start of starts) {
    const nodes = [start];
    const links: WeightedLink[] = [];
    visited.add(start);
    for (let l = next.get(start); l; l = next.get(l.to)) {
      links.push(l);
      nodes.push(l.to);
      visited.add(l.to);
    }
    routes.push(finish(nodes, links, undefined));
  }
  // Whatever is left has a link in and out: cycles.
  for (const first of [...next.keys()].sort()) {
    if (visited.has(first)) continue;
    const cycle: WeightedLink[] = [];
    let at = first;
    do {
      visited.add(at);
      const l = next.get(at)!;
      cycle.push(l);
      at = l.to;
    } while (at !== first);
    let cut = 0;
    for (let i = 1; i < cycle.length; i++) if (stronger(cycle[i]!, cycle[cut]!) > 0) cut = i;
    const links = [...cycle.slice(cut + 1), ...cycle.slice(0, cut)];
    const nodes = [cycle[cut]!.to, ...links.map((l) => l.to)];
    routes.push(finish(nodes, links, cycle[cut]!));
  }
  return routes.sort((a, b) => (a.routeId < b.routeId ? -1 : a.routeId > b.routeId ? 1 : 0));
}
