import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OUTPUT_FILES } from '../src/generator/outputs.js';
import { expandTrainCodes } from '../src/domain/trains/train-code.js';

/** One line of a generated dataset's truth/circulations.json. */
export interface TruthCirculation {
  circulationId: string;
  cycleDays: number;
  coupled: boolean;
  units: string[];
  /** The trains of each cycle day in running order, as written (G4340/37 for a paired run). */
  days: string[][];
}

/** A route as scored: node keys in order, and whether it is a loop that was cut. */
export interface ScoredRoute {
  nodes: readonly string[];
  containsLoopBreak: boolean;
}

export interface CirculationScore {
  truthLinks: number;
  inferredLinks: number;
  correctLinks: number;
  /** correct / inferred. */
  linkPrecision: number;
  /** correct / truth. */
  linkRecall: number;
  circulations: number;
  /** Truth circulations that one inferred route reproduces exactly, as a cycle. */
  circulationsMatchedExactly: number;
  routes: number;
  /** Inferred routes that are exactly one truth circulation, as a cycle. */
  routesMatchedExactly: number;
}

export async function readTruthCirculations(datasetDir: string): Promise<TruthCirculation[]> {
  return JSON.parse(
    await readFile(path.join(datasetDir, OUTPUT_FILES.circulations), 'utf8'),
  ) as TruthCirculation[];
}

/** The inference's node key of a written train: every number it carries, joined by '/'. */
export function nodeKeyOfWritten(written: string): string {
  return expandTrainCodes(written).join('/');
}

/**
 * The truth's cycle of a circulation: the trains of cycle day 0, then day 1, ... then the last,
 * after which the unit starts day 0 again. (Unit k runs cycle day (k + d) mod L on day d, so
 * whoever ran cycle day c today runs c + 1 tomorrow: the last train of a cycle day is followed by
 * the first of the next, and the last day's last train by day 0's first.)
 */
export function truthCycle(c: TruthCirculation): string[] {
  return c.days.flat().map(nodeKeyOfWritten);
}

const linkKey = (a: string, b: string) => `${a}>${b}`;

/**
 * A truth link is a pair of consecutive trains in a circulation's cycle, across day boundaries
 * and round from the last train back to the first. An inferred link is a pair of consecutive
 * nodes of a route, plus, for a route cut from a loop, the cut link from its last node back to
 * its first (the route stands for that loop).
 */
function cycleLinks(nodes: readonly string[], closed: boolean): string[] {
  const links: string[] = [];
  for (let i = 0; i + 1 < nodes.length; i++) links.push(linkKey(nodes[i]!, nodes[i + 1]!));
  if (closed && nodes.length > 0) links.push(linkKey(nodes[nodes.length - 1]!, nodes[0]!));
  return links;
}

/** The cycle written from its smallest key: equal for two rotations of one cycle. */
function canonicalCycle(nodes: readonly string[]): string {
  let min = 0;
  for (let i = 1; i < nodes.length; i++) if (nodes[i]! < nodes[min]!) min = i;
  return [...nodes.slice(min), ...nodes.slice(0, min)].join('#');
}

/** Scores inferred routes against the generator's circulations (see cycleLinks for "link"). */
export function scoreCirculations(
  truth: readonly TruthCirculation[],
  routes: readonly ScoredRoute[],
): CirculationScore {
  const truthLinks = new Set<string>();
  const truthCycles = new Set<string>();
  for (const c of truth) {
    const cycle = truthCycle(c);
    for (const l of cycleLinks(cycle, true)) truthLinks.add(l);
    truthCycles.add(canonicalCycle(cycle));
  }
  const inferred = new Set<string>();
  const routeCycles = new Set<string>();
  let routesMatchedExactly = 0;
  for (const r of routes) {
    for (const l of cycleLinks(r.nodes, r.containsLoopBreak)) inferred.add(l);
    if (r.containsLoopBreak) {
      const canon = canonicalCycle(r.nodes);
      routeCycles.add(canon);
      if (truthCycles.has(canon)) routesMatchedExactly++;
    }
  }
  let correctLinks = 0;
  for (const l of inferred) if (truthLinks.has(l)) correctLinks++;
  let circulationsMatchedExactly = 0;
  for (const c of truthCycles) if (routeCycles.has(c)) circulationsMatchedExactly++;
  return {
    truthLinks: truthLinks.size,
    inferredLinks: inferred.size,
    correctLinks,
    linkPrecision: inferred.size === 0 ? 0 : correctLinks / inferred.size,
    linkRecall: truthLinks.size === 0 ? 0 : correctLinks / truthLinks.size,
    circulations: truthCycles.size,
    circulationsMatchedExactly,
    routes: routes.length,
    routesMatchedExactly,
  };
}
