import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Circulation, Train } from './network.js';
import type { StationNetwork } from './stations.js';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

/**
 * Output layout of a generated dataset (under the output directory):
 *   fleet.csv                     the fleet-import file
 *   timetables.ndjson             one train per line
 *   observations/YYYYMMDD.ndjson  the sightings that fall on that day, in time order
 *   truth/assignments.ndjson      one line per (service day, train number, unit)
 *   truth/circulations.json       the circulations the network was built from
 *   manifest.json                 seed, options and counts
 */
export const OUTPUT_FILES = {
  fleet: 'fleet.csv',
  timetables: 'timetables.ndjson',
  observations: 'observations',
  assignments: 'truth/assignments.ndjson',
  circulations: 'truth/circulations.json',
  manifest: 'manifest.json',
} as const;

const OWN_ENTRIES = new Set([
  'fleet.csv',
  'timetables.ndjson',
  'manifest.json',
  'observations',
  'truth',
]);

export class OutputDirectoryInUseError extends EmutrackError {
  constructor(
    readonly dir: string,
    readonly entry: string,
  ) {
    super(
      'generator_output_in_use',
      `${dir} holds ${JSON.stringify(entry)}, which a generated dataset does not: choose an empty or new directory`,
    );
  }
}

/**
 * Makes `dir` ready for a fresh dataset. Files of an earlier generation are removed (stale day
 * files would otherwise survive a run with fewer days); anything else makes it refuse, so that a
 * mistyped --out never deletes someone's data.
 */
export async function prepareOutputDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  for (const e of entries) if (!OWN_ENTRIES.has(e)) throw new OutputDirectoryInUseError(dir, e);
  for (const sub of ['observations', 'truth']) {
    const inner = await readdir(path.join(dir, sub)).catch(() => [] as string[]);
    const own =
      sub === 'observations'
        ? (e: string) => /^\d{8}\.ndjson$/.test(e)
        : (e: string) => e === 'assignments.ndjson' || e === 'circulations.json';
    const foreign = inner.find((e) => !own(e));
    if (foreign !== undefined) throw new OutputDirectoryInUseError(dir, `${sub}/${foreign}`);
  }
  for (const e of entries) await rm(path.join(dir, e), { recursive: true, force: true });
  await mkdir(path.join(dir, OUTPUT_FILES.observations), { recursive: true });
  await mkdir(path.join(dir, 'truth'), { recursive: true });
}

/** A write stream that honours backpressure and batches small writes. */
export class LineSink {
  private readonly stream: WriteStream;
  private pending: string[] = [];
  private pendingSize = 0;

  constructor(file: string) {
    this.stream = createWriteStream(file, { encoding: 'utf8' });
  }

  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingSize += text.length;
    if (this.pendingSize >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingSize = 0;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

/** Minutes from the service day's midnight as HH:MM; hours run on past 24 after midnight. */
export function clockTime(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

export function timetableLine(net: StationNetwork, train: Train, validFrom: string): string {
  const c = train.circulation;
  return JSON.stringify({
    trainCode: train.written,
    allCodes: train.codes,
    internalCode: train.internalCode,
    bureauCode: c.bureau.code,
    bureauName: c.bureau.name,
    trainDepartment: c.depot.trainDepot,
    passengerDepartment: c.depot.passengerDepartment,
    validFrom,
    stops: train.stops.map((s, i) => ({
      stationName: net.stations[s.station]!.name,
      ...(s.arrive !== undefined ? { arrive: clockTime(s.arrive) } : {}),
      ...(s.depart !== undefined ? { depart: clockTime(s.depart) } : {}),
      distance: s.km,
      ...(train.changeStop !== undefined
        ? { stationTrainCode: train.codes[i < train.changeStop ? 0 : 1] }
        : {}),
    })),
  });
}

/** Trains by prefix, then number: the order of a printed timetable. */
export function compareTrains(a: Train, b: Train): number {
  const pa = a.codes[0]!;
  const pb = b.codes[0]!;
  if (pa[0] !== pb[0]) return pa[0]! < pb[0]! ? -1 : 1;
  return Number(pa.slice(1)) - Number(pb.slice(1));
}

/**
 * truth/circulations.json, one circulation per line. `units` lists the groups in order: unit k
 * runs cycle day (k + d) mod cycleDays on day index d (d = 0 on the start date); in a coupled
 * circulation units 2k and 2k+1 form group k and run together.
 */
export function circulationsJson(circulations: readonly Circulation[]): string {
  const lines = circulations.map((c) =>
    JSON.stringify({
      circulationId: c.id,
      cycleDays: c.cycleDays,
      coupled: c.coupled,
      model: c.model.model,
      bureau: c.bureau.name,
      depot: c.depot.depot,
      units: c.groups.flat().map((u) => u.code),
      days: c.days.map((day) => day.map((t) => t.written)),
    }),
  );
  return `[\n${lines.join(',\n')}\n]\n`;
}
