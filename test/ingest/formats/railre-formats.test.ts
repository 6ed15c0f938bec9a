import { describe, expect, it } from 'vitest';
import { ingestObservations } from '../../../src/domain/ingest/ingest-observations.js';
import { buildDailyRecords } from '../../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../../src/shared/time/service-day.js';
import { useTestDatabase } from '../../helpers/test-db.js';
import { recordsOf, rejectsOf, useFixtureDir } from './format-test-kit.js';

const t = useTestDatabase();
const files = useFixtureDir();
const D1 = serviceDayFromYmd('20260810');
const D2 = serviceDayFromYmd('20260811');

describe('rail.re rows', () => {
  it('CSV: each row a sighting on its date, the unit normalised, a paired number kept as a pair', async () => {
    const { db } = t.current;
    const file = await files.write(
      'railre.csv',
      [
        'date,emu_no,train_no',
        '2026-08-10,CRH380AL2541,G1',
        '2026-08-10,CR400BFA5156,G4340/G4337',
        '2026-08-11,CRH380AL2541,G2',
        '2026-13-01,CRH380AL2541,G3',
        '10/08/2026,CRH380AL2541,G5',
        '2026-08-10,,G7',
        '2026-08-10,CRH380AL2542,XYZ1',
        '2026-08-10,CRH380AL2543',
        '2026-08-10,CRH380AL2544,G9,extra',
        '2026-08-10,banana!,G11',
      ].join('\r\n') + '\r\n',
    );
    const r = await ingestObservations(db, file);
    expect(r.files[0]).toEqual({
      file: 'railre.csv',
      format: 'railre-csv',
      read: 10,
      accepted: 3,
      duplicate: 0,
      rejected: 7,
    });
    expect(r.serviceDays).toEqual([D1, D2]);
    const rejects = await rejectsOf(db, 'railre.csv');
    expect(rejects.map(([line, field]) => [line, field])).toEqual([
      [5, 'date'],
      [6, 'date'],
      [7, 'emu_no'],
      [8, 'train_no'],
      [9, null],
      [10, null],
      [11, 'emu_no'],
    ]);
    expect(rejects[0]![2]).toBe('date: 2026-13-01 is not a date');
    expect(rejects[1]![2]).toBe('date: expected YYYY-MM-DD, got "10/08/2026"');
    expect(rejects[3]![2]).toMatch(/^train_no: .*got "XYZ1"/);
    const stored = await db.query<{ train_codes: string[]; emu_code: string; source: string }>(
      "SELECT train_codes, emu_code, source FROM observations WHERE file = 'railre.csv' ORDER BY line",
    );
    expect(stored.rows).toEqual([
      { train_codes: ['G1'], emu_code: 'CRH380AL2541', source: 'rail.re' },
      { train_codes: ['G4340', 'G4337'], emu_code: 'CR400BFA5156', source: 'rail.re' },
      { train_codes: ['G2'], emu_code: 'CRH380AL2541', source: 'rail.re' },
    ]);
    await buildDailyRecords(db, D1);
    await buildDailyRecords(db, D2);
    expect(await recordsOf(db, D1)).toEqual([
      ['G1', 'CRH380AL-2541', 1, ['rail.re']],
      ['G4337', 'CR400BF-A-5156', 1, ['rail.re']],
      ['G4340', 'CR400BF-A-5156', 1, ['rail.re']],
    ]);
    expect(await recordsOf(db, D2)).toEqual([['G2', 'CRH380AL-2541', 1, ['rail.re']]]);

    const again = await ingestObservations(db, file);
    expect(again).toMatchObject({
      read: 10,
      accepted: 0,
      duplicate: 3,
      rejected: 7,
      serviceDays: [],
    });
    expect(await rejectsOf(db, 'railre.csv')).toHaveLength(7);
  });

  it('JSON: the same rows as an array of objects are the same sightings; bad elements refused alone', async () => {
    const { db } = t.current;
    const file = await files.write(
      'railre.json',
      JSON.stringify(
        [
          { date: '2026-08-10', emu_no: 'CRH380AL2541', train_no: 'G1' },
          { date: '2026-08-10', emu_no: 'CR400BFA5156', train_no: 'G4340/37' },
          { date: '2026-08-12', emu_no: 'CR400AF2001', train_no: 'G101' },
          { date: '2026-08-12', emu_no: 'CR400AF2002' },
          { date: 20260812, emu_no: 'CR400AF2003', train_no: 'G103' },
          ['2026-08-12', 'CR400AF2004', 'G105'],
        ],
        null,
        1,
      ).replace('"G105"\n ]', '"G105"\n ],\n {oops}'),
    );
    const r = await ingestObservations(db, file);
    expect(r.files[0]).toMatchObject({
      format: 'railre-json',
      read: 7,
      accepted: 1,
      duplicate: 2,
      rejected: 4,
    });
    // Each element's line is the line it starts on.
    expect((await rejectsOf(db, 'railre.json')).map(([line, field]) => [line, field])).toEqual([
      [17, 'train_no'],
      [21, 'date'],
      [26, null],
      [31, null],
    ]);
    expect(await recordsOf(db, D1)).toHaveLength(3);
    await buildDailyRecords(db, serviceDayFromYmd('20260812'));
    expect(await recordsOf(db, serviceDayFromYmd('20260812'))).toEqual([
      ['G101', 'CR400AF-2001', 1, ['rail.re']],
    ]);
  });

  it('refuses a JSON file over the size limit, naming it, and reads nothing of it', async () => {
    const { db } = t.current;
    const file = await files.write(
      'big.json',
      JSON.stringify([{ date: '2026-08-13', emu_no: 'CR400AF2001', train_no: 'G1' }]),
    );
    const r = await ingestObservations(db, file, { maxJsonBytes: 20 });
    expect(r.files[0]!.error).toMatch(
      /^big\.json: a JSON array of \d+ bytes is over the 20-byte limit/,
    );
    expect(r).toMatchObject({ read: 0, accepted: 0 });
    expect((await ingestObservations(db, file)).accepted).toBe(1);
  });
});
