import { loopWrapStep, placeNodes } from '../circulation/place-nodes.js';
import { readRouteOfTrain, type StoredRoute } from '../circulation/read-circulations.js';
import type { Queryable } from '../../shared/db/db.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';
import { normalizeTrainCode } from '../trains/train-code.js';

/**
 * Which EMUs will most likely run a train on a coming day, from where each unit of the train's
 * inferred circulation was last seen. The rule (README "Prediction"):
 *
 * 1. The train's route in the current inference run, each node on its day of the cycle (see
 *    circulation-days.ts). A route cut from a loop is a cycle of L days (the days from its first
 *    node to its last, plus the step from the last back to the first); any other route is a
 *    chain that a unit runs once.
 * 2. Every unit that ran a train of the route in the lookback window, with its last record up to
 *    `asOfDay` (the latest day, then the latest first sighting). A unit whose last record is on a
 *    train of another route has left this one and is not considered.
 * 3. A unit last seen on node j on day s is on node k (the train) on day D when it gets there by
 *    following the route: D - s = (c_k - c_j) + m L for a whole m >= 0 (a chain: m = 0 and k
 *    after j), c being the cycle days; and D > s.
 * 4. Its confidence is the chance that it follows every link on the way: the product of the
 *    links' forward weights (support / every successor seen after the train: how often a unit
 *    that ran A ran B next), over the links from j to k, the weakest (cut) link of a loop
 *    included when the way passes it, and the whole loop's product once for each of the m extra
 *    rounds. So it falls with every day and every link between the sighting and the train.
 *
 * Candidates are ordered by confidence; several can be due (coupled trains, or a unit seen long
 * ago that another has since replaced): each confidence stands on its own, they are not shares.
 */

export interface PredictTrainOptions {
  trainCode: string;
  /** The day to predict. */
  serviceDay: number;
  /** The last day whose records are used (earlier than serviceDay). */
  asOfDay: number;
  /** Days up to asOfDay in which a unit must have been seen to count. Default 14. */
  lookbackDays?: number;
}

export interface PredictedEmu {
  emuId: number;
  emuCode: string;
  /** 0..1: the product of the forward weights of the links between the sighting and the train. */
  confidence: number;
  lastSeenServiceDay: number;
  /** The train the unit was last seen on (its last of that day). */
  lastSeenTrainCode: string;
  /** serviceDay - lastSeenServiceDay. */
  daysSinceSeen: number;
  /** Links between that train and the predicted one, along the route. */
  linksAhead: number;
}

export type PredictionReason = 'no_circulation' | 'no_recent_sighting' | 'no_unit_due';

export interface TrainPrediction {
  trainCode: string;
  serviceDay: number;
  asOfDay: number;
  routeId?: string;
  /** Days of the cycle (a loop); absent for a chain that is not a loop. */
  cycleDays?: number;
  candidates: PredictedEmu[];
  /** Why there are no candidates. */
  reason?: { code: PredictionReason; message: string };
}

interface LastSighting {
  emu_id: number;
  code: string;
  service_day: number;
  train_code: string;
}

/** Each unit that ran one of `codes` in the window, with its last record of the window. */
async function lastSightings(
  db: Queryable,
  codes: readonly string[],
  window: { firstDay: number; lastDay: number },
): Promise<LastSighting[]> {
  const r = await db.query<LastSighting>(
    `SELECT DISTINCT ON (r.emu_id) r.emu_id, e.code, r.service_day, r.train_code
       FROM daily_records r
       JOIN emus e ON e.id = r.emu_id
      WHERE r.service_day BETWEEN $2::int AND $3::int
        AND r.emu_id IN (SELECT emu_id FROM daily_records
                          WHERE train_code = ANY ($1::text[])
                            AND service_day BETWEEN $2::int AND $3::int)
      ORDER BY r.emu_id, r.service_day DESC, r.first_observed_at DESC, r.id DESC`,
    [codes, window.firstDay, window.lastDay],
  );
  return r.rows;
}

/** The forward weight of the link leaving node i (the cut link for a loop's last node). */
function forwardOf(route: StoredRoute, i: number): number {
  return route.nodes[i]?.next?.forward ?? 0;
}

export async function predictTrain(
  db: Queryable,
  options: PredictTrainOptions,
): Promise<TrainPrediction> {
  const [prediction] = await predictTrainDays(db, {
    ...options,
    serviceDays: [options.serviceDay],
  });
  return prediction!;
}

/**
 * predictTrain for several coming days of one train at one `asOfDay` (the train page's next
 * days): the route and the units' last sightings do not depend on the day predicted, so they are
 * read once for all of them (a train in no circulation: one query instead of one a day).
 */
