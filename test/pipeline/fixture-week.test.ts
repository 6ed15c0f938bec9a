import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { getDailyExport, renderDailyExport } from '../../src/domain/exports/daily-export-csv.js';
import { ingestObservations } from '../../src/domain/ingest/ingest-observations.js';
import { ingestTimetables } from '../../src/domain/timetables/ingest-timetables.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * The hand-checked fixture week (fixtures/): 20 EMUs, 2026-08-10..16, with a coupled pair
 * (G7301/G7302), a paired run (G4340/37), a cross-midnight train (D3125, 21:40 -> 25:10), a
 * dissenting report, a one-against-one conflict (C3001 on 08-14), an EMU missing from the fleet
 * (CR400BF-Z-5301), duplicates within and across files, and bad lines; and the timetables of
 * every train (fixtures/timetables), G1 with a second version from 08-15 (arrival 11:24 instead
 * of 11:29). The expected records below were worked out from the fixture's plan by hand and by an
 * independent script, not by this code; the station and time columns by hand from the
 * timetable files (origin, terminus, the origin's departure and the terminus's arrival).
 */
const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
const HEADER = 'trainCode,emuCode,startStation,endStation,startTime,endTime';

const EXPECTED_ROWS: Record<string, string[]> = {
  '20260810': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380AL-2541,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2001,北京南,上海虹桥,07:00,11:29',
    'G2,CR400AF-2001,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5033,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5033,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5156,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260811': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380A-2642,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2002,北京南,上海虹桥,07:00,11:29',
    'G2,CR400AF-2002,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5034,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5034,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5157,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260812': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380AL-2541,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2001,北京南,上海虹桥,07:00,11:29',
    'G2,CR400AF-2001,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5033,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5033,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5156,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260813': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380A-2642,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2002,北京南,上海虹桥,07:00,11:29',
    'G2,CR400AF-2002,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5034,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5034,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5157,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260814': [
    'C3001,CR300AF-3001,成都东,重庆西,14:40,16:38',
    'C3001,CR300AF-3002,成都东,重庆西,14:40,16:38',
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380AL-2541,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2001,北京南,上海虹桥,07:00,11:29',
    'G2,CR400AF-2001,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5033,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5033,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5156,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260815': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380A-2642,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2002,北京南,上海虹桥,07:00,11:24',
    'G2,CR400AF-2002,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5034,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5034,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5157,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G1357,CR400BF-Z-5301,上海虹桥,杭州东,15:48,16:47',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
  '20260816': [
    'C6001,CRH6A-A-0201,广州南,肇庆东,07:30,08:14',
    'D3125,CRH380AL-2541,上海虹桥,蚌埠南,21:40,25:10',
    'G1,CR400AF-2001,北京南,上海虹桥,07:00,11:24',
    'G2,CR400AF-2001,上海虹桥,北京南,13:00,17:29',
    'G7,CR400BF-5033,北京南,上海虹桥,08:00,13:02',
    'G8,CR400BF-5033,上海虹桥,北京南,14:30,19:28',
    'G102,CR400BF-A-5156,上海虹桥,北京南,06:26,12:16',
    'G1234,CR400AF-Z-0216,北京西,太原南,11:10,14:08',
    'G4337,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G4340,CRH380A-2641,汉口,宜昌东,09:15,12:40',
    'G6101,CR400AF-A-2056,广州南,潮汕,08:42,10:58',
    'G6102,CR400AF-A-2056,潮汕,广州南,17:20,19:36',
    'G7301,CRH2A-2010,杭州东,宁波,10:05,11:05',
    'G7301,CRH2A-2011,杭州东,宁波,10:05,11:05',
    'G7302,CRH2A-2010,宁波,杭州东,12:00,13:02',
    'G7302,CRH2A-2011,宁波,杭州东,12:00,13:02',
  ],
};

const t = useTestDatabase();

async function recordKeys() {
  const r = await t.current.db.query<{
    id: number;
    service_day: number;
    train_code: string;
    emu_id: number;
  }>('SELECT id, service_day, train_code, emu_id FROM daily_records ORDER BY id');
  return r.rows;
}

describe('the fixture week, end to end', () => {
  it('imports the fleet', async () => {
    const r = await importFleet(t.current.db, path.join(FIXTURES, 'fleet.csv'));
    expect(r).toMatchObject({ read: 20, created: 20, updated: 0, rejected: 0, ignoredColumns: [] });
    const alias = await t.current.db.query<{ code: string }>(
      "SELECT e.code FROM emu_aliases a JOIN emus e ON e.id = a.emu_id WHERE a.alias IN ('CR400BFA5157', '5157号')",
    );
    expect(alias.rows.map((x) => x.code)).toEqual(['CR400BF-A-5157', 'CR400BF-A-5157']);
  });

  it('ingests the timetables: one version per train, a second for G1, the bad line rejected naming its stop', async () => {
    const r = await ingestTimetables(t.current.db, path.join(FIXTURES, 'timetables'));
    expect(r.files.map((f) => [f.file, f.read, f.accepted, f.rejected])).toEqual([
      ['D3125.json', 1, 1, 0],
      ['G1-20260815.json', 1, 1, 0],
      ['G4340-37.json', 1, 1, 0],
      ['jinghu.ndjson', 6, 5, 1],
      ['others.ndjson', 8, 8, 0],
    ]);
    expect(r).toMatchObject({
      newContents: 16,
      changed: 16,
      changedFrom: serviceDayFromYmd('20260701'),
    });
    const rejects = await t.current.db.query<{ line: number; field: string; reason: string }>(
      "SELECT line, field, reason FROM ingest_rejects WHERE file = 'jinghu.ndjson'",
    );
    expect(rejects.rows).toEqual([
      {
        line: 6,
        field: 'stops[1].arrive',
        reason: expect.stringMatching(/^stops\[1\]\.arrive: 16:32 is before 17:00/),
      },
    ]);
    const g1 = await t.current.db.query<{ start: number; end: number | null }>(
      `SELECT service_day_start AS start, service_day_end_exclusive AS end FROM timetable_coverage
        WHERE train_code = 'G1' ORDER BY service_day_start`,
    );
    expect(g1.rows).toEqual([
      { start: serviceDayFromYmd('20260701'), end: serviceDayFromYmd('20260815') },
      { start: serviceDayFromYmd('20260815'), end: null },
    ]);
  });

  it('ingests the observations: good lines kept, bad lines rejected with line numbers, duplicates counted', async () => {
    const r = await ingestObservations(t.current.db, path.join(FIXTURES, 'observations'));
    expect(r.files).toEqual([
      {
        file: '2026-08-10_13.ndjson',
        format: 'ndjson',
        read: 176,
        accepted: 170,
        duplicate: 2,
        rejected: 4,
      },
      {
        file: '2026-08-14_16.ndjson',
        format: 'ndjson',
        read: 131,
        accepted: 130,
        duplicate: 0,
        rejected: 1,
      },
      { file: 'station-board.csv', format: 'csv', read: 7, accepted: 2, duplicate: 3, rejected: 2 },
    ]);
    expect(r.serviceDays).toEqual([20675, 20676, 20677, 20678, 20679, 20680, 20681]);
    const rejects = await t.current.db.query<{
      file: string;
      line: number;
      field: string | null;
      reason: string;
    }>(
      `SELECT r.file, r.line, r.field, r.reason FROM ingest_rejects r
         JOIN ingest_batches b ON b.id = r.batch_id AND b.kind = 'observations'
        ORDER BY r.file, r.line`,
    );
    expect(rejects.rows.map((x) => [x.file, x.line, x.field])).toEqual([
      ['2026-08-10_13.ndjson', 11, null],
      ['2026-08-10_13.ndjson', 21, 'emuCode'],
      ['2026-08-10_13.ndjson', 31, 'observedAt'],
      ['2026-08-10_13.ndjson', 42, 'trainCode'],
      ['2026-08-14_16.ndjson', 4, 'serviceDate'],
      ['station-board.csv', 7, 'observedAt'],
      ['station-board.csv', 8, null],
    ]);
    expect(rejects.rows[0]!.reason).toMatch(/not valid JSON/);
    expect(rejects.rows[2]!.reason).toMatch(/^observedAt: hour 25 is impossible/);
    expect(rejects.rows[4]!.reason).toMatch(/^serviceDate: invalid date "20260230"/);
    expect(rejects.rows[6]!.reason).toMatch(/expected 6 columns/);
  });

  it('registers the EMU missing from the fleet, with the form it was written in as an alias', async () => {
    const r = await t.current.db.query<{ code: string; registered_by: string; aliases: string[] }>(
      `SELECT e.code, e.registered_by, array_agg(a.alias ORDER BY a.alias) AS aliases
         FROM emus e JOIN emu_aliases a ON a.emu_id = e.id WHERE e.code = 'CR400BF-Z-5301' GROUP BY e.id`,
    );
    expect(r.rows).toEqual([
      {
        code: 'CR400BF-Z-5301',
        registered_by: 'observation',
        aliases: ['CR400BF-Z-5301', 'CR400BFZ5301'],
      },
    ]);
  });

  it('builds the records and renders the CSV of every day exactly as expected', async () => {
    for (const ymd of Object.keys(EXPECTED_ROWS)) {
      const day = serviceDayFromYmd(ymd);
      await buildDailyRecords(t.current.db, day);
      await renderDailyExport(t.current.db, day);
      const stored = (await getDailyExport(t.current.db, day))!;
      const expected = '\uFEFF' + [HEADER, ...EXPECTED_ROWS[ymd]!].join('\n');
      expect(stored.content.toString('utf8'), ymd).toBe(expected);
      expect(stored.rowCount).toBe(EXPECTED_ROWS[ymd]!.length);
    }
  });

  it('marks statuses: a coupled pair 0x05 and 0x07 (their places said), single confirmed 0x01, a fault replacement 0x09, a one-against-one conflict 0x00', async () => {
    const r = await t.current.db.query<{
      train_code: string;
      code: string;
      support: number;
      status: number;
    }>(
      `SELECT d.train_code, e.code, d.support, d.status FROM daily_records d JOIN emus e ON e.id = d.emu_id
        WHERE d.service_day = $1 AND d.train_code IN ('C3001', 'G7301', 'G2', 'G4340')
        ORDER BY d.train_code, e.code`,
      [serviceDayFromYmd('20260814')],
    );
    expect(r.rows).toEqual([
      { train_code: 'C3001', code: 'CR300AF-3001', support: 1, status: 0 },
      { train_code: 'C3001', code: 'CR300AF-3002', support: 1, status: 0 },
      // A report says the unit replaced a failed one: 0x08.
      { train_code: 'G2', code: 'CR400AF-2001', support: 3, status: 0x09 },
      { train_code: 'G4340', code: 'CRH380A-2641', support: 2, status: 1 },
      // Their travel codes say which is the first unit and which the second: 0x04 / 0x06.
      { train_code: 'G7301', code: 'CRH2A-2010', support: 3, status: 0x05 },
      { train_code: 'G7301', code: 'CRH2A-2011', support: 3, status: 0x07 },
    ]);
  });

  it('outvotes the dissenting report on G7 (08-12); counts the 08-12 D3125 sighting after midnight for 08-12', async () => {
    const r = await t.current.db.query<{ ymd: string; code: string; support: number }>(
      `SELECT d.service_day::text AS ymd, e.code, d.support FROM daily_records d JOIN emus e ON e.id = d.emu_id
        WHERE (d.service_day = $1 AND d.train_code = 'G7') OR (d.service_day IN ($1, $2) AND d.train_code = 'D3125')
        ORDER BY d.service_day, d.train_code`,
      [serviceDayFromYmd('20260812'), serviceDayFromYmd('20260813')],
    );
    // The 01:00 sighting on 08-13 of 08-12's D3125 carries no serviceDate. D3125 runs 21:40 ->
    // 25:10, so by the timetable it belongs to 08-12 (support 3), not to 08-13, whose run by
    // CRH380A-2642 keeps its three sightings (one of them stated 20260813 at 01:00 on 08-14).
    expect(r.rows.map((x) => [x.code, x.support])).toEqual([
      ['CRH380AL-2541', 3],
      ['CR400BF-5033', 3],
      ['CRH380A-2642', 3],
    ]);
    const timetables = await t.current.db.query<{
      ymd: number;
      train_code: string;
      timetable: number;
    }>(
      `SELECT d.service_day AS ymd, d.train_code, d.timetable_id AS timetable FROM daily_records d
        WHERE d.service_day IN ($1, $2) AND d.train_code IN ('G1', 'G4337', 'G4340')
        ORDER BY d.service_day, d.train_code`,
      [serviceDayFromYmd('20260814'), serviceDayFromYmd('20260815')],
    );
    const [g1Old, g4337, g4340, g1New] = timetables.rows.map((x) => x.timetable);
    expect(g4337).toBe(g4340);
    expect(g1New).not.toBe(g1Old);
    expect(timetables.rows.every((x) => x.timetable !== null)).toBe(true);
    const kept = await t.current.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM observations WHERE emu_code = 'CR400AF-2003' AND train_code = 'G7'",
    );
    expect(kept.rows[0]!.n).toBe(1);
  });

  it('is idempotent: re-ingesting adds nothing, rebuilding keeps every id and every CSV byte', async () => {
    const before = await recordKeys();
    const shas = await t.current.db.query<{
      service_day: number;
      sha256: string;
      changed_at: Date;
    }>('SELECT service_day, sha256, changed_at FROM daily_exports ORDER BY service_day');
    const timetablesAgain = await ingestTimetables(t.current.db, path.join(FIXTURES, 'timetables'));
    expect(timetablesAgain).toMatchObject({
      accepted: 16,
      changed: 0,
      unchanged: 16,
      newContents: 0,
    });
    expect(timetablesAgain.changedFrom).toBeUndefined();
    const again = await ingestObservations(t.current.db, path.join(FIXTURES, 'observations'));
    expect(again).toMatchObject({
      read: 314,
      accepted: 0,
      duplicate: 307,
      rejected: 7,
      serviceDays: [],
    });
    const rejects = await t.current.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ingest_rejects',
    );
    expect(rejects.rows[0]!.n).toBe(8);
    for (const ymd of Object.keys(EXPECTED_ROWS)) {
      const day = serviceDayFromYmd(ymd);
      const b = await buildDailyRecords(t.current.db, day);
      expect(b).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
      const e = await renderDailyExport(t.current.db, day);
      expect(e.changed).toBe(false);
    }
    expect(await recordKeys()).toEqual(before);
    const after = await t.current.db.query<{
      service_day: number;
      sha256: string;
      changed_at: Date;
    }>('SELECT service_day, sha256, changed_at FROM daily_exports ORDER BY service_day');
    expect(after.rows).toEqual(shas.rows);
  });

  it('refuses to update or delete observations', async () => {
    await expect(t.current.db.query('DELETE FROM observations WHERE id = 1')).rejects.toThrow(
      /append-only/,
    );
    await expect(
      t.current.db.query("UPDATE observations SET source = 'x' WHERE id = 1"),
    ).rejects.toThrow(/append-only/);
  });
});
