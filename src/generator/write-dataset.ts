import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  InvalidServiceDateError,
  midnightOfServiceDay,
  serviceDayFromYmd,
  ymdOfServiceDay,
} from '../shared/time/service-day.js';
import { buildFleet, fleetCsv } from './fleet.js';
import { buildNetwork } from './network.js';
import {
  LineSink,
  OUTPUT_FILES,
  circulationsJson,
  compareTrains,
  prepareOutputDirectory,
  timetableLine,
} from './outputs.js';
import { Rng } from './rng.js';
import { SightingMaker, type SightingRates, type TimedLine } from './sightings.js';
import { buildStationNetwork } from './stations.js';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

export interface GenerateOptions {
  /** Units in the fleet, 1 to 10,000 (the G/D/C number space runs out beyond). */
  emus: number;
  /** Service days to generate, 1 to 3,660. */
  days: number;
  /** Output directory; created if absent, must be empty or hold an earlier dataset. */
  out: string;
  /** Default 1. The same seed and options give byte-identical output. */
  seed?: number;
  /** First service day, YYYYMMDD. Default 20260801. */
  start?: string;
  /** Share of sightings dropped. Default 0.2. */
  missingRate?: number;
  /** Share of runs (a train run by one unit on one day) with no sighting at all. Default 0. */
  runUnseenRate?: number;
  /**
   * Share of runs whose sightings are reported 2 to 8 hours late (within their service day), so
   * that the order of first sightings is not the running order. Default 0.
   */
  lateRunRate?: number;
  /** Sightings drawn per run, before any is dropped: [min, max], 1 to 20. Default [3, 7]. */
  sightingsPerRun?: readonly [number, number];
  /** Share of sightings naming a wrong, random other unit. Default 0.01. */
  wrongRate?: number;
  /** Share of sightings followed by a malformed line. Default 0. */
  badRate?: number;
  /** Share of sightings written twice (same line, same ref). Default 0.001. */
  duplicateRate?: number;
  /** Share of sightings whose observedAt is ISO-8601 with +08:00 instead of Unix seconds. Default 0.03. */
  isoTimeRate?: number;
  /** Share of sightings before midnight that state their serviceDate. Default 0.1. */
  serviceDateRate?: number;
  /** Called after each service day is written. */
  onDay?: (progress: { done: number; total: number; date: string }) => void;
}

export interface GeneratedDay {
  date: string;
  serviceDay: number;
  /** True records: (train run, unit) pairs of this service day. */
  records: number;
  /** Valid sightings generated for this service day's runs (wherever their file). */
  sightings: number;
}

export interface GeneratedManifest {
  seed: number;
  emus: number;
  days: number;
  start: string;
  options: SightingRates;
  counts: {
    stations: number;
    circulations: number;
    coupledCirculations: number;
    spareUnits: number;
    trains: number;
    pairedTrains: number;
    crossMidnightTrains: number;
    records: number;
    assignmentLines: number;
    sightings: number;
    wrongSightings: number;
    droppedSightings: number;
    unseenRuns: number;
    duplicateLines: number;
    badLines: number;
    lines: number;
  };
  perDay: GeneratedDay[];
  /** Observation files with their line counts; one more than days when late trains spill over. */
  files: { path: string; lines: number }[];
}

export class InvalidGenerateOptionError extends EmutrackError {
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super('generator_option_invalid', `${option}: ${reason}`);
  }
}

function checkInteger(option: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InvalidGenerateOptionError(option, `expected an integer ${min}-${max}, got ${value}`);
}

function rate(option: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0 || v > 1)
    throw new InvalidGenerateOptionError(option, `expected a share from 0 to 1, got ${v}`);
  return v;
}

