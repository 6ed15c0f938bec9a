import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openAppContext } from '../shared/app/app-context.js';
import { packageRoot } from '../shared/app/package-root.js';
import { ConfigError, loadConfig } from '../shared/config/config.js';
import { importCoachLayouts } from '../domain/emus/import-coach-layouts.js';
import { importFleet } from '../domain/emus/import-fleet.js';
import { getDailyExport } from '../domain/exports/daily-export-csv.js';
import { ingestObservations } from '../domain/ingest/ingest-observations.js';
import { createLogger } from '../shared/log/logger.js';
import { runDayInProcess, runInProcess } from '../worker/in-process-runner.js';
import { refreshReferenceModelsJob } from '../../jobs/index.js';
import { serviceDayFromYmd, serviceDayOf, ymdOfServiceDay } from '../shared/time/service-day.js';
import { ingestTimetables } from '../domain/timetables/ingest-timetables.js';
import { demoCirculations } from './demo-circulations.js';
import { demoNextSteps, makeDemoKey } from './demo-next-steps.js';

/**
 * `npm run demo`: the fixture week end to end on whatever database the environment names (the
 * embedded PGlite under ./.data by default): fleet and coach layouts, timetables, observations,
 * then build and export each day through the job code, and the CSVs written to DATA_DIR/exports;
 * then the circulations of demo-circulations.ts (dated from today), inferred, one official table
 * imported, a picture drawn and a prediction made.
 */
const FIRST_DAY = '20260810';
const LAST_DAY = '20260816';

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await openAppContext({
    config,
    logger: createLogger(process.env.LOG_LEVEL ?? 'warn'),
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const fixtures = path.join(packageRoot(), 'fixtures');
    say(
      `database: ${ctx.db.kind === 'pglite' ? `embedded PGlite in ${path.resolve(config.DATA_DIR, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`,
    );
    const fleet = await importFleet(ctx.db, path.join(fixtures, 'fleet.csv'));
    say(`fleet: ${fleet.read} EMUs read, ${fleet.created} new, ${fleet.updated} updated`);
    const layouts = await importCoachLayouts(ctx.db, path.join(fixtures, 'coach-layouts.json'));
    say(`coach layouts: ${layouts.accepted} entries, layouts of ${layouts.units} EMUs set`);
    const timetables = await ingestTimetables(ctx.db, path.join(fixtures, 'timetables'));
    say(
      `timetables: read ${timetables.read}, accepted ${timetables.accepted} (${timetables.changed} new versions, ` +
        `${timetables.unchanged} unchanged), rejected ${timetables.rejected}`,
    );
    const ingest = await ingestObservations(ctx.db, path.join(fixtures, 'observations'));
    for (const f of ingest.files) {
      say(
        `ingest ${f.file}: read ${f.read}, accepted ${f.accepted}, duplicate ${f.duplicate}, rejected ${f.rejected}`,
      );
    }
    const exportDir = path.resolve(config.DATA_DIR, 'exports');
    await mkdir(exportDir, { recursive: true });
    for (let day = serviceDayFromYmd(FIRST_DAY); day <= serviceDayFromYmd(LAST_DAY); day++) {
      const r = await runDayInProcess(ctx, day);
      const ymd = ymdOfServiceDay(day);
      const stored = (await getDailyExport(ctx.db, day))!;
      await writeFile(path.join(exportDir, `${ymd}.csv`), stored.content);
      say(
        `${ymd} (service day ${day}): ${r.build.records} records, export ${stored.rowCount} rows, sha256 ${stored.sha256.slice(0, 12)}`,
      );
    }
    // As the nightly flow leaves it after its last day: the trains' reference models.
    const models = await runInProcess(ctx, refreshReferenceModelsJob, {
      serviceDay: serviceDayFromYmd(LAST_DAY),
    });
    say(`reference models: ${models.trains} trains, ${models.rows} (train, model) shares`);
    const circ = await demoCirculations(
      ctx.db,
      path.join(fixtures, 'circulations'),
      config.DATA_DIR,
      say,
    );
    const daysOf = (c: typeof circ.inferred) =>
      c
        ? new Set(c.nodes.filter((n) => n.startAt > 0).map((n) => serviceDayOf(n.startAt))).size
        : 0;
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
    const key = await makeDemoKey(ctx.db, config);
    for (const line of demoNextSteps({
      port: config.PORT,
      anonymousCapacity: config.QUOTA_ANONYMOUS_CAPACITY,
      exportDir,
      rejected: ingest.rejected + timetables.rejected,
      key,
      today: ymdOfServiceDay(circ.today),
      picture: circ.picture,
    }))
      say(line);
  } finally {
    await ctx.db.close();
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
main().catch((err: unknown) => {
  process.stderr.write(
    `demo: ${err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err))}\n`,
  );
  process.exitCode = 1;
});
