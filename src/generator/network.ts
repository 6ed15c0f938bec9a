import type { Bureau, Depot } from './bureaus.js';
import { isCoupleable, type EmuModel, type EmuUnit } from './fleet.js';
import type { Rng } from './rng.js';
import { layOutRun, nonStopMinutes, prefixFor, tierFor, type Run, type RunStop } from './runs.js';
import type { StationNetwork } from './stations.js';
import { TrainNumberPool } from './train-numbers.js';

/** A numbered train: runs every day, always as the same cycle day of one circulation. */
export interface Train {
  /** As written in circulation tables: G1234, or G4340/37 for a paired run. */
  written: string;
  /** Every number the run carries, in order: [G4340, G4337]. */
  codes: string[];
  /** For a paired run, the stop from which the second number applies. */
  changeStop?: number;
  internalCode: string;
  stops: RunStop[];
  depart: number;
  arrive: number;
  circulation: Circulation;
}

export interface Circulation {
  id: string;
  bureau: Bureau;
  depot: Depot;
  model: EmuModel;
  cycleDays: number;
  coupled: boolean;
  /** groups[k]: the unit(s) that run cycle day (k + dayIndex) mod cycleDays; two when coupled. */
  groups: EmuUnit[][];
  /** The trains of each cycle day, in running order. */
  days: Train[][];
}

export interface Network {
  circulations: Circulation[];
  trains: Train[];
  spares: EmuUnit[];
}

export const SPARE_SHARE = 0.04;
const COUPLED_CHANCE = 0.08;
const PAIRED_CHANCE = 0.055;
const LATE_DAY_CHANCE = 0.035;
const CYCLE_DAY_WEIGHTS = [0.38, 0.3, 0.18, 0.14];
// A service day runs from the first departure (06:00-10:00) to about 23:30: room for this many
// minutes of running and turnarounds.
const WORKING_DAY = 14 * 60;
const AVERAGE_TURNAROUND = 50;
const MIN_KM = 40;
const MIN_GAP = 20;
const MAX_GAP = 120;
// Normal days end by 23:50; a late last train may arrive up to 01:00 the next morning.
const DAY_END = 23 * 60 + 50;
const LATE_END = 25 * 60;
const MIDNIGHT = 24 * 60;
// Time kept free for each train still to come in the day: a short run plus a turnaround.
const RESERVE_PER_LEG = 50;

function turnaround(rng: Rng): number {
  const u = rng.float();
  return MIN_GAP + Math.floor(u * u * (MAX_GAP - MIN_GAP + 1));
}

class CirculationPlanner {
  private readonly homeSet = new Set<number>();
  private readonly reachable = new Map<number, number[]>();

  constructor(
    private readonly rng: Rng,
    private readonly net: StationNetwork,
    private readonly model: EmuModel,
    private readonly home: number,
  ) {
    for (const c of net.corridorsAt[home]!) for (const s of c.stations) this.homeSet.add(s);
    const runs = this.destinations(home)
      .map((s) => this.minutes(home, s))
      .sort((a, b) => a - b);
    this.typicalRun = runs[Math.floor(runs.length / 2)] ?? 60;
  }

  private readonly typicalRun: number;

  /**
   * Trains in a cycle day: as many typical runs from home as fit in a working day, give or
   * take, so that intercity units shuttle five or six times and long-haul ones run twice.
   */
  private trainsPerDay(): number {
    const fit = WORKING_DAY / (this.typicalRun + AVERAGE_TURNAROUND);
    return Math.max(2, Math.min(6, Math.round(fit * (0.3 + 0.45 * this.rng.float()))));
  }

  /** Stations a run from `s` can reach without leaving the home station's corridors. */
  private destinations(s: number): number[] {
    let list = this.reachable.get(s);
    if (!list) {
      list = [...this.homeSet]
        .filter((t) => t !== s && (this.net.leg(s, t)?.km ?? 0) >= MIN_KM)
        .sort((a, b) => a - b);
      this.reachable.set(s, list);
    }
    return list;
  }

  private minutes(from: number, to: number): number {
    return nonStopMinutes(this.model, this.net.leg(from, to)!);
  }