/** Generates a synthetic network and its sightings into options.out; see outputs.ts. */
export async function generateDataset(options: GenerateOptions): Promise<GeneratedManifest> {
  checkInteger('emus', options.emus, 1, 10_000);
  checkInteger('days', options.days, 1, 3_660);
  const seed = options.seed ?? 1;
  checkInteger('seed', seed, 0, Number.MAX_SAFE_INTEGER);
  const start = options.start ?? '20260801';
  let startDay: number;
  try {
    startDay = serviceDayFromYmd(start);
  } catch (err) {
    if (err instanceof InvalidServiceDateError)
      throw new InvalidGenerateOptionError('start', err.message);
    throw err;
  }
  const [minSightings, maxSightings] = options.sightingsPerRun ?? [3, 7];
  checkInteger('sightingsPerRun', minSightings, 1, 20);
  checkInteger('sightingsPerRun', maxSightings, minSightings, 20);
  const rates: SightingRates = {
    runUnseenRate: rate('runUnseenRate', options.runUnseenRate, 0),
    lateRunRate: rate('lateRunRate', options.lateRunRate, 0),
    minSightingsPerRun: minSightings,
    maxSightingsPerRun: maxSightings,
    missingRate: rate('missingRate', options.missingRate, 0.2),
    wrongRate: rate('wrongRate', options.wrongRate, 0.01),
    isoTimeRate: rate('isoTimeRate', options.isoTimeRate, 0.03),
    duplicateRate: rate('duplicateRate', options.duplicateRate, 0.001),
    serviceDateRate: rate('serviceDateRate', options.serviceDateRate, 0.1),
    badRate: rate('badRate', options.badRate, 0),
  };

  // Separate streams: the network depends on the seed alone, never on the sighting rates.
  const root = Rng.fromSeed(seed);
  const networkRng = root.fork();
  const sightingRng = root.fork();
  const badRng = root.fork();
  const runRng = root.fork();
  const lateRng = root.fork();
  const stations = buildStationNetwork();
  const fleet = buildFleet(networkRng, options.emus);
  const network = buildNetwork(networkRng, stations, fleet);

  const out = options.out;
  await prepareOutputDirectory(out);
  await writeFile(path.join(out, OUTPUT_FILES.fleet), fleetCsv(fleet));
  const timetables = [...network.trains].sort(compareTrains);
  await writeFile(
    path.join(out, OUTPUT_FILES.timetables),
    timetables.map((t) => `${timetableLine(stations, t, start)}\n`).join(''),
  );
  await writeFile(
    path.join(out, OUTPUT_FILES.circulations),
    circulationsJson(network.circulations),
  );

  const maker = new SightingMaker(sightingRng, badRng, runRng, fleet, rates, lateRng);
  const assignments = new LineSink(path.join(out, OUTPUT_FILES.assignments));
  const perDay: GeneratedDay[] = [];
  const files: GeneratedManifest['files'] = [];
  let assignmentLines = 0;
  let carry: TimedLine[] = [];
  const writeDayFile = async (date: string, lines: TimedLine[]) => {
    lines.sort((a, b) => a.t - b.t);
    const rel = `${OUTPUT_FILES.observations}/${date}.ndjson`;
    await writeFile(path.join(out, rel), lines.map((l) => `${l.line}\n`).join(''));
    files.push({ path: rel, lines: lines.length });
  };

  for (let d = 0; d < options.days; d++) {
    const serviceDay = startDay + d;
    const ymd = ymdOfServiceDay(serviceDay);
    const midnight = midnightOfServiceDay(serviceDay);
    const nextMidnight = midnightOfServiceDay(serviceDay + 1);
    const today = carry;
    const tomorrow: TimedLine[] = [];
    const sightingsBefore = maker.counts.sightings;
    let records = 0;
    const assigned: string[] = [];
    for (const c of network.circulations) {
      for (let k = 0; k < c.cycleDays; k++) {
        const group = c.groups[k]!;
        for (const train of c.days[(k + d) % c.cycleDays]!) {
          for (const unit of group) {
            records++;
            for (const code of train.codes) {
              assigned.push(
                `{"serviceDay":${serviceDay},"trainCode":"${code}","emuCode":"${unit.code}","coupled":${c.coupled}}\n`,
              );
              assignmentLines++;
            }
            maker.emit(
              { train, unit, formation: group, ymd, midnight, nextMidnight },
              today,
              tomorrow,
            );
          }
        }
      }
    }
    await assignments.write(assigned.join(''));
    await writeDayFile(ymd, today);
    carry = tomorrow;
    perDay.push({
      date: ymd,
      serviceDay,
      records,
      sightings: maker.counts.sightings - sightingsBefore,
    });
    options.onDay?.({ done: d + 1, total: options.days, date: ymd });
  }
  if (carry.length > 0) await writeDayFile(ymdOfServiceDay(startDay + options.days), carry);
  await assignments.close();

  const c = maker.counts;
  const manifest: GeneratedManifest = {
    seed,
    emus: options.emus,
    days: options.days,
    start,
    options: rates,
    counts: {
      stations: stations.stations.length,
      circulations: network.circulations.length,
      coupledCirculations: network.circulations.filter((x) => x.coupled).length,
      spareUnits: network.spares.length,
      trains: network.trains.length,
      pairedTrains: network.trains.filter((t) => t.codes.length > 1).length,
      crossMidnightTrains: network.trains.filter((t) => t.arrive > 1440).length,
      records: perDay.reduce((a, p) => a + p.records, 0),
      assignmentLines,
      sightings: c.sightings,
      wrongSightings: c.wrong,
      droppedSightings: c.dropped,
      unseenRuns: c.unseenRuns,
      duplicateLines: c.duplicateLines,
      badLines: c.badLines,
      lines: files.reduce((a, f) => a + f.lines, 0),
    },
    perDay,
    files,
  };
  await writeFile(path.join(out, OUTPUT_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
