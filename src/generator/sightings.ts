import { getTimezoneOffset } from 'date-fns-tz';
import { parseEmuCode } from '../domain/emus/normalize-emu-code.js';
import { SERVICE_TIME_ZONE } from '../shared/time/service-day.js';
import type { EmuUnit } from './fleet.js';
import type { Train } from './network.js';
import type { Rng } from './rng.js';

/**
 * How sightings are degraded. `runUnseenRate` is a probability per run (one train run by one
 * unit on one day: none of its sightings is written); the other rates are per sighting (or per
 * line). A run draws `minSightingsPerRun` to `maxSightingsPerRun` sightings (default 3 to 7).
 */
export interface SightingRates {
  runUnseenRate: number;
  /**
   * Share of runs reported late: every sighting of such a run says it was seen 2 to 8 hours
   * after it was (a report written up later in the day), at most until just before midnight.
   */
  lateRunRate: number;
  minSightingsPerRun: number;
  maxSightingsPerRun: number;
  missingRate: number;
  wrongRate: number;
  isoTimeRate: number;
  duplicateRate: number;
  serviceDateRate: number;
  badRate: number;
}

export interface SightingCounts {
  /** Valid sighting lines written, duplicates not counted. */
  sightings: number;
  wrong: number;
  dropped: number;
  /** Runs with every sighting dropped by `runUnseenRate` (a run left empty by missingRate alone is not counted). */
  unseenRuns: number;
  duplicateLines: number;
  badLines: number;
}

/** A line waiting to be sorted into its day's file. */
export interface TimedLine {
  t: number;
  line: string;
}

/** One service day of one train as run by one unit, with absolute times. */
export interface TrueRun {
  train: Train;
  unit: EmuUnit;
  /** Every unit of the formation: a wrong sighting names none of them. */
  formation: readonly EmuUnit[];
  ymd: string;
  midnight: number;
  nextMidnight: number;
}

const SOURCES = ['travel-code', 'station-board', 'report'] as const;
const SOURCE_WEIGHTS = [0.45, 0.35, 0.2];
const REF_TAGS = { 'travel-code': 'tc', 'station-board': 'sb', report: 'rp' } as const;
const REF_SHARE = 0.7;
const COMPACT_SHARE = 0.1;
const QR_SHARE = 0.3;
const PAIRED_WRITTEN_SHARE = 0.45;
const SEAT_LETTERS = 'ABCDF';

/** One run in FAULT_EVERY replaced a failed unit; one in SPARE_EVERY was run by a hot spare. */
const FAULT_EVERY = 400;
const SPARE_EVERY = 500;