  /** Cycle days of runs, or undefined when this attempt painted itself into a corner. */
  plan(cycleDays: number): Run[][] | undefined {
    const days: Run[][] = [];
    let at = this.home;
    for (let c = 0; c < cycleDays; c++) {
      const lastDay = c === cycleDays - 1;
      const late = this.rng.chance(LATE_DAY_CHANCE);
      const count = this.trainsPerDay();
      const runs: Run[] = [];
      let ready = late ? this.rng.int(480, 600) : this.rng.int(360, 600);
      for (let i = 0; i < count; i++) {
        const after = count - 1 - i;
        const prevArrive = runs.at(-1)?.arrive;
        const lateLeg = late && after === 0 && prevArrive !== undefined;
        const end =
          after === 0 ? (lateLeg ? LATE_END : DAY_END) : DAY_END - after * RESERVE_PER_LEG;
        let depart = i === 0 ? ready : ready + turnaround(this.rng);
        let options = this.destinations(at).filter((s) => {
          if (lastDay && after === 0 && s !== this.home) return false;
          if (lastDay && after === 1 && s === this.home) return false;
          const arrive = depart + this.minutes(at, s);
          if (arrive > end) return false;
          // On the last day every step must still leave a way home in time.
          if (lastDay && after > 0 && s !== this.home) {
            const back = this.minutes(s, this.home);
            if (arrive + (after - 1) * RESERVE_PER_LEG + MIN_GAP + back > DAY_END) return false;
          }
          return true;
        });
        if (lateLeg) {
          // Leave as late as a turnaround allows, so that the run ends after midnight.
          const pastMidnight = options.filter((s) => {
            const d = this.minutes(at, s);
            return prevArrive + MAX_GAP + d > MIDNIGHT + 5 && prevArrive + MIN_GAP + d <= LATE_END;
          });
          if (pastMidnight.length > 0) {
            options = pastMidnight;
            const s = this.rng.pick(options);
            const target = MIDNIGHT + this.rng.int(5, 50) - this.minutes(at, s);
            depart = Math.min(prevArrive + MAX_GAP, Math.max(prevArrive + MIN_GAP, target));
            options = [s];
          }
        }
        if (options.length === 0) return undefined;
        const budget = (end - depart) / (after + 1);
        const target = budget * (0.6 + 0.4 * this.rng.float());
        const to = this.rng.weighted(options, (s) => {
          const fit = Math.abs(this.minutes(at, s) - target) / 40;
          return this.net.stations[s]!.weight ** 1.5 * Math.exp(-fit);
        });
        const leg = this.net.leg(at, to)!;
        const prefix = prefixFor(this.rng, this.model, leg);
        const run = layOutRun(this.rng, this.net, this.model, leg, prefix, depart, end);
        runs.push(run);
        ready = run.arrive;
        at = to;
      }
      days.push(late && ready <= MIDNIGHT ? this.shiftPastMidnight(runs) : runs);
    }
    return at === this.home ? days : undefined;
  }

  /**
   * A late day whose last train could not be made to cross midnight with a turnaround alone
   * starts later instead, if its first train still leaves by 13:00.
   */
  private shiftPastMidnight(runs: Run[]): Run[] {
    const delta = MIDNIGHT + this.rng.int(5, 50) - runs.at(-1)!.arrive;
    if (delta <= 0 || runs[0]!.depart + delta > 13 * 60) return runs;
    const shift = (m: number | undefined) => (m === undefined ? undefined : m + delta);
    return runs.map((r) => ({
      ...r,
      depart: r.depart + delta,
      arrive: r.arrive + delta,
      stops: r.stops.map((st) => {
        const moved: RunStop = { station: st.station, km: st.km };
        const arrive = shift(st.arrive);
        const depart = shift(st.depart);
        if (arrive !== undefined) moved.arrive = arrive;
        if (depart !== undefined) moved.depart = depart;
        return moved;
      }),
    }));
  }

  /** Home to the nearest station and back, every day: always possible. */
  shuttle(cycleDays: number): Run[][] {
    const near = this.destinations(this.home).reduce((a, b) =>
      this.net.leg(this.home, b)!.km < this.net.leg(this.home, a)!.km ? b : a,
    );
    const days: Run[][] = [];
    for (let c = 0; c < cycleDays; c++) {
      const out = this.runBetween(this.home, near, this.rng.int(360, 600));
      const back = this.runBetween(near, this.home, out.arrive + turnaround(this.rng));
      days.push([out, back]);
    }
    return days;
  }

  private runBetween(from: number, to: number, depart: number): Run {
    const leg = this.net.leg(from, to)!;
    const prefix = prefixFor(this.rng, this.model, leg);
    return layOutRun(this.rng, this.net, this.model, leg, prefix, depart, DAY_END);
  }
}

