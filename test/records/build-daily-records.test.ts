import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, shanghai, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();

async function records(ymd: string) {
  const r = await t.current.db.query<{
    id: number;
    train_code: string;
    code: string;
    support: number;
    status: number;
    sources: string[];
  }>(
    `SELECT d.id, d.train_code, e.code, d.support, d.status, d.sources
       FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY d.train_code, e.code`,
    [serviceDayFromYmd(ymd)],
  );
  return r.rows;
}

const brief = (rows: Awaited<ReturnType<typeof records>>) =>
  rows.map((r) => [r.train_code, r.code, r.support, r.status]);

describe('buildDailyRecords: the conflict rule', () => {
  it('outvotes one dissenting report against many confirmations (5 vs 1)', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260901', 'G10', 'CR400AF-2001', 5),
      ...sightings('20260901', 'G10', 'CR400AF-2002', 1),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260901'));
    expect(brief(await records('20260901'))).toEqual([['G10', 'CR400AF-2001', 5, 0x01]]);
  });

  it('keeps a coupled run whose second unit was seen less often (5 vs 2), both confirmed and coupled', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260902', 'G11', 'CRH2A-2010', 5),
      ...sightings('20260902', 'G11', 'CRH2A-2011', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260902'));
    expect(brief(await records('20260902'))).toEqual([
      ['G11', 'CRH2A-2010', 5, 0x03],
      ['G11', 'CRH2A-2011', 2, 0x03],
    ]);
  });

  it('drops a candidate below a third of the leader even with two sightings (7 vs 2)', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260903', 'G12', 'CRH2A-2010', 7),
      ...sightings('20260903', 'G12', 'CRH2A-2011', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260903'));
    expect(brief(await records('20260903'))).toEqual([['G12', 'CRH2A-2010', 7, 0x01]]);
  });

  it('keeps at most two units, by support (4, 3, 2)', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260904', 'G13', 'CRH2A-2010', 4),
      ...sightings('20260904', 'G13', 'CRH2A-2011', 3),
      ...sightings('20260904', 'G13', 'CRH2A-2012', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260904'));
    expect(brief(await records('20260904'))).toEqual([
      ['G13', 'CRH2A-2010', 4, 0x03],
      ['G13', 'CRH2A-2011', 3, 0x03],
    ]);
  });

  it('keeps a lone report unconfirmed, and one report against one as two unconfirmed, uncoupled records', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260905', 'G14', 'CR400AF-2001', 1),
      ...sightings('20260905', 'G15', 'CR400AF-2002', 1),
      ...sightings('20260905', 'G15', 'CR400AF-2003', 1),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260905'));
    expect(brief(await records('20260905'))).toEqual([
      ['G14', 'CR400AF-2001', 1, 0],
      ['G15', 'CR400AF-2002', 1, 0],
      ['G15', 'CR400AF-2003', 1, 0],
    ]);
  });

  it('honours a configured confirmation threshold', async () => {
    await ingestSightings(t.current.db, sightings('20260906', 'G16', 'CR400AF-2001', 2));
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260906'), { confirmMinSupport: 3 });
    expect(brief(await records('20260906'))).toEqual([['G16', 'CR400AF-2001', 2, 0]]);
  });

  it('records the distinct sources of the support', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260907', 'G17', 'CR400AF-2001', 2, 'travel-code'),
      ...sightings('20260907', 'G17', 'CR400AF-2001', 1, 'station-board'),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260907'));
    expect((await records('20260907'))[0]!.sources).toEqual(['station-board', 'travel-code']);
  });

  it('ranks candidates of equal support by their number of distinct sources', async () => {
    await ingestSightings(t.current.db, [
      ...sightings('20260908', 'G18', 'CR400AF-2001', 2, 'report'),
      ...sightings('20260908', 'G18', 'CR400AF-2002', 1, 'travel-code'),
      ...sightings('20260908', 'G18', 'CR400AF-2002', 1, 'report'),
      ...sightings('20260908', 'G18', 'CR400AF-2003', 1, 'station-board'),
      ...sightings('20260908', 'G18', 'CR400AF-2003', 1, 'travel-code'),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260908'));
    expect((await records('20260908')).map((r) => [r.code, r.sources])).toEqual([
      ['CR400AF-2002', ['report', 'travel-code']],
      ['CR400AF-2003', ['station-board', 'travel-code']],
    ]);
  });

  it('gives the sources in the order Postgres sorts them, whatever they hold', async () => {
    const odd = [
      'travel-code',
      'a,b',
      'x"y',
      '{z}',
      'back\\slash',
      'NULL',
      'über',
      'Zeta',
      ' lead',
    ];
    await ingestSightings(
      t.current.db,
      odd.flatMap((source, i) => sightings('20260909', 'G19', 'CR400AF-2001', 1 + (i % 2), source)),
    );
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260909'));
    const expected = await t.current.db.query<{ s: string[] }>(
      'SELECT array_agg(DISTINCT source ORDER BY source) AS s FROM observations WHERE service_day = $1',
      [serviceDayFromYmd('20260909')],
    );
    expect(expected.rows[0]!.s).toHaveLength(odd.length);
    expect((await records('20260909'))[0]!.sources).toEqual(expected.rows[0]!.s);
  });

  it('counts the source of a sighting moved in across midnight that the day itself lacks', async () => {
    // D709 leaves at 23:50 and arrives after midnight: its 00:20 sighting (stored for the next
    // calendar day, from a source no sighting stored for the day has) counts for the day it left.
    await ingestTimetableLines(t.current.db, [
      timetable('D709', '20260101', [
        ['上海虹桥', undefined, '23:50'],
        ['蚌埠南', '25:10'],
      ]),
    ]);
    await ingestSightings(t.current.db, [
      ...sightings('20260914', 'D709', 'CR400AF-2501', 1, 'report').map((s) => ({
        ...s,
        observedAt: shanghai('20260914', '23:52'),
      })),
      ...sightings('20260915', 'D709', 'CR400AF-2501', 1, 'late-source').map((s) => ({
        ...s,
        observedAt: shanghai('20260915', '00:20'),
      })),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260914'));
    expect((await records('20260914')).map((r) => [r.train_code, r.support, r.sources])).toEqual([
      ['D709', 2, ['late-source', 'report']],
    ]);
  });

  it('counts a sighting with a new source stored while the build runs, between its statements', async () => {
    const day = serviceDayFromYmd('20260916');
    await ingestSightings(t.current.db, [
      ...sightings('20260916', 'G25', 'CR400AF-2601', 2, 'report'),
      ...sightings('20260916', 'G26', 'CR400AF-2602', 1, 'report'),
    ]);
    // Right after the build has read the day's sources, two sightings from a source the day
    // did not have yet are stored and committed: one for a unit already sighted, one for a new
    // train. The build's later statements see them (each reads its own snapshot).
    const real = t.current.db;
    let stored = false;
    const racing: Db = {
      ...real,
      kind: real.kind,
      transaction: (fn) =>
        real.transaction((tx) =>
          fn({
            ...tx,
            query: async (sql, params) => {
              const r = await tx.query(sql, params);
              if (!stored && sql.includes('GROUP BY source')) {
                stored = true;
                await ingestSightings(real, [
                  ...sightings('20260916', 'G25', 'CR400AF-2601', 1, 'zz-new'),
                  ...sightings('20260916', 'G27', 'CR400AF-2603', 1, 'zz-new'),
                ]);
              }
              return r as never;
            },
          }),
        ),
    };
    await buildDailyRecords(racing, day);
    expect(stored).toBe(true);
    const built = (await records('20260916')).map((r) => [r.train_code, r.support, r.sources]);
    expect(built).toEqual([
      ['G25', 3, ['report', 'zz-new']],
      ['G26', 1, ['report']],
      ['G27', 1, ['zz-new']],
    ]);
    // The next build reads them with the day's sources and finds nothing to change.
    expect(await buildDailyRecords(real, day)).toMatchObject({
      skipped: false,
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
  });

  // 16 sources use every bit the rule counts, the last ones by a candidate of its own; past 16
  // (70) the rule aggregates each candidate's sources instead.
  it.each([
    [16, '20260917', ['src-14', 'src-15']],
    [70, '20260912', ['src-01', 'src-05']],
  ])('finds the sources of a day with %i distinct sources', async (count, ymd, pair) => {
    const many = Array.from({ length: count }, (_, i) => `src-${String(i).padStart(2, '0')}`);
    await ingestSightings(t.current.db, [
      ...many.map((source, i) => ({
        ...sightings(ymd, 'G23', 'CR400AF-2001', 1, source)[0]!,
        observedAt: shanghai(ymd, '10:00') + i,
      })),
      ...sightings(ymd, 'G24', 'CR400AF-2002', 2, pair[1]!),
      ...sightings(ymd, 'G24', 'CR400AF-2002', 1, pair[0]!),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd(ymd));
    expect((await records(ymd)).map((r) => [r.train_code, r.support, r.sources])).toEqual([
      ['G23', count, many],
      ['G24', 3, pair],
    ]);
  });
});

describe('buildDailyRecords: rebuilds', () => {
  it('keeps ids of supported keys, gives new keys new ids, removes keys no longer supported', async () => {
    const day = serviceDayFromYmd('20260910');
    await ingestSightings(t.current.db, [
      ...sightings('20260910', 'G20', 'CR400AF-2001', 1),
      ...sightings('20260910', 'G21', 'CR400AF-2002', 3),
    ]);
    const first = await buildDailyRecords(t.current.db, day);
    expect(first).toMatchObject({ records: 2, inserted: 2, updated: 0, deleted: 0 });
    const before = await records('20260910');

    // Three sightings of another unit on G20 now outvote the lone report; G22 is new; G21 gains support.
    await ingestSightings(t.current.db, [
      ...sightings('20260910', 'G20', 'CR400AF-2003', 3),
      ...sightings('20260910', 'G22', 'CR400AF-2001', 2),
      ...sightings('20260910', 'G21', 'CR400AF-2002', 1),
    ]);
    const second = await buildDailyRecords(t.current.db, day);
    expect(second).toMatchObject({ records: 3, inserted: 2, updated: 1, deleted: 1 });
    const after = await records('20260910');
    expect(brief(after)).toEqual([
      ['G20', 'CR400AF-2003', 3, 1],
      ['G21', 'CR400AF-2002', 4, 1],
      ['G22', 'CR400AF-2001', 2, 1],
    ]);
    const g21Before = before.find((r) => r.train_code === 'G21')!;
    const g21After = after.find((r) => r.train_code === 'G21')!;
    expect(g21After.id).toBe(g21Before.id);
    expect(
      Math.min(...after.filter((r) => r.train_code !== 'G21').map((r) => r.id)),
    ).toBeGreaterThan(Math.max(...before.map((r) => r.id)));

    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({
      records: 3,
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
    expect(await records('20260910')).toEqual(after);
  });

  it('gives new keys ids in train order (prefix, then number), on a first build and after', async () => {
    const day = serviceDayFromYmd('20260913');
    const trains = ['G10', 'G9', 'D100', 'C5', '1461', 'G100', 'S1', 'D99', 'K7'];
    await ingestSightings(
      t.current.db,
      trains.flatMap((train, i) =>
        sightings('20260913', train, `CR400AF-${String(2300 + i).padStart(4, '0')}`, 1),
      ),
    );
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ inserted: 9 });
    const byId = async () =>
      (
        await t.current.db.query<{ train_code: string }>(
          'SELECT train_code FROM daily_records WHERE service_day = $1 ORDER BY id',
          [day],
        )
      ).rows.map((r) => r.train_code);
    expect(await byId()).toEqual(['1461', 'C5', 'D99', 'D100', 'G9', 'G10', 'G100', 'K7', 'S1']);

    await ingestSightings(t.current.db, [
      ...sightings('20260913', 'G2', 'CR400AF-2400', 1),
      ...sightings('20260913', '88', 'CR400AF-2401', 1),
      ...sightings('20260913', 'D1000', 'CR400AF-2402', 1),
    ]);
    expect(await buildDailyRecords(t.current.db, day)).toMatchObject({ inserted: 3 });
    expect(await byId()).toEqual([
      ...['1461', 'C5', 'D99', 'D100', 'G9', 'G10', 'G100', 'K7', 'S1'],
      ...['88', 'D1000', 'G2'],
    ]);
  });

  it('leaves other days alone and builds an empty day as empty', async () => {
    // Its own other day (not one another test built), so the check holds when run alone.
    await ingestSightings(t.current.db, [
      ...sightings('20260930', 'G21', 'CR400AF-2101', 3),
      ...sightings('20260930', 'G22', 'CR400AF-2102', 2),
    ]);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20260930'));
    const other = await records('20260930');
    expect(brief(other)).toEqual([
      ['G21', 'CR400AF-2101', 3, 0x01],
      ['G22', 'CR400AF-2102', 2, 0x01],
    ]);
    expect(await buildDailyRecords(t.current.db, serviceDayFromYmd('20261001'))).toMatchObject({
      records: 0,
      observations: 0,
    });
    expect(await records('20260930')).toEqual(other);
    expect(await records('20261001')).toEqual([]);
  });

  it('serialises concurrent builds of one day: no duplicate records', async () => {
    const day = serviceDayFromYmd('20260911');
    const batch = [];
    for (let i = 0; i < 300; i++)
      batch.push(
        ...sightings(
          '20260911',
          `G${3000 + i}`,
          `CR400AF-${String(2000 + (i % 50)).padStart(4, '0')}`,
          2,
        ),
      );
    await ingestSightings(t.current.db, batch);
    await Promise.all([
      buildDailyRecords(t.current.db, day),
      buildDailyRecords(t.current.db, day),
      buildDailyRecords(t.current.db, day),
    ]);
    const r = await t.current.db.query<{ n: number; keys: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT (train_code, emu_id))::int AS keys FROM daily_records WHERE service_day = $1',
      [day],
    );
    expect(r.rows[0]).toEqual({ n: 300, keys: 300 });
  });

  it('refuses a day number that is not a day', async () => {
    await expect(buildDailyRecords(t.current.db, 1.5)).rejects.toThrow(/not a service day/);
  });
});
