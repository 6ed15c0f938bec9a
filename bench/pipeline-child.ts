import path from 'node:path';
import { peakRssBytes } from './peak-rss.js';
import { createPostgresDb } from '../src/db/postgres-db.js';
import { importFleet } from '../src/emus/import-fleet.js';
import { renderDailyExport } from '../src/exports/daily-export-csv.js';
import { ingestObservations } from '../src/ingest/ingest-observations.js';
import { buildDailyRecords } from '../src/records/build-daily-records.js';
import { ingestTimetables } from '../src/timetables/ingest-timetables.js';

/**
 * The worker side of the pipeline benchmark, in its own process so that its peak RSS is a
 * worker's: ingest the dataset (fleet, timetables, observations), build and export every day,
 * print timings and VmHWM as JSON.
 * Usage: node pipeline-child.js <database-url> <dataset-dir> <first-service-day> <days>
 */
const [dbUrl, dataDir, firstDayArg, daysArg] = process.argv.slice(2);
if (!dbUrl || !dataDir || !firstDayArg || !daysArg)
  throw new Error('usage: pipeline-child <db-url> <dataset-dir> <first-day> <days>');
const firstDay = Number(firstDayArg);
const days = Number(daysArg);
const db = createPostgresDb({ connectionString: dbUrl, max: 4 });

const t0 = performance.now();
await importFleet(db, path.join(dataDir, 'fleet.csv'));
const fleetMs = performance.now() - t0;

// Timetables first, as in production: the builds then attribute cross-midnight sightings and
// set each record's timetable, which is the build being measured.
const tt = performance.now();
const timetables = await ingestTimetables(db, path.join(dataDir, 'timetables.ndjson'));
const timetablesMs = performance.now() - tt;

const t1 = performance.now();
const ingest = await ingestObservations(db, path.join(dataDir, 'observations'));
const ingestMs = performance.now() - t1;

const buildMs: number[] = [];
let records = 0;
for (let d = firstDay; d < firstDay + days; d++) {
  const s = performance.now();
  const r = await buildDailyRecords(db, d);
  buildMs.push(performance.now() - s);
  records += r.records;
}
const rebuildStart = performance.now();
await buildDailyRecords(db, firstDay + Math.floor(days / 2));
const rebuildMs = performance.now() - rebuildStart;

const exportMs: number[] = [];
let exportRows = 0;
let exportBytes = 0;
for (let d = firstDay; d < firstDay + days; d++) {
  const s = performance.now();
  const r = await renderDailyExport(db, d);
  exportMs.push(performance.now() - s);
  exportRows += r.rowCount;
  exportBytes += r.bytes;
}
await db.close();

process.stdout.write(
  JSON.stringify({
    fleetMs,
    timetablesMs,
    timetables: {
      read: timetables.read,
      accepted: timetables.accepted,
      rejected: timetables.rejected,
    },
    ingestMs,
    ingest: {
      read: ingest.read,
      accepted: ingest.accepted,
      duplicate: ingest.duplicate,
      rejected: ingest.rejected,
    },
    buildMs,
    rebuildMs,
    records,
    exportMs,
    exportRows,
    exportBytes,
    peakRssBytes: await peakRssBytes(),
  }) + '\n',
);
