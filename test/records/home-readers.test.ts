import { describe, expect, it } from 'vitest';
import { renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { readLatestBuiltDay } from '../../src/domain/records/latest-built-day.js';
import {
  readNewestRecordChanges,
  readRecordChanges,
  START,
} from '../../src/domain/records/record-changes.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

describe('the latest built day', () => {
  it('is the latest day a build wrote records for, with its counts and whether it is exported', async () => {
    const db = t.current.db;
    expect(await readLatestBuiltDay(db)).toBeUndefined();
    await ingestSightings(db, [
      ...sightings('20260901', 'G100', 'CR400AF-2100', 2),
      // A coupled train: two units on one number; and one unit on two numbers.
      ...sightings('20260902', 'G200', 'CR400AF-2200', 2),
      ...sightings('20260902', 'G200', 'CR400AF-2201', 2),
      ...sightings('20260902', 'G201', 'CR400AF-2200', 2),
    ]);
    await buildDailyRecords(db, serviceDayFromYmd('20260902'));
    await buildDailyRecords(db, serviceDayFromYmd('20260901'));
    // A build of a later day that found nothing wrote no records: not the latest.
    await buildDailyRecords(db, serviceDayFromYmd('20260903'));
    const day = serviceDayFromYmd('20260902');
    const counted = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM daily_records WHERE service_day = $1',
      [day],
    );
    expect(counted.rows[0]!.n).toBe(3);
    expect(await readLatestBuiltDay(db)).toEqual({
      serviceDay: day,
      records: 3,
      trains: 2,
      emus: 2,
      exported: false,
    });
    await renderDailyExport(db, day, { today: day });
    expect(await readLatestBuiltDay(db)).toMatchObject({ serviceDay: day, exported: true });
  });
});

describe('the newest record changes', () => {
  it('are the feed read backwards: the last `limit` changes, newest first', async () => {
    const db = t.current.db;
    await ingestSightings(db, [
      ...sightings('20261001', 'G100', 'CR400AF-2100', 2),
      ...sightings('20261001', 'G101', 'CR400AF-2101', 2),
      ...sightings('20261002', 'G102', 'CR400AF-2102', 2),
    ]);
    await buildDailyRecords(db, serviceDayFromYmd('20261001'));
    await buildDailyRecords(db, serviceDayFromYmd('20261002'));
    // A later change to the first day (a record removed): the newest of all.
    await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('emutrack.change_cause', 'correction', true)`);
      await tx.query(`DELETE FROM daily_records WHERE train_code = 'G101' AND service_day = $1`, [
        serviceDayFromYmd('20261001'),
      ]);
    });
    const all = (await readRecordChanges(db, START, 1000)).changes;
    expect(all.length).toBeGreaterThan(4);
    const newest = await readNewestRecordChanges(db, 3);
    expect(newest).toEqual(all.slice(-3).reverse());
    expect(newest[0]).toMatchObject({ kind: 'removed', cause: 'correction', trainCode: 'G101' });
    expect(await readNewestRecordChanges(db, 1000)).toEqual([...all].reverse());
  });
});
