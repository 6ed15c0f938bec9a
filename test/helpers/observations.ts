import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../src/shared/db/db.js';
import {
  ingestObservations,
  type IngestResult,
} from '../../src/domain/ingest/ingest-observations.js';

export interface Sighting {
  observedAt: number | string;
  trainCode: string;
  emuCode: string;
  source: string;
  ref?: string;
  serviceDate?: string;
}

/** Writes sightings as an NDJSON file (named `name`) in a temp dir and ingests it. */
export async function ingestSightings(
  db: Db,
  sightings: readonly Sighting[],
  name = 'sightings.ndjson',
): Promise<IngestResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-test-'));
  try {
    const file = path.join(dir, name);
    await writeFile(file, sightings.map((s) => JSON.stringify(s)).join('\n') + '\n');
    return await ingestObservations(db, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Unix seconds of a Shanghai local time on a YYYYMMDD day. */
export function shanghai(ymd: string, hhmm: string): number {
  return (
    Date.parse(`${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}T${hhmm}:00+08:00`) / 1000
  );
}

let refSeq = 0;
/** n sightings of one unit on one train, each with its own ref, a minute apart. */
export function sightings(
  ymd: string,
  trainCode: string,
  emuCode: string,
  n: number,
  source = 'report',
): Sighting[] {
  return Array.from({ length: n }, (_, i) => ({
    observedAt: shanghai(ymd, '10:00') + i * 60,
    trainCode,
    emuCode,
    source,
    ref: `t-${++refSeq}`,
  }));
}
