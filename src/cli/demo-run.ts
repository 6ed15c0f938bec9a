import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../shared/app/app-context.js';
import { packageRoot } from '../shared/app/package-root.js';
import { importCoachLayouts } from '../domain/emus/import-coach-layouts.js';
import { importFleet } from '../domain/emus/import-fleet.js';
import { getDailyExport } from '../domain/exports/daily-export-csv.js';
import { ingestObservations } from '../domain/ingest/ingest-observations.js';
import { runDayInProcess, runInProcess } from '../worker/in-process-runner.js';
import { refreshReferenceModelsJob } from '../../jobs/index.js';
import { serviceDayOf, ymdOfServiceDay } from '../shared/time/service-day.js';
import { ingestTimetables } from '../domain/timetables/ingest-timetables.js';
import { demoCirculations, DEMO_WINDOW_DAYS } from './demo-circulations.js';
import { demoNextSteps, makeDemoKey, webAddress } from './demo-next-steps.js';
import { writeDemoWeek } from './demo-week.js';

export interface DemoOptions {
  /** The moment the demo runs at (ms since epoch): its data ends on this moment's service day. */
  now: number;
  say: (line: string) => void;
}

/** Who ran `trainCode` on `serviceDay`, from the day's records. */
async function unitsOf(ctx: AppContext, trainCode: string, serviceDay: number): Promise<string[]> {
  const r = await ctx.db.query<{ code: string }>(
    `SELECT e.code FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 AND d.train_code = $2 ORDER BY e.code`,
    [serviceDay, trainCode],
  );
  return r.rows.map((row) => row.code);
}

/**
 * `npm run demo` on `ctx`'s database: the fixture week moved to end today (demo-week.ts) and the
 * circulations of demo-circulations.ts, as the nightly flow leaves them. Fleet and coach layouts,
 * every timetable, then every sighting, are loaded first, so that no day is built before its
 * inputs are in (a timetable loaded after a build would leave the day stale); then each day from
 * the first sighting to today is built and exported through the job code, the CSVs written to
 * DATA_DIR/exports, the circulations inferred, one official table imported, a picture drawn and
 * a prediction made. `emutrack status` afterwards shows no stale day and no day missing an export.
 */
export async function runDemo(ctx: AppContext, options: DemoOptions): Promise<void> {
  const { config } = ctx;
  const { now, say } = options;
  const today = serviceDayOf(Math.floor(now / 1000));
  const fixtures = path.join(packageRoot(), 'fixtures');
  // The address first: what a person opens once `npm start` runs (the steps follow at the end).
  say(`web app: ${webAddress(config.PORT)}  (npm start serves it)`);
  say(
    `database: ${ctx.db.kind === 'pglite' ? `embedded PGlite in ${path.resolve(config.DATA_DIR, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`,
  );
  const fleet = await importFleet(ctx.db, path.join(fixtures, 'fleet.csv'));
  say(`fleet: ${fleet.read} EMUs read, ${fleet.created} new, ${fleet.updated} updated`);
  const layouts = await importCoachLayouts(ctx.db, path.join(fixtures, 'coach-layouts.json'));
  say(`coach layouts: ${layouts.accepted} entries, layouts of ${layouts.units} EMUs set`);
  const week = await writeDemoWeek(fixtures, path.resolve(config.DATA_DIR, 'demo-week'), today);
  say(
    `the fixture week, moved to end today: ${ymdOfServiceDay(week.firstDay)}..${ymdOfServiceDay(week.lastDay)} (in ${path.dirname(week.observations)})`,
  );
  const timetables = await ingestTimetables(ctx.db, week.timetables);
  say(
    `timetables: read ${timetables.read}, accepted ${timetables.accepted} (${timetables.changed} new versions, ` +
      `${timetables.unchanged} unchanged), rejected ${timetables.rejected}`,
  );
  const circulationFixtures = path.join(fixtures, 'circulations');
  await ingestTimetables(ctx.db, path.join(circulationFixtures, 'timetables.ndjson'));
  const ingest = await ingestObservations(ctx.db, week.observations);
  for (const f of ingest.files) {
    say(
      `ingest ${f.file}: read ${f.read}, accepted ${f.accepted}, duplicate ${f.duplicate}, rejected ${f.rejected}`,
    );
  }
  const circ = await demoCirculations(
    ctx.db,
    circulationFixtures,
    config.DATA_DIR,
    say,
    today,
    (day) => runDayInProcess(ctx, day, now),
  );
  const exportDir = path.resolve(config.DATA_DIR, 'exports');
  await mkdir(exportDir, { recursive: true });
  for (let day = Math.min(week.firstDay, today - DEMO_WINDOW_DAYS); day <= today; day++) {
    const r = await runDayInProcess(ctx, day, now);
    const ymd = ymdOfServiceDay(day);
    const stored = (await getDailyExport(ctx.db, day))!;
    await writeFile(path.join(exportDir, `${ymd}.csv`), stored.content);
    say(
      `${ymd} (service day ${day}): ${r.build.records} records, export ${stored.rowCount} rows, sha256 ${stored.sha256.slice(0, 12)}`,
    );
  }
  // As the nightly flow leaves it after its last day: the trains' reference models.
  const models = await runInProcess(ctx, refreshReferenceModelsJob, { serviceDay: today }, now);
  say(`reference models: ${models.trains} trains, ${models.rows} (train, model) shares`);
  const daysOf = (c: typeof circ.inferred) =>
    c ? new Set(c.nodes.filter((n) => n.startAt > 0).map((n) => serviceDayOf(n.startAt))).size : 0;
  const g1 = await unitsOf(ctx, 'G1', today);
  say(`  G1 today: ${g1.length > 0 ? `run by ${g1.join(', ')}` : 'no record'}`);
  say(
    `  G7363 today: ${circ.inferred ? `${circ.inferred.source} circulation of ${circ.inferred.nodes.length} trains on ${daysOf(circ.inferred)} day(s)` : 'no circulation'}`,
  );
  say(
    `  D7404 today: ${circ.official ? `${circ.official.source} circulation (${circ.official.metadata?.validationState}) of ${circ.official.nodes.length} trains on ${daysOf(circ.official)} days` : 'no circulation'}`,
  );
  const best = circ.prediction.candidates[0];
  say(
    `  D7405 today: ${best ? `${best.emuCode} predicted (confidence ${best.confidence.toFixed(2)}, last seen ${best.daysSinceSeen} day(s) ago on ${best.lastSeenTrainCode})` : `no prediction (${circ.prediction.reason?.code})`}`,
  );
  const key = await makeDemoKey(ctx.db, config, new Date(now));
  for (const line of demoNextSteps({
    port: config.PORT,
    anonymousCapacity: config.QUOTA_ANONYMOUS_CAPACITY,
    exportDir,
    rejected: ingest.rejected + timetables.rejected,
    key,
    today: ymdOfServiceDay(today),
    yesterday: ymdOfServiceDay(today - 1),
    picture: circ.picture,
  }))
    say(line);
}
