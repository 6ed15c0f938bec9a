import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { importOfficialCirculations } from '../../src/domain/circulation/import-official.js';
import { inferCirculations } from '../../src/domain/circulation/infer-circulations.js';
import type { Db } from '../../src/shared/db/db.js';
import { midnightOfServiceDay, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';
import { circulationRuns, DAY0, seedRuns } from './support.js';

/**
 * A two-unit, two-day loop observed for 14 days (DAY0 .. DAY0 + 13) and inferred:
 * cycle day 0 runs G11 then G12, cycle day 1 runs G13 then G14; unit k runs cycle day (k + d) % 2
 * on window day d. Timetables from 2026-08-01 with Chinese station names; G11 gets a second
 * version (07:10 instead of 07:00) from TODAY, so the version in force depends on the day.
 */
export const TODAY = DAY0 + 14;
export const LOOP_UNITS = ['CR400AF-2001', 'CR400AF-2002'] as const;
export const LOOP_DAYS = [
  ['G11', 'G12'],
  ['G13', 'G14'],
] as const;
/** The day of the cycle each train runs on. */
export const CYCLE_DAY: Record<string, number> = { G11: 0, G12: 0, G13: 1, G14: 1 };

/** [start station, departure HH:MM, end station, arrival HH:MM] per train (the first version). */
export const LOOP_TIMETABLES: Record<string, [string, string, string, string]> = {
  G11: ['上海虹桥', '07:00', '南京南', '08:30'],
  G12: ['南京南', '09:00', '上海虹桥', '10:30'],
  G13: ['上海虹桥', '07:00', '杭州东', '08:00'],
  G14: ['杭州东', '09:00', '上海虹桥', '10:00'],
};
export const G11_SECOND_VERSION: [string, string, string, string] = [
  '上海虹桥',
  '07:10',
  '南京南',
  '08:40',
];

const seconds = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h! * 60 + m!) * 60;
};

/** What a node of `train` running on `serviceDay` must say (times in Unix seconds). */
export function expectedNode(train: string, serviceDay: number) {
  const [from, dep, to, arr] =
    train === 'G11' && serviceDay >= TODAY ? G11_SECOND_VERSION : LOOP_TIMETABLES[train]!;
  const midnight = midnightOfServiceDay(serviceDay);
  return {
    internalCode: `5l0000${train}00`,
    allCodes: [{ prefix: train[0], number: Number(train.slice(1)) }],
    startStation: from,
    endStation: to,
    startAt: midnight + seconds(dep),
    endAt: midnight + seconds(arr),
  };
}

export async function seedLoopTimetables(db: Db): Promise<void> {
  const lines = Object.entries(LOOP_TIMETABLES).map(([train, [from, dep, to, arr]]) =>
    timetable(
      train,
      '20260801',
      [
        [from, undefined, dep],
        [to, arr],
      ],
      { internalCode: `5l0000${train}00` },
    ),
  );
  const [from, dep, to, arr] = G11_SECOND_VERSION;
  lines.push(
    timetable(
      'G11',
      ymdOfServiceDay(TODAY),
      [
        [from, undefined, dep],
        [to, arr],
      ],
      { internalCode: '5l0000G1100' },
    ),
  );
  const r = await ingestTimetableLines(db, lines);
  if (r.rejected > 0) throw new Error(`fixture timetables rejected: ${JSON.stringify(r)}`);
}

/** The loop's records, its timetables, and one inference run over the window. */
export async function seedLoop(db: Db): Promise<void> {
  await seedLoopTimetables(db);
  await seedRuns(
    db,
    circulationRuns({ units: [...LOOP_UNITS], days: LOOP_DAYS.map((d) => [...d]), windowDays: 14 }),
  );
  await inferCirculations(db, { asOf: DAY0 + 13 });
}

/** Imports official tables (community format) from a temporary file. */
export async function importTables(db: Db, entries: readonly Record<string, unknown>[]) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-official-'));
  try {
    const file = path.join(dir, 'tables.json');
    await writeFile(file, JSON.stringify(entries));
    return await importOfficialCirculations(db, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const officialTable = (trainNoTotal: string, extra: Record<string, unknown> = {}) => ({
  running_start: '20260801',
  running_end: '20991231',
  emu_note: 'CR400AF',
  administrator: '上海局 上海动车段',
  train_no_total: trainNoTotal,
  ...extra,
});