function internalCode(rng: Rng, net: StationNetwork, run: Run, firstCode: string): string {
  const version = '0123456789ABCDEFGHJKLMN'[rng.int(0, 22)]!;
  return `${net.stations[run.from]!.code2}${firstCode.padStart(8, '0')}0${version}`;
}

function numberRun(
  rng: Rng,
  net: StationNetwork,
  pool: TrainNumberPool,
  run: Run,
  circulation: Circulation,
): Train {
  const tier = tierFor(run.leg.km);
  const odd = run.leg.toPos > run.leg.fromPos;
  let codes: string[] | undefined;
  let changeStop: number | undefined;
  if (run.stops.length >= 3 && rng.chance(PAIRED_CHANCE)) {
    codes = pool.takePaired(run.prefix, tier, odd);
    if (codes) changeStop = rng.int(1, run.stops.length - 2);
  }
  codes ??= [pool.take(run.prefix, tier, odd)];
  const written = codes.length === 2 ? `${codes[0]}/${codes[1]!.slice(-2)}` : codes[0]!;
  return {
    written,
    codes,
    ...(changeStop !== undefined ? { changeStop } : {}),
    internalCode: internalCode(rng, net, run, codes[0]!),
    stops: run.stops,
    depart: run.depart,
    arrive: run.arrive,
    circulation,
  };
}

/**
 * Gives every unit of the fleet a circulation (or keeps it as a spare). Units of one bureau and
 * model are pooled; each circulation takes cycleDays units (twice that when coupled), all kept
 * by one depot, and plans its trains from and back to the depot's home station.
 */
export function buildNetwork(rng: Rng, net: StationNetwork, fleet: EmuUnit[]): Network {
  const pool = new TrainNumberPool(rng);
  const circulations: Circulation[] = [];
  const trains: Train[] = [];
  const spares: EmuUnit[] = [];
  const pools = new Map<string, EmuUnit[]>();
  for (const u of fleet) {
    const key = `${u.bureau.code}\u0000${u.model.model}`;
    let list = pools.get(key);
    if (!list) pools.set(key, (list = []));
    list.push(u);
  }
  for (const units of pools.values()) {
    const { bureau, model } = units[0]!;
    const shuffled = rng.shuffle([...units]);
    const spareCount = Math.floor(units.length * SPARE_SHARE + rng.float());
    for (const u of shuffled.splice(0, spareCount)) {
      u.depot = rng.weighted(bureau.depots, (d) => d.weight);
      spares.push(u);
    }
    while (shuffled.length > 0) {
      let cycleDays = rng.weightedIndex(CYCLE_DAY_WEIGHTS) + 1;
      let coupled = isCoupleable(model) && rng.chance(COUPLED_CHANCE);
      if ((coupled ? 2 : 1) * cycleDays > shuffled.length) {
        if (coupled && shuffled.length >= 2) cycleDays = Math.floor(shuffled.length / 2);
        else {
          coupled = false;
          cycleDays = Math.min(cycleDays, shuffled.length);
        }
      }
      const taken = shuffled.splice(0, (coupled ? 2 : 1) * cycleDays);
      const depot = rng.weighted(bureau.depots, (d) => d.weight);
      for (const u of taken) u.depot = depot;
      const groups: EmuUnit[][] = [];
      for (let k = 0; k < cycleDays; k++)
        groups.push(coupled ? [taken[2 * k]!, taken[2 * k + 1]!] : [taken[k]!]);
      const home = net.byName.get(depot.home);
      if (!home) throw new Error(`depot ${depot.depot} has unknown home station ${depot.home}`);
      const planner = new CirculationPlanner(rng, net, model, home.index);
      let plan: Run[][] | undefined;
      for (let attempt = 0; attempt < 40 && !plan; attempt++) plan = planner.plan(cycleDays);
      plan ??= planner.shuttle(cycleDays);
      const circulation: Circulation = {
        id: `${bureau.code}${String(circulations.length + 1).padStart(5, '0')}`,
        bureau,
        depot,
        model,
        cycleDays,
        coupled,
        groups,
        days: [],
      };
      circulation.days = plan.map((runs) =>
        runs.map((run) => numberRun(rng, net, pool, run, circulation)),
      );
      for (const day of circulation.days) trains.push(...day);
      circulations.push(circulation);
    }
  }
  return { circulations, trains, spares };
}
