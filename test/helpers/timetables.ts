import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../src/shared/db/db.js';
import {
  ingestTimetables,
  type IngestTimetablesResult,
} from '../../src/domain/timetables/ingest-timetables.js';

/** A timetable as the input format has it (every field optional here, to write bad ones too). */
export type TimetableJson = Record<string, unknown>;

/** A plausible timetable: `stops` as [station, arrive, depart] (undefined = none). */
export function timetable(
  trainCode: string,
  validFrom: string,
  stops: [string, (string | number)?, (string | number)?][],
  extra: TimetableJson = {},
): TimetableJson {
  return {
    trainCode,
    validFrom,
    stops: stops.map(([stationName, arrive, depart]) => ({
      stationName,
      ...(arrive !== undefined ? { arrive } : {}),
      ...(depart !== undefined ? { depart } : {}),
    })),
    ...extra,
  };
}

/** Writes timetables as one NDJSON file (named `name`) in a temp dir and ingests it. */
export async function ingestTimetableLines(
  db: Db,
  timetables: readonly (TimetableJson | string)[],
  name = 'timetables.ndjson',
): Promise<IngestTimetablesResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-tt-'));
  try {
    const file = path.join(dir, name);
    const lines = timetables.map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
    await writeFile(file, lines.join('\n') + '\n');
    return await ingestTimetables(db, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
