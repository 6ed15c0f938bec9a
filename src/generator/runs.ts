import type { EmuModel } from './fleet.js';
import type { Rng } from './rng.js';
import type { Leg, StationNetwork } from './stations.js';
import type { DistanceTier, TrainPrefix } from './train-numbers.js';

/** A stop of a run; times are minutes from the service day's midnight (may pass 1440). */
export interface RunStop {
  station: number;
  arrive?: number;
  depart?: number;
  /** Kilometres from the origin. */
  km: number;
}

/** One train's path and times, before it gets a number. */
export interface Run {
  from: number;
  to: number;
  leg: Leg;
  prefix: TrainPrefix;
  stops: RunStop[];
  depart: number;
  arrive: number;
}

const DWELL_MINUTES = 2;
// Braking into and accelerating out of a stop, on top of the dwell.
const STOP_PENALTY_MINUTES = 3;
const CRUISE_SHARE = 0.9;

export function cruiseKmh(model: EmuModel, leg: Leg): number {
  return Math.min(model.operatingMaxSpeed, leg.corridor.lineSpeed) * CRUISE_SHARE;
}

/** Running time without intermediate stops: the least a run between two stations takes. */
export function nonStopMinutes(model: EmuModel, leg: Leg): number {
  return Math.round((leg.km / cruiseKmh(model, leg)) * 60) + STOP_PENALTY_MINUTES;
}

export function prefixFor(rng: Rng, model: EmuModel, leg: Leg): TrainPrefix {
  const fast = model.operatingMaxSpeed >= 300;
  if (leg.corridor.intercity && leg.km < 250 && rng.chance(0.9)) return 'C';
  if (leg.km < 150 && rng.chance(0.3)) return 'C';
  if (model.operatingMaxSpeed < 250) return leg.km < 200 && rng.chance(0.5) ? 'C' : 'D';
  if (fast) return rng.chance(0.9) ? 'G' : 'D';
  return rng.chance(0.35) ? 'G' : 'D';
}

export function tierFor(km: number): DistanceTier {
  return km >= 800 ? 0 : km >= 250 ? 1 : 2;
}

/**
 * Lays out a run from `from` to `to` departing at `depart`, stopping at a random choice of the
 * stations between (hubs more often, C trains at almost all), dropping stops, least important
 * first, until it arrives by `latestArrive` (a non-stop run always fits, the caller checked).
 */
export function layOutRun(
  rng: Rng,
  net: StationNetwork,
  model: EmuModel,
  leg: Leg,
  prefix: TrainPrefix,
  depart: number,
  latestArrive: number,
): Run {
  const { corridor, fromPos, toPos } = leg;
  const step = toPos > fromPos ? 1 : -1;
  const stopP = prefix === 'C' ? 0.85 : prefix === 'D' ? 0.6 : 0.4;
  const between: number[] = [];
  for (let p = fromPos + step; p !== toPos; p += step) {
    const s = net.stations[corridor.stations[p]!]!;
    if (rng.chance(Math.min(0.95, stopP + (s.weight - 1) * 0.25))) between.push(p);
  }
  const cruise = cruiseKmh(model, leg);
  const layout = (positions: number[]): Run => {
    const kmAt = (p: number) => Math.abs(corridor.km[p]! - corridor.km[fromPos]!);
    const stops: RunStop[] = [{ station: corridor.stations[fromPos]!, depart, km: 0 }];
    let t = depart;
    let prevKm = 0;
    for (const p of [...positions, toPos]) {
      const km = kmAt(p);
      t += ((km - prevKm) / cruise) * 60 + STOP_PENALTY_MINUTES;
      const arrive = Math.max(Math.round(t), (stops.at(-1)!.depart ?? depart) + 1);
      t = arrive;
      prevKm = km;
      if (p === toPos) {
        stops.push({ station: corridor.stations[p]!, arrive, km });
      } else {
        stops.push({ station: corridor.stations[p]!, arrive, depart: arrive + DWELL_MINUTES, km });
        t += DWELL_MINUTES;
      }
    }
    return {
      from: corridor.stations[fromPos]!,
      to: corridor.stations[toPos]!,
      leg,
      prefix,
      stops,
      depart,
      arrive: stops.at(-1)!.arrive!,
    };
  };
  let run = layout(between);
  while (run.arrive > latestArrive && between.length > 0) {
    let weakest = 0;
    for (let i = 1; i < between.length; i++) {
      const w = net.stations[corridor.stations[between[i]!]!]!.weight;
      if (w < net.stations[corridor.stations[between[weakest]!]!]!.weight) weakest = i;
    }
    between.splice(weakest, 1);
    run = layout(between);
  }
  return run;
}
