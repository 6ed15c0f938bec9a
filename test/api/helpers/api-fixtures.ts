import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../../../src/shared/db/db.js';
import { renderDailyExport } from '../../../src/domain/exports/daily-export-csv.js';
import { ingestObservations } from '../../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../../src/shared/time/service-day.js';

export interface Sighting {
  trainCode: string;
  emuCode: string;
  /** How many independent sightings (distinct sources) name this pair. */
  times: number;
}

/**
 * A day as the pipeline would produce it: sightings written as NDJSON, ingested, built into
 * daily records and rendered as the day's CSV export.
 */
export async function seedDay(db: Db, ymd: string, sightings: Sighting[]): Promise<number> {
  const serviceDay = serviceDayFromYmd(ymd);
  const base = midnightOfServiceDay(serviceDay) + 8 * 3600;
  const lines: string[] = [];
  sightings.forEach((s, i) => {
    for (let k = 0; k < s.times; k++) {
      lines.push(
        JSON.stringify({
          observedAt: base + i * 60 + k,
          trainCode: s.trainCode,
          emuCode: s.emuCode,
          source: `source-${k}`,
          ref: `${ymd}-${i}-${k}`,
        }),
      );
    }
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'emutrack-api-'));
  try {
    const file = path.join(dir, `${ymd}.ndjson`);
    await writeFile(file, lines.join('\n') + '\n');
    await ingestObservations(db, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await buildDailyRecords(db, serviceDay);
  await renderDailyExport(db, serviceDay);
  return serviceDay;
}

/** 45 single-unit trains (every third seen once: unconfirmed) and one coupled train. */
export function busyDay(emuSeries: number): Sighting[] {
  const out: Sighting[] = [];
  for (let i = 0; i < 45; i++) {
    out.push({
      trainCode: `G${1001 + i}`,
      emuCode: `CR400AF-${emuSeries + i}`,
      times: i % 3 === 0 ? 1 : 2,
    });
  }
  out.push({ trainCode: 'D2001', emuCode: `CR400BF-A-${emuSeries + 500}`, times: 2 });
  out.push({ trainCode: 'D2001', emuCode: `CR400BF-A-${emuSeries + 501}`, times: 2 });
  return out;
}

export interface StoredRecord {
  id: number;
  emu_id: number;
  train_code: string;
  status: number;
  code: string;
}

export async function storedRecords(db: Db, serviceDay: number): Promise<StoredRecord[]> {
  const r = await db.query<StoredRecord>(
    `SELECT d.id, d.emu_id, d.train_code, d.status, e.code
       FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY d.id DESC`,
    [serviceDay],
  );
  return r.rows;
}
