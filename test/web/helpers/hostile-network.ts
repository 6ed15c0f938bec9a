import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { importCoachLayouts } from '../../../src/domain/emus/import-coach-layouts.js';
import { importFleet } from '../../../src/domain/emus/import-fleet.js';
import { renderDailyExport } from '../../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { refreshReferenceModels } from '../../../src/domain/records/reference-models.js';
import { ingestTimetables } from '../../../src/domain/timetables/ingest-timetables.js';
import type { Db } from '../../../src/shared/db/db.js';
import { serviceDayFromYmd } from '../../../src/shared/time/service-day.js';
import { ingestSightings, shanghai, type Sighting } from '../../helpers/observations.js';
import { owaspXssVectors } from '../../helpers/html-safety.js';

/*
 * A network whose every printable text is an OWASP XSS vector: the stations, the timetables'
 * bureau, depot and wicket, the units' register fields (model, bureau, depots, aliases, tags,
 * notes, makers...) and their coach layouts, with records built and the day's export rendered,
 * so that every page that prints stored data prints them.
 */

export const VECTORS = owaspXssVectors();
export const N = VECTORS.length;

/** The day of the records, and "today" of the app's clock. */
export const DAY = '20260816';
export const ISO_DAY = '2026-08-16';

/** The vector as a text field of at most `max` characters keeps it (the ingest refuses longer). */
export const clip = (v: string, max: number) => v.trim().slice(0, max);
/** The timetables' text limit (station names, bureau, depot, wicket). */
const TIMETABLE_TEXT = 100;

export const station = (i: number) => clip(VECTORS[i % N]!, TIMETABLE_TEXT);
/** Train i runs from station i to station i+1. */
export const trainCode = (i: number) => `G${9100 + i}`;
/** Unit i runs train i; unit N runs the long train. */
export const unitCode = (i: number) => `CR400AF-${3000 + i}`;
/** A train that calls at every hostile station. */
export const LONG_TRAIN = 'G9001';

/** The fleet CSV's text columns: each set to the unit's vector. */
const FLEET_TEXT_COLUMNS = [
  'model',
  'train_set_no',
  'bureau',
  'train_depot',
  'depot',
  'sub_model',
  'custom_type',
  'trainset_manufacturer',
  'trailer_manufacturer',
  'manufacture_month',
  'toilet_status',
  'socket_location',
  'business_seat_type',
  'model_remark',
  'note',
  'tags',
  'alias',
] as const;

/** The value of a fleet text column of unit i (the alias: what a page asked for it by would be). */
export const fleetValue = (i: number) => VECTORS[i % N]!.trim();

const csvCell = (v: string) => `"${v.replaceAll('"', '""')}"`;
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export async function loadHostileNetwork(db: Db): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-hostile-'));
  try {
    const fleet = [`emu_code,${FLEET_TEXT_COLUMNS.join(',')}`];
    for (let i = 0; i <= N; i++) {
      const cells = FLEET_TEXT_COLUMNS.map((c) =>
        // The long train's unit shares unit 0's vector but not its alias (an alias has one unit).
        c === 'alias' && i === N ? '' : csvCell(fleetValue(i)),
      );
      fleet.push(`${unitCode(i)},${cells.join(',')}`);
    }
    await writeFile(path.join(dir, 'fleet.csv'), fleet.join('\n') + '\n');
    const imported = await importFleet(db, path.join(dir, 'fleet.csv'));
    if (imported.rejected !== 0) throw new Error(`fleet rows rejected: ${imported.rejected}`);

    const layouts = Array.from({ length: N }, (_, i) => ({
      emuCodes: [unitCode(i)],
      coaches: [
        {
          coachNo: 1,
          coachTypeCode: clip(VECTORS[i]!, 20),
          coachTypeName: clip(VECTORS[i]!, 50),
          capacity: 10,
        },
      ],
    }));
    await writeFile(path.join(dir, 'coach-layouts.json'), JSON.stringify(layouts));
    await importCoachLayouts(db, path.join(dir, 'coach-layouts.json'));

    const text = (i: number) => clip(VECTORS[i % N]!, TIMETABLE_TEXT);
    const timetables = Array.from({ length: N }, (_, i) => ({
      trainCode: trainCode(i),
      validFrom: '20260801',
      bureauName: text(i),
      trainDepartment: text(i),
      passengerDepartment: text(i),
      stops: [
        { stationName: station(i), depart: '08:00', wicket: text(i), platformNo: 1 },
        { stationName: station(i + 1), arrive: '09:00', wicket: text(i + 1), platformNo: 2 },
      ],
    }));
    timetables.push({
      trainCode: LONG_TRAIN,
      validFrom: '20260801',
      bureauName: text(0),
      trainDepartment: text(1),
      passengerDepartment: text(2),
      stops: VECTORS.map((_, i) => ({
        stationName: station(i),
        ...(i > 0 ? { arrive: hhmm(360 + 2 * i) } : {}),
        ...(i < N - 1 ? { depart: hhmm(361 + 2 * i) } : {}),
        wicket: text(i),
        platformNo: i + 1,
      })) as (typeof timetables)[number]['stops'],
    });
    await writeFile(
      path.join(dir, 'timetables.ndjson'),
      timetables.map((t) => JSON.stringify(t)).join('\n') + '\n',
    );
    const ingested = await ingestTimetables(db, path.join(dir, 'timetables.ndjson'));
    if (ingested.rejected !== 0) throw new Error(`timetables rejected: ${ingested.rejected}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // Two sightings each: a confirmed record of unit i on train i, and of unit N on the long train.
  const seen: Sighting[] = [];
  const twice = (train: string, emu: string, at: string, ref: string) => {
    for (const k of [0, 1]) {
      seen.push({
        observedAt: shanghai(DAY, at) + k * 60,
        trainCode: train,
        emuCode: emu,
        source: 'report',
        ref: `${ref}-${k}`,
      });
    }
  };
  for (let i = 0; i < N; i++) twice(trainCode(i), unitCode(i), '08:20', `hostile-${i}`);
  twice(LONG_TRAIN, unitCode(N), '06:20', 'hostile-long');
  await ingestSightings(db, seen);

  const day = serviceDayFromYmd(DAY);
  await buildDailyRecords(db, day);
  await refreshReferenceModels(db, { windowEnd: day });
  await renderDailyExport(db, day, { today: day });
}
