import path from 'node:path';
import { peakRssBytes } from './peak-rss.js';
import { createPostgresDb } from '../src/shared/db/postgres-db.js';
import { importFleet } from '../src/domain/emus/import-fleet.js';
import { renderDailyExport } from '../src/domain/exports/daily-export-csv.js';
import { ingestObservations } from '../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../src/domain/records/build-daily-records.js';
import { ingestTimetables } from '../src/domain/timetables/ingest-timetables.js';

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
// The high-water mark after each stage: which stage sets the worker's peak.
const rssStages: Record<string, number> = { fleet: await peakRssBytes() };

// Timetables first, as in production: the builds then attribute cross-midnight sightings and
// set each record's timetable, which is the build being measured.
const tt = performance.now();
const timetables = await ingestTimetables(db, path.join(dataDir, 'timetables.ndjson'));
const timetablesMs = performance.now() - tt;
rssStages.timetables = await peakRssBytes();

const t1 = performance.now();
const ingest = await ingestObservations(db, path.join(dataDir, 'observations'));
const ingestMs = performance.now() - t1;
rssStages.ingest = await peakRssBytes();

const buildMs: number[] = [];
const buildPhases: Record<string, number[]> = {};
let records = 0;
for (let d = firstDay; d < firstDay + days; d++) {
  const s = performance.now();
  const r = await buildDailyRecords(db, d);
  buildMs.push(performance.now() - s);
  records += r.records;
  for (const [name, ms] of Object.entries(r.phases)) (buildPhases[name] ??= []).push(ms);
}
rssStages.builds = await peakRssBytes();
// An unchanged rebuild (inputs unchanged: skipped) and a forced one, of a few mid-range days.
const rebuildMs: number[] = [];
const forcedMs: number[] = [];
for (let k = 0; k < Math.min(5, days); k++) {
  const day = firstDay + Math.floor(days / 2) - 2 + k;
  if (day < firstDay || day >= firstDay + days) continue;
  const s = performance.now();
  const skipped = await buildDailyRecords(db, day);
  rebuildMs.push(performance.now() - s);
  if (!skipped.skipped) throw new Error(`day ${day} rebuilt although nothing changed`);
  const f = performance.now();
  const forced = await buildDailyRecords(db, day, {}, { force: true });
  forcedMs.push(performance.now() - f);
  if (forced.inserted + forced.updated + forced.deleted > 0)
    throw new Error(`day ${day}: a forced rebuild of unchanged inputs wrote records`);
}

// The build's floor: a day's finished records (the rule's result, taken from the built day)
// inserted into daily_records with its indexes as a first build inserts them, without the rule
// and the reads before it. Under a service day no build uses (past the dataset's end, a new one
// each time, as the newest day a nightly build adds) and rolled back.
const insertOnlyMs: number[] = [];
class RolledBack extends Error {}
for (let k = 0; k < Math.min(5, days); k++) {
  const day = firstDay + Math.floor(days / 2) - 2 + k;
  if (day < firstDay || day >= firstDay + days) continue;
  await db
    .transaction(async (tx) => {
      await tx.query(
        `CREATE TEMP TABLE finished ON COMMIT DROP AS
         SELECT train_code, emu_id, support, sources, first_observed_at, last_observed_at, status,
                timetable_id FROM daily_records WHERE service_day = $1 ORDER BY id`,
        [day],
      );
      const s = performance.now();
      await tx.query(
        `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                    first_observed_at, last_observed_at, status, timetable_id)
         SELECT $1, train_code, emu_id, support, sources, first_observed_at, last_observed_at,
                status, timetable_id FROM finished`,
        [firstDay + days + 100 + k],
      );
      insertOnlyMs.push(performance.now() - s);
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
}

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
rssStages.exports = await peakRssBytes();
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
    buildPhases,
    rebuildMs,
    forcedMs,
    insertOnlyMs,
    records,
    exportMs,
    exportRows,
    exportBytes,
    rssStages,
    peakRssBytes: await peakRssBytes(),
  }) + '\n',
);
