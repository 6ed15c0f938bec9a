import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildDailyRecordsJob } from '../../jobs/index.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { staleDaysFamilies } from '../../src/http/ops/metrics/stale-days-metrics.js';
import { runInProcess } from '../../src/worker/in-process-runner.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import {
  dueStaleDays,
  listStaleDays,
  markDaysStale,
  staleDaysSummary,
} from '../../src/domain/records/stale-days.js';
import {
  serviceDayFromYmd,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();
const today = serviceDayOf(Date.now() / 1000);

async function clearAll(): Promise<void> {
  await t.current.db.query('DELETE FROM stale_days');
}

/** Moves a stale day's marks back in time (what waiting would do, without waiting). */
async function markedAgo(day: number, firstSeconds: number, lastSeconds: number): Promise<void> {
  await t.current.db.query(
    `UPDATE stale_days SET first_marked_at = now() - make_interval(secs => $2),
                           last_marked_at = now() - make_interval(secs => $3)
      WHERE service_day = $1`,
    [day, firstSeconds, lastSeconds],
  );
}

describe('stale days', () => {
  it('timetable ingestion marks the built days from the first whose timetable in force changed', async () => {
    const db = t.current.db;
    await clearAll();
    const days = ['20260801', '20260802', '20260803'].map(serviceDayFromYmd);
    for (const day of days) {
      await ingestSightings(db, sightings(ymdOfServiceDay(day), 'G7501', 'CR400AF-2501', 2));
      await buildDailyRecords(db, day);
    }
    // Each day's sightings marked the built day before (a cross-midnight train of it): the
    // first two days are stale again; start the timetable's part from none.
    expect((await listStaleDays(db)).map((d) => d.serviceDay)).toEqual(days.slice(0, 2));
    await clearAll();
    await ingestTimetableLines(db, [
      timetable('G7501', '20260802', [
        ['Beijingnan', undefined, '08:00'],
        ['Tianjin', '08:30'],
      ]),
    ]);
    const stale = await listStaleDays(db);
    expect(stale.map((d) => d.serviceDay)).toEqual(days.slice(1));
    expect(stale.every((d) => d.causes.join() === 'timetable')).toBe(true);
    // Their rebuild gives the records their timetable and clears them.
    const rebuilt = await buildDailyRecords(db, days[1]!);
    expect(rebuilt).toMatchObject({ updated: 1, staleCleared: true });
    // Ingesting the same timetable again changes nothing and marks nothing.
    await clearAll();
    await ingestTimetableLines(db, [
      timetable('G7501', '20260802', [
        ['Beijingnan', undefined, '08:00'],
        ['Tianjin', '08:30'],
      ]),
    ]);
    expect(await listStaleDays(db)).toEqual([]);
  });

  it('a day is due once quiet for the delay, or once stale for the max wait however often marked', async () => {
    const db = t.current.db;
    await clearAll();
    const [quiet, trickle, fresh] = [today - 20, today - 21, today - 22];
    await markDaysStale(db, [quiet, trickle, fresh], 'late-data');
    await markedAgo(quiet, 120, 90); // quiet for 90 s
    await markedAgo(trickle, 700, 5); // marked 5 s ago, but stale for 700 s
    const timing = { delayMs: 60_000, maxWaitMs: 600_000 };
    expect((await dueStaleDays(db, timing)).map((d) => d.serviceDay)).toEqual([trickle, quiet]);
    expect((await dueStaleDays(db, { delayMs: 0, maxWaitMs: 600_000 })).length).toBe(3);

    const summary = await staleDaysSummary(db);
    expect(summary.count).toBe(3);
    expect(summary.oldestAgeSeconds).toBeGreaterThanOrEqual(700);
    const families = await staleDaysFamilies(db);
    expect(families.map((f) => [f.name, f.values[0]!.value >= 3])).toEqual([
      ['emutrack_stale_days', true],
      ['emutrack_stale_day_oldest_age_seconds', true],
    ]);
    await clearAll();
    expect(await staleDaysSummary(db)).toEqual({ count: 0, oldestAgeSeconds: 0 });
  });

  it('the build sets its cause in its transaction; a stale rebuild says late-data or correction', async () => {
    const db = t.current.db;
    await clearAll();
    await db.query(`CREATE TABLE seen_causes (cause text)`);
    await db.query(
      `CREATE FUNCTION note_cause() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO seen_causes VALUES (current_setting('emutrack.change_cause', true));
         RETURN NULL;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER note_cause AFTER INSERT OR UPDATE OR DELETE ON daily_records
       FOR EACH STATEMENT EXECUTE FUNCTION note_cause()`,
    );
    try {
      const ctx = {
        config: loadConfig({ DATABASE_URL: t.current.url, LOG_LEVEL: 'silent' }),
        db,
        logger: pino({ level: 'silent' }),
      };
      const causes = async () => {
        const r = await db.query<{ cause: string }>('SELECT DISTINCT cause FROM seen_causes');
        await db.query('DELETE FROM seen_causes');
        return r.rows.map((row) => row.cause);
      };
      const day = today - 25;
      const ymd = ymdOfServiceDay(day);
      await ingestSightings(db, sightings(ymd, 'G7601', 'CR400AF-2601', 2));
      await buildDailyRecords(db, day, {}, {});
      // The first build of a past day cleared its mark; the default cause is 'build'.
      expect(await causes()).toEqual(['build']);

      await ingestSightings(db, sightings(ymd, 'G7602', 'CR400AF-2602', 2));
      await runInProcess(ctx, buildDailyRecordsJob, { serviceDay: day });
      expect(await causes()).toEqual(['late-data']);

      await ingestSightings(db, sightings(ymd, 'G7603', 'CR400AF-2603', 2));
      await markDaysStale(db, [day], 'correction');
      expect((await listStaleDays(db))[0]!.causes).toEqual(['late-data', 'correction']);
      await runInProcess(ctx, buildDailyRecordsJob, { serviceDay: day });
      expect(await causes()).toEqual(['correction']);
      expect(await listStaleDays(db)).toEqual([]);

      // Outside the build's transaction the setting is gone (set_config(..., true)).
      const after = await db.query<{ c: string | null }>(
        `SELECT current_setting('emutrack.change_cause', true) AS c`,
      );
      expect(after.rows[0]!.c ?? '').toBe('');
    } finally {
      await db.query('DROP TRIGGER note_cause ON daily_records');
      await db.query('DROP FUNCTION note_cause()');
      await db.query('DROP TABLE seen_causes');
    }
  });
});