export async function predictTrainDays(
  db: Queryable,
  options: Omit<PredictTrainOptions, 'serviceDay'> & { serviceDays: readonly number[] },
): Promise<TrainPrediction[]> {
  const trainCode = normalizeTrainCode(options.trainCode);
  const { asOfDay } = options;
  const lookback = options.lookbackDays ?? 14;
  const window = { firstDay: asOfDay - lookback + 1, lastDay: asOfDay };
  const route = await readRouteOfTrain(db, trainCode);
  if (!route) return noCirculation(trainCode, options.serviceDays, asOfDay);
  const nodeOf = new Map<string, number>();
  route.nodes.forEach((node, i) => node.trainCodes.forEach((code) => nodeOf.set(code, i)));
  const sightings = lastSightings(db, [...nodeOf.keys()], window);
  return Promise.all(
    options.serviceDays.map(async (serviceDay) =>
      predictOn(db, { trainCode, serviceDay, asOfDay, window, route, nodeOf }, await sightings),
    ),
  );
}

/**
 * What predictTrainDays answers for a train that no route of the current run holds (for a
 * caller that already knows it has none).
 */
export function noCirculation(
  trainCode: string,
  serviceDays: readonly number[],
  asOfDay: number,
): TrainPrediction[] {
  const code = normalizeTrainCode(trainCode);
  return serviceDays.map((serviceDay) => ({
    trainCode: code,
    serviceDay,
    asOfDay,
    candidates: [],
    reason: {
      code: 'no_circulation',
      message: `${code} is in no inferred circulation (no route of the current inference run holds it)`,
    },
  }));
}

/** One day's prediction on the route and the sightings read for it (see predictTrain). */
async function predictOn(
  db: Queryable,
  input: {
    trainCode: string;
    serviceDay: number;
    asOfDay: number;
    window: { firstDay: number; lastDay: number };
    route: StoredRoute;
    nodeOf: ReadonlyMap<string, number>;
  },
  sightings: readonly LastSighting[],
): Promise<TrainPrediction> {
  const { trainCode, serviceDay, asOfDay, window, route, nodeOf } = input;
  const base = { trainCode, serviceDay, asOfDay };
  const n = route.nodes.length;
  const k = route.nodes.findIndex((node) => node.trainCodes.includes(trainCode));
  const placed = await placeNodes(
    db,
    route.nodes.map((node) => ({ codes: node.trainCodes, deadhead: false, written: node.nodeKey })),
    k,
    serviceDay,
    window,
  );
  const c = placed.dayOffsets;
  const loop = route.metadata.containsLoopBreak;
  let cycleDays: number | undefined;
  if (loop) {
    const stops = route.nodes.map((node) => ({
      codes: node.trainCodes,
      deadhead: false,
      written: node.nodeKey,
    }));
    const wrap = await loopWrapStep(db, stops, placed, window);
    cycleDays = Math.max(1, c[n - 1]! - c[0]! + wrap);
  }
  const withRoute = {
    ...base,
    routeId: route.metadata.routeId,
    ...(cycleDays ? { cycleDays } : {}),
  };

  if (sightings.length === 0) {
    return {
      ...withRoute,
      candidates: [],
      reason: {
        code: 'no_recent_sighting',
        message: `no unit of ${trainCode}'s circulation was seen from ${ymdOfServiceDay(window.firstDay)} to ${ymdOfServiceDay(window.lastDay)}`,
      },
    };
  }
  const loopProduct = loop ? route.nodes.reduce((p, _, i) => p * forwardOf(route, i), 1) : 0;
  const candidates: PredictedEmu[] = [];
  for (const seen of sightings) {
    const j = nodeOf.get(seen.train_code);
    const days = serviceDay - seen.service_day;
    if (j === undefined || days <= 0) continue;
    // Days from node j to the first arrival at node k along the route.
    const firstArrival = k > j ? c[k]! - c[j]! : loop ? cycleDays! - c[j]! + c[k]! : undefined;
    if (firstArrival === undefined || days < firstArrival) continue;
    const extra = days - firstArrival;
    if (!loop ? extra !== 0 : extra % cycleDays! !== 0) continue;
    const rounds = loop ? extra / cycleDays! : 0;
    const partialLinks = k > j ? k - j : n - j + k;
    let confidence = loopProduct ** rounds;
    for (let step = 0, i = j; step < partialLinks; step++, i = (i + 1) % n)
      confidence *= forwardOf(route, i);
    candidates.push({
      emuId: seen.emu_id,
      emuCode: seen.code,
      confidence,
      lastSeenServiceDay: seen.service_day,
      lastSeenTrainCode: seen.train_code,
      daysSinceSeen: days,
      linksAhead: partialLinks + rounds * n,
    });
  }
  candidates.sort((a, b) => b.confidence - a.confidence || (a.emuCode < b.emuCode ? -1 : 1));
  if (candidates.length === 0) {
    return {
      ...withRoute,
      candidates,
      reason: {
        code: 'no_unit_due',
        message: `units of ${trainCode}'s circulation were seen up to ${ymdOfServiceDay(asOfDay)}, but following it none reaches ${trainCode} on ${ymdOfServiceDay(serviceDay)}`,
      },
    };
  }
  return { ...withRoute, candidates };
}
