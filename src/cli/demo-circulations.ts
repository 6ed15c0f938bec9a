import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../shared/db/db.js';
import { currentCirculation } from '../domain/circulation/current-circulation.js';
import { importOfficialCirculations } from '../domain/circulation/import-official.js';
import { inferCirculations } from '../domain/circulation/infer-circulations.js';
import type { TrainCirculation } from '../domain/circulation/train-circulation.js';
import { layoutCirculation } from '../domain/circulation-images/picture-layout.js';
import { renderPng } from '../domain/circulation-images/render-picture.js';
import { ingestObservations } from '../domain/ingest/ingest-observations.js';
import { predictTrain } from '../domain/prediction/predict-train.js';
import { buildDailyRecords } from '../domain/records/build-daily-records.js';
import { midnightOfServiceDay, serviceDayOf, ymdOfServiceDay } from '../shared/time/service-day.js';
import { ingestTimetables } from '../domain/timetables/ingest-timetables.js';

/**
 * The demo's circulations, dated from today so that the API's current timetable, picture and
 * prediction answer right after `npm run demo` (the fixture week is in August; a circulation, a
 * prediction, need recent sightings). Two circulations with timetables in
 * fixtures/circulations/timetables.ndjson:
 *
 * - one unit, CR400AF-2301, running G7361 .. G7366 every day (a one-day loop: inferred);
 * - three units, CR400BF-5401..5403, rotating over D7401 D7402 | D7403 D7404 | D7405 D7406 (a
 *   three-day loop), whose official table fixtures/circulations/official.json is imported and
 *   confirmed by the inference (raw_official).
 *
 * Sightings are written for the 14 service days before today (two per run, reports; about one
 * run in eight never seen, as crowd-sourced data goes), ingested, the days built, and the
 * inference run over that window.
 */
const ONE_DAY = {
  unit: 'CR400AF-2301',
  days: [['G7361', 'G7362', 'G7363', 'G7364', 'G7365', 'G7366']],
};
const THREE_DAY = {
  units: ['CR400BF-5401', 'CR400BF-5402', 'CR400BF-5403'],
  days: [
    ['D7401', 'D7402'],
    ['D7403', 'D7404'],
    ['D7405', 'D7406'],
  ],
};
/** Departure and arrival (minutes from midnight) of each train, as in the fixture timetables. */
const TIMES: Record<string, [number, number]> = {
  G7361: [404, 481],
  G7362: [503, 581],
  G7363: [605, 708],
  G7364: [730, 815],
  G7365: [839, 942],
  G7366: [980, 1065],
  D7401: [420, 490],
  D7402: [840, 1040],
  D7403: [450, 520],
  D7404: [850, 950],
  D7405: [425, 480],
  D7406: [1110, 1165],
};
export const DEMO_WINDOW_DAYS = 14;

export interface DemoCirculations {
  today: number;
  inferred: TrainCirculation | undefined;
  official: TrainCirculation | undefined;
  picture: string;
  prediction: Awaited<ReturnType<typeof predictTrain>>;
}

function sightingLines(today: number): string[] {
  const lines: string[] = [];
  const runs: { day: number; train: string; unit: string }[] = [];
  for (let day = today - DEMO_WINDOW_DAYS; day < today; day++) {
    for (const train of ONE_DAY.days[0]!) runs.push({ day, train, unit: ONE_DAY.unit });
    THREE_DAY.units.forEach((unit, k) => {
      for (const train of THREE_DAY.days[(k + day) % 3]!) runs.push({ day, train, unit });
    });
  }
  for (const run of runs) {
    // About one run in eight is never seen, as chance has it (a hash of the run, so that a rerun
    // writes the same lines): the inference holds up (README: Circulations).
    const key = `${run.day}:${run.train}:${run.unit}`;
    if (createHash('sha256').update(key).digest()[0]! < 32) continue;
    const [dep, arr] = TIMES[run.train]!;
    const midnight = midnightOfServiceDay(run.day);
    for (const share of [0.25, 0.75]) {
      const observedAt = midnight + Math.round((dep + (arr - dep) * share) * 60);
      lines.push(
        JSON.stringify({
          observedAt,
          trainCode: run.train,
          emuCode: run.unit,
          source: 'report',
          ref: `demo-${ymdOfServiceDay(run.day)}-${run.train}-${run.unit}-${share}`,
        }),
      );
    }
  }
  return lines;
}

/**
 * Writes, ingests, builds and infers the demo's circulations on `db` (see above), relative to
 * `today` (default: the service day of now); the sightings file and picture go under `dataDir`.
 * Each day of the window is built with `buildDay` (default: its records only; the demo builds and
 * exports it through the job code, as the nightly flow does).
 */
export async function demoCirculations(
  db: Db,
  fixtures: string,
  dataDir: string,
  say: (line: string) => void,
  today: number = serviceDayOf(Date.now() / 1000),
  buildDay: (day: number) => Promise<unknown> = (day) => buildDailyRecords(db, day),
): Promise<DemoCirculations> {
  const timetables = await ingestTimetables(db, path.join(fixtures, 'timetables.ndjson'));
  say(`circulations: timetables of ${timetables.read} trains (${timetables.accepted} accepted)`);
  const dir = path.resolve(dataDir, 'demo-circulations');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'sightings.ndjson');
  const lines = sightingLines(today);
  await writeFile(file, `${lines.join('\n')}\n`);
  const ingest = await ingestObservations(db, file);
  say(
    `circulations: ${lines.length} sightings of the ${DEMO_WINDOW_DAYS} days before today ` +
      `(${ymdOfServiceDay(today - DEMO_WINDOW_DAYS)}..${ymdOfServiceDay(today - 1)}), ${ingest.accepted} new`,
  );
  for (let day = today - DEMO_WINDOW_DAYS; day < today; day++) await buildDay(day);
  const run = await inferCirculations(db, { asOf: today - 1, windowDays: DEMO_WINDOW_DAYS });
  say(
    `circulations: inferred ${run.routes} routes (${run.loopBreaks} loops) from ${run.runs} runs, ${run.linksKept} links kept`,
  );
  const imported = await importOfficialCirculations(db, path.join(fixtures, 'official.json'));
  const official = await currentCirculation(db, { trainCode: 'D7404', serviceDay: today });
  say(
    `circulations: official table imported (${imported.imported} new), D7404's is ${official?.metadata?.validationState ?? 'missing'}`,
  );
  const inferred = await currentCirculation(db, { trainCode: 'G7363', serviceDay: today });
  const picture = path.join(dir, 'D7404.png');
  if (official) await writeFile(picture, await renderPng(layoutCirculation(official, ['D7404'])));
  const prediction = await predictTrain(db, {
    trainCode: 'D7405',
    serviceDay: today,
    asOfDay: today - 1,
  });
  return { today, inferred, official, picture, prediction };
}
