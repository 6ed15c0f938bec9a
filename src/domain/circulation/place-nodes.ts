import type { Queryable } from '../../shared/db/db.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';
import { coverageInForceSql } from '../timetables/timetable-lookup.js';
import { splitTrainCode, type TrainCode } from '../trains/train-code.js';
import { dayOffsetsOf, dayStep, observedDaySteps, type OffsetSpan } from './circulation-days.js';
import type { TrainCirculationNode } from './train-circulation.js';

/** One train of a circulation before it is placed in time. */
export interface CirculationStop {
  /** Its numbers in running order (a deadhead's without the leading 0). */
  codes: readonly string[];
  deadhead: boolean;
  /** As the table wrote it (0D6911, G4340/37); the node key for an inferred route. */
  written: string;
}

/** A circulation's trains placed in time. */
export interface PlacedNodes {
  nodes: TrainCirculationNode[];
  /** Service day of each node. */
  serviceDays: number[];
  /** Day of each node within the sequence (the first node is day 0). */
  dayOffsets: number[];
}

interface NodeTimetable extends OffsetSpan {
  internalCode: string;
  allCodes: string[];
  startStation: string;
  endStation: string;
}

function trainCodes(codes: readonly string[]): TrainCode[] {
  const out: TrainCode[] = [];
  for (const code of codes) {
    try {
      out.push(splitTrainCode(code));
    } catch {
      // A stored number always parses; one that does not is left out rather than failing the read.
    }
  }
  return out;
}

/**
 * The timetable in force for each asked node on its day, found by the first of its numbers that
 * has one, in one query.
 */
async function timetablesOf(
  db: Queryable,
  asked: readonly { node: number; day: number; codes: readonly string[] }[],
): Promise<Map<number, NodeTimetable>> {
  const rows = asked.flatMap((a) => a.codes.map((code, ord) => ({ ...a, code, ord })));
  const found = new Map<number, NodeTimetable & { ord: number }>();
  if (rows.length === 0) return found;
  // The timetable's columns named as NodeTimetable's fields.
  const r = await db.query<NodeTimetable & { node: number; ord: number }>(
    `SELECT q.node, q.ord, t.internal_code AS "internalCode", t.all_codes AS "allCodes",
            t.start_station AS "startStation", t.end_station AS "endStation",
            t.start_offset AS "startOffset", t.end_offset AS "endOffset"
       FROM unnest($1::int[], $2::int[], $3::int[], $4::text[]) AS q(node, ord, day, code)
       CROSS JOIN LATERAL (
         SELECT t.* FROM timetable_coverage c JOIN timetables t ON t.id = c.timetable_id
          WHERE c.train_code = q.code AND ${coverageInForceSql('c', 'q.day')}
          ORDER BY c.service_day_start DESC
          LIMIT 1) t`,
    [
      rows.map((x) => x.node),
      rows.map((x) => x.ord),
      rows.map((x) => x.day),
      rows.map((x) => x.code),
    ],
  );
  for (const { node, ...timetable } of r.rows) {
    const seen = found.get(node);
    if (seen && seen.ord <= timetable.ord) continue;
    found.set(node, timetable);
  }
  return found;
}

/**
 * Places a circulation's trains in time: the anchor node runs on `anchorDay`, every other node
 * on the day its place in the sequence gives it (see circulation-days.ts), with the timetable in
 * force on that day. Deadheads run on the day of the train before them (of the one after, at
 * the start) and have no timetable. `evidence` is the range of service days whose records say
 * how trains follow each other.
 */
export async function placeNodes(
  db: Queryable,
  stops: readonly CirculationStop[],
  anchor: number,
  anchorDay: number,
  evidence: { firstDay: number; lastDay: number },
): Promise<PlacedNodes> {
  const passenger = stops.flatMap((s, i) => (s.deadhead ? [] : [i]));
  const onAnchorDay = await timetablesOf(
    db,
    passenger.map((i) => ({ node: i, day: anchorDay, codes: stops[i]!.codes })),
  );
  const pairs = passenger.slice(1).map((to, k) => ({
    from: stops[passenger[k]!]!.codes,
    to: stops[to]!.codes,
  }));
  const seen = await observedDaySteps(db, pairs, evidence);
  const steps = pairs.map((_, k) =>
    dayStep(seen[k], onAnchorDay.get(passenger[k]!), onAnchorDay.get(passenger[k + 1]!)),
  );
  const passengerOffsets = dayOffsetsOf(steps);

  const dayOffsets: number[] = [];
  let p = -1;
  stops.forEach((_, i) => {
    if (passenger[p + 1] === i) p++;
    dayOffsets.push(passengerOffsets[Math.max(p, 0)] ?? 0);
  });
  const serviceDays = dayOffsets.map((d) => anchorDay + d - dayOffsets[anchor]!);

  const elsewhere = await timetablesOf(
    db,
    passenger
      .filter((i) => serviceDays[i] !== anchorDay)
      .map((i) => ({ node: i, day: serviceDays[i]!, codes: stops[i]!.codes })),
  );
  const nodes = stops.map((stop, i): TrainCirculationNode => {
    if (stop.deadhead) {
      return {
        internalCode: stop.written,
        allCodes: [],
        startStation: '',
        endStation: '',
        startAt: 0,
        endAt: 0,
      };
    }
    const day = serviceDays[i]!;
    const t = day === anchorDay ? onAnchorDay.get(i) : elsewhere.get(i);
    if (!t) {
      return {
        internalCode: '',
        allCodes: trainCodes(stop.codes),
        startStation: '',
        endStation: '',
        startAt: 0,
        endAt: 0,
      };
    }
    const midnight = midnightOfServiceDay(day);
    return {
      internalCode: t.internalCode,
      allCodes: trainCodes(t.allCodes),
      startStation: t.startStation,
      endStation: t.endStation,
      startAt: midnight + t.startOffset,
      endAt: midnight + t.endOffset,
    };
  });
  return { nodes, serviceDays, dayOffsets };
}

function spanOf(node: TrainCirculationNode, serviceDay: number): OffsetSpan | undefined {
  if (node.startAt === 0) return undefined;
  const midnight = midnightOfServiceDay(serviceDay);
  return { startOffset: node.startAt - midnight, endOffset: node.endAt - midnight };
}

/**
 * Days from a placed loop's last train to its first, coming round (the same rule as every
 * other step: the timetables, else what was seen in `evidence`).
 */
export async function loopWrapStep(
  db: Queryable,
  stops: readonly CirculationStop[],
  placed: PlacedNodes,
  evidence: { firstDay: number; lastDay: number },
): Promise<number> {
  const n = stops.length;
  const [seen] = await observedDaySteps(
    db,
    [{ from: stops[n - 1]!.codes, to: stops[0]!.codes }],
    evidence,
  );
  return dayStep(
    seen,
    spanOf(placed.nodes[n - 1]!, placed.serviceDays[n - 1]!),
    spanOf(placed.nodes[0]!, placed.serviceDays[0]!),
  );
}
