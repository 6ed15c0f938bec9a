import { EmutrackError } from '../../shared/errors/emutrack-error.js';
/**
 * The inference rule: which observed links between train runs are kept. Defaults (brackets) are
 * the live service's (compatibility.md), overridable by CIRCULATION_* variables.
 *
 * A *run* is one train (all its numbers: a paired G4340/37 is one run) run by one EMU on one
 * service day. Per EMU, runs are ordered by service day, then by the timetable's start
 * (timetables.start_offset of daily_records.timetable_id); a run with no timetable yet is placed
 * by the time of day of its first sighting instead (counted in the run's
 * `runsOrderedBySighting`). Two runs of one EMU that follow each other, on the same day or the
 * last of one day and the first of the next, are an observation of the link A->B. A run that
 * repeats the train of the EMU's last run the evening before is that train seen after midnight,
 * not a new run, and is merged into it.
 *
 * Crowd-sourced sightings are sparse: a unit's run is often not seen at all. A unit seen on A
 * and next on C, where it ran A, B, C, took the step A->C; counted as a link of its own, that
 * step would weigh against A->B (it adds to out(A)) and against B->C (it adds to in(C)), so a
 * link whose successor goes unseen 20% of the time would sit at the threshold. An unseen run is
 * not evidence against a link, so the rule reads such a step as what it is, a skip:
 *
 *   direct(A->B)  = the number of service days (of A) on which some EMU stepped A then B. Days,
 *                   not EMUs: the two units of a coupled train see the same link once. A step
 *                   A->C of one unit is not counted on a day when another unit on A ran
 *                   A->B->C (one unit of a coupled pair unseen on B).
 *   known links   = links of at least minSupport days taken most supported first (then by
 *                   keys), a link passed over when its first train already has a known link out
 *                   or its second one a known link in: each train has at most one known link
 *                   each way. They are taken twice: from direct support, then from the support
 *                   below counted with skips through those (so a skip no longer competes with
 *                   the links it went through).
 *   skip          = a step X->Z that is not known itself, where known links lead from X to Z
 *                   through 1 to MAX_SKIPPED_RUNS [3] trains: X->Y1->...->Z. It counts, on its
 *                   day, once for every link of that path, and not at all for X->Z. (Each link
 *                   is dated by the day of its first train: X's day, moved to the next day after
 *                   a link that mostly crosses midnight, never past Z's day.)
 *   support(A->B) = the number of service days on which A->B was seen directly or through a skip.
 *   out(A)        = the sum of support(A->X) over every successor X of A (skips are not
 *                   successors); in(B) = the sum of support(Y->B) over every predecessor Y;
 *   forward       = support / out(A)      backward = support / in(B)
 *   weight        = min(forward, backward)
 * The link is kept when weight >= `threshold` [0.8] and support >= `minSupport` [3]. (Both
 * ratios are exact quotients of integers, so a weight exactly at the threshold, 4/5 against
 * 0.8, compares equal and is kept.) With a threshold above 0.5 a train keeps at most one link
 * each way; below it, kept links are taken strongest first (weight, then support, then keys)
 * and a link is dropped when its train already has a stronger one that way.
 *
 * What this keeps: a skip adds only to links that were already seen on at least `minSupport`
 * days and are their trains' best, so it never creates a link. A wrong-unit sighting
 * (a unit named on a train of another circulation) makes steps X->W and W->Y that no known path
 * explains: they count as links of their own, supported on one day, far below `minSupport`, and
 * weigh (a little) against X's and Y's true links, as any other contrary evidence does. A real
 * change of circulation (units now run A->C for good) makes A->C the most supported successor
 * and stops A->B being known, so it is counted against A->B again.
 */
export interface InferenceRule {
  /** Service days read, ending with `asOf`. Default 14. */
  windowDays: number;
  /** Both weights of a kept link reach this share, 0 < threshold <= 1. Default 0.8. */
  threshold: number;
  /** Service days a kept link was seen on, at least. Default 3. */
  minSupport: number;
}

/** Unseen runs in a row that a skip may pass through (see InferenceRule). */
export const MAX_SKIPPED_RUNS = 3;

export const DEFAULT_INFERENCE_RULE: InferenceRule = {
  windowDays: 14,
  threshold: 0.8,
  minSupport: 3,
};

/** One observed link with its counts (see InferenceRule). */
export interface ObservedLink {
  from: string;
  to: string;
  support: number;
  outTotal: number;
  inTotal: number;
}

export interface WeightedLink extends ObservedLink {
  forward: number;
  backward: number;
  weight: number;
}

export function weighLink(link: ObservedLink): WeightedLink {
  const forward = link.support / link.outTotal;
  const backward = link.support / link.inTotal;
  return { ...link, forward, backward, weight: Math.min(forward, backward) };
}

/** The links that pass the rule's threshold and minimum support, weighed. */
export function keptLinks(
  links: Iterable<ObservedLink>,
  rule: Pick<InferenceRule, 'threshold' | 'minSupport'>,
): WeightedLink[] {
  const kept: WeightedLink[] = [];
  for (const l of links) {
    if (l.support < rule.minSupport) continue;
    const w = weighLink(l);
    if (w.weight >= rule.threshold) kept.push(w);
  }
  return kept;
}

export class InvalidInferenceRuleError extends EmutrackError {
  constructor(field: string, reason: string) {
    super('inference_rule_invalid', `${field}: ${reason}`);
  }
}

export function resolveInferenceRule(rule: Partial<InferenceRule> = {}): InferenceRule {
  const r = { ...DEFAULT_INFERENCE_RULE, ...rule };
  if (!Number.isInteger(r.windowDays) || r.windowDays < 1 || r.windowDays > 366)
    throw new InvalidInferenceRuleError('windowDays', `expected 1-366, got ${r.windowDays}`);
  if (!(r.threshold > 0 && r.threshold <= 1))
    throw new InvalidInferenceRuleError('threshold', `expected 0 < t <= 1, got ${r.threshold}`);
  if (!Number.isInteger(r.minSupport) || r.minSupport < 1)
    throw new InvalidInferenceRuleError('minSupport', `expected >= 1, got ${r.minSupport}`);
  return r;
}