/** FNV-1a of a text: which runs are fault replacements or spares, without drawing numbers. */
function runHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * What a sighting says besides the pair (observations' optional fields), from what the sighting
 * is, so that no random number is drawn for it (the rest of the data stays as it was):
 * - position: a travel code's QR names the coach, so such a sighting of a unit of the run knows
 *   its place (single, or first or second of a coupled formation);
 * - fault / spare: the reports of a run picked by its hash say the unit replaced a failed one
 *   (one run in FAULT_EVERY) or was a hot spare (one in SPARE_EVERY).
 */
function statusFields(
  run: TrueRun,
  unit: EmuUnit,
  source: (typeof SOURCES)[number],
  fromQr: boolean,
): { position?: string; fault?: boolean; spare?: boolean } {
  const out: { position?: string; fault?: boolean; spare?: boolean } = {};
  const place = run.formation.indexOf(unit);
  if (fromQr && place >= 0) {
    out.position = run.formation.length === 1 ? 'single' : place === 0 ? 'first' : 'second';
  }
  if (source === 'report' && unit === run.unit) {
    const h = runHash(`${run.ymd}|${run.train.codes[0]}|${unit.code}`);
    if (h % FAULT_EVERY === 0) out.fault = true;
    else if (h % SPARE_EVERY === 1) out.spare = true;
  }
  return out;
}

/** The code with its dashes left out, if that still names the same unit (CR400BFA5156). */
export function compactEmuCode(code: string): string {
  const bare = code.replace(/-/g, '');
  if (parseEmuCode(bare).code === code) return bare;
  const dash = code.lastIndexOf('-');
  const alt = code.slice(0, dash) + code.slice(dash + 1);
  return parseEmuCode(alt).code === code ? alt : code;
}

const offsetCache = new Map<number, number>();

/** ISO-8601 in Shanghai local time with its offset: 2026-08-14T08:30:00+08:00. */
export function isoLocal(unixSeconds: number): string {
  const hour = Math.floor(unixSeconds / 3600);
  let offsetMs = offsetCache.get(hour);
  if (offsetMs === undefined) {
    offsetMs = getTimezoneOffset(SERVICE_TIME_ZONE, new Date(hour * 3600_000));
    offsetCache.set(hour, offsetMs);
  }
  const local = new Date(unixSeconds * 1000 + offsetMs).toISOString().slice(0, 19);
  const off = Math.abs(offsetMs) / 60_000;
  const sign = offsetMs < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.floor(off / 60)).padStart(2, '0')}:${String(off % 60).padStart(2, '0')}`;
}

function minuteToUnix(run: TrueRun, minute: number): number {
  return minute < 1440 ? run.midnight + minute * 60 : run.nextMidnight + (minute - 1440) * 60;
}

/**
 * Writes the sightings of true runs. Every sighting draws the same random numbers whatever the
 * rates, so the same seed with a lower missing or wrong rate sees the same sightings, fewer of
 * them dropped or misnamed. Malformed lines come from their own stream for the same reason.
 */
export class SightingMaker {
  readonly counts: SightingCounts = {
    sightings: 0,
    wrong: 0,
    dropped: 0,
    unseenRuns: 0,
    duplicateLines: 0,
    badLines: 0,
  };
  private readonly compact: string[];
  /** Numbers every sighting drawn, dropped ones too, so that refs do not move with the rates. */
  private seq = 0;
  private day = '';
  /** Content of the day's sightings without a ref: ingestion would take two alike as one. */
  private readonly refless = new Set<string>();

  /**
   * `runRng` draws only whether a whole run goes unseen, one number per run: a separate stream,
   * so that the sightings drawn do not move with the run-unseen rate (and a dataset generated
   * at rate 0 is the same bytes as before the rate existed).
   */
  constructor(
    private readonly rng: Rng,
    private readonly badRng: Rng,
    private readonly runRng: Rng,
    private readonly fleet: readonly EmuUnit[],
    private readonly rates: SightingRates,
    /** Whether a run is reported late and by how much: two numbers per run, its own stream. */
    private readonly lateRng: Rng,
  ) {
    this.compact = fleet.map((u) => compactEmuCode(u.code));
  }

  /** Adds the run's sightings to `today` or, after midnight, to `tomorrow`. */
  emit(run: TrueRun, today: TimedLine[], tomorrow: TimedLine[]): void {
    if (this.day !== run.ymd) {
      this.day = run.ymd;
      this.refless.clear();
    }
    const { train } = run;
    const start = minuteToUnix(run, train.depart);
    const end = minuteToUnix(run, train.arrive);
    const changeAt =
      train.changeStop !== undefined
        ? minuteToUnix(run, train.stops[train.changeStop]!.depart!)
        : Infinity;
    const n = this.rng.int(this.rates.minSightingsPerRun, this.rates.maxSightingsPerRun);
    const unseen = this.runRng.float() < this.rates.runUnseenRate;
    if (unseen) this.counts.unseenRuns++;
    // The same shift for every sighting of the run keeps them apart; none crosses midnight, so
    // the sightings stay on the run's service day.
    const uLate = this.lateRng.float();
    const lateBy = Math.floor(2 * 3600 + this.lateRng.float() * 6 * 3600);
    const late =
      uLate < this.rates.lateRunRate
        ? Math.max(0, Math.min(lateBy, run.nextMidnight - 1 - end))
        : 0;
    for (let i = 0; i < n; i++) {
      const r = this.rng;
      const uDrop = r.float();
      const uWrong = r.float();
      const uOther = r.float();
      const source = SOURCES[r.weightedIndex(SOURCE_WEIGHTS)]!;
      const uTime = r.float();
      const uStop = r.float();
      const uJitter = r.float();
      const uCode = r.float();
      const uForm = r.float();
      const uSeat = r.float();
      const uRef = r.float();
      const uIso = r.float();
      const uDate = r.float();
      const uDup = r.float();
      const seq = ++this.seq;
      const dropped = unseen || uDrop < this.rates.missingRate;

      let t: number;
      if (source === 'station-board') {
        // A departure board shows the unit up to a minute and a half after the train leaves;
        // at the terminus, as it pulls in.
        const stop = train.stops[Math.floor(uStop * train.stops.length)]!;
        const jitter = Math.floor(uJitter * 91);
        const at =
          stop.depart !== undefined
            ? minuteToUnix(run, stop.depart) + jitter
            : minuteToUnix(run, stop.arrive!) - jitter;
        t = Math.min(end, Math.max(start, at));
      } else {
        t = start + Math.floor(uTime * (end - start + 1));
      }

      let trainCode = train.codes[0]!;
      if (train.codes.length > 1) {
        trainCode =
          uCode < PAIRED_WRITTEN_SHARE ? train.written : train.codes[t < changeAt ? 0 : 1]!;
      }

      let unit = run.unit;
      if (uWrong < this.rates.wrongRate && this.fleet.length > run.formation.length) {
        let idx = Math.floor(uOther * this.fleet.length);
        while (run.formation.includes(this.fleet[idx]!)) idx = (idx + 1) % this.fleet.length;
        unit = this.fleet[idx]!;
      }
      let emuCode = unit.code;
      if (source === 'travel-code' && uForm < QR_SHARE) {
        const seat = Math.floor(uSeat * unit.model.cars * 17 * SEAT_LETTERS.length);
        const coach = (seat % unit.model.cars) + 1;
        const row = (Math.floor(seat / unit.model.cars) % 17) + 1;
        const letter = SEAT_LETTERS[Math.floor(seat / (unit.model.cars * 17))]!;
        emuCode = `${unit.code}-${String(coach).padStart(2, '0')}-${String(row).padStart(2, '0')}${letter}`;
      } else if (uForm > 1 - COMPACT_SHARE) {
        emuCode = this.compact[unit.index]!;
      }

      const hasRef = uRef < REF_SHARE;
      const statesDate = uDate < this.rates.serviceDateRate;
      if (!hasRef) {
        // Two sightings alike in every field are one sighting to ingestion (and to the counts):
        // move a coincidence to the nearest free second of the run.
        const keyAt = (at: number) =>
          `${source}|${at}|${trainCode}|${unit.code}|${statesDate && at < run.nextMidnight}`;
        const base = t;
        for (let k = 1; this.refless.has(keyAt(t)) && k <= 2 * (end - start) + 2; k++) {
          t = Math.min(end, Math.max(start, base + (k % 2 === 1 ? (k + 1) / 2 : -k / 2)));
        }
        this.refless.add(keyAt(t));
      }
      t += late;
      const afterMidnight = t >= run.nextMidnight;
      const serviceDate = !afterMidnight && statesDate;
      // Dropped only now, so that what is kept does not depend on the missing rate.
      if (dropped) {
        this.counts.dropped++;
        continue;
      }
      if (unit !== run.unit) this.counts.wrong++;
      const line = JSON.stringify({
        observedAt: uIso < this.rates.isoTimeRate ? isoLocal(t) : t,
        trainCode,
        emuCode,
        source,
        // Opaque to consumers: a ref must not give away the service day.
        ...(hasRef ? { ref: `${REF_TAGS[source]}-${seq.toString(36).padStart(8, '0')}` } : {}),
        ...(serviceDate ? { serviceDate: run.ymd } : {}),
        ...statusFields(
          run,
          unit,
          source,
          emuCode !== unit.code && emuCode.length > unit.code.length,
        ),
      });
      const bucket = afterMidnight ? tomorrow : today;
      bucket.push({ t, line });
      this.counts.sightings++;
      if (uDup < this.rates.duplicateRate) {
        bucket.push({ t, line });
        this.counts.duplicateLines++;
      }
      if (this.badRng.chance(this.rates.badRate)) {
        bucket.push({ t, line: this.malformed(line, t) });
        this.counts.badLines++;
      }
    }
  }

  /** A line that ingestion must refuse, each kind naming a different field or the JSON. */
  private malformed(line: string, t: number): string {
    const o = JSON.parse(line) as Record<string, unknown>;
    switch (this.badRng.int(0, 5)) {
      case 0:
        return line.slice(0, Math.floor(line.length / 2));
      case 1:
        delete o.emuCode;
        break;
      case 2:
        o.trainCode = 'G12X4';
        break;
      case 3:
        o.observedAt = t * 1000;
        break;
      case 4:
        o.emuCode = `#${String(o.emuCode)}`;
        break;
      default:
        o.observedAt = isoLocal(t).slice(0, 19);
    }
    return JSON.stringify(o);
  }
}
