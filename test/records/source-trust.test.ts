import { describe, expect, it } from 'vitest';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { listStaleDays } from '../../src/domain/records/stale-days.js';
import { checkSourceSettings } from '../../src/domain/sources/source-config.js';
import { addSource, removeSource } from '../../src/domain/sources/source-store.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

async function units(day: number): Promise<string[]> {
  const r = await t.current.db.query<{ u: string }>(
    `SELECT d.train_code || ' ' || e.code || ' ' || d.support || ' ' || array_to_string(d.sources, ',') AS u
       FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day = $1 ORDER BY 1`,
    [day],
  );
  return r.rows.map((x) => x.u);
}

const careful = (trust: string) =>
  checkSourceSettings({ name: 'careful', kind: 'v2', url: 'https://careful.example', trust });

describe("a source's trust in the conflict rule", () => {
  it('lets the more trusted source win a disagreement; equal trust keeps the old rule', async () => {
    const { db } = t.current;
    const day = serviceDayFromYmd('20261104');
    // A busy source sees G20 on one unit four times, a careful one sees another unit once.
    await ingestSightings(db, [
      ...sightings('20261104', 'G20', 'CR400AF-2001', 4, 'busy'),
      ...sightings('20261104', 'G20', 'CR400AF-2002', 1, 'careful'),
    ]);
    await addSource(db, careful('1'));
    await buildDailyRecords(db, day);
    // Trust 1 each: support decides (4 against a lone report, which falls below 2).
    expect(await units(day)).toEqual(['G20 CR400AF-2001 4 busy']);
    expect(await listStaleDays(db)).toEqual([]);

    // Added again with trust 20: its one sighting weighs 20 against 4, and 4 is below a third
    // of 20, so its unit alone stands. The change of weight marks the day stale; its rebuild
    // is not skipped (the weights are among its inputs).
    await removeSource(db, 'careful');
    expect(await listStaleDays(db)).toEqual([]);
    await addSource(db, careful('20'));
    expect((await listStaleDays(db)).map((s) => [s.serviceDay, s.causes])).toEqual([
      [day, ['correction']],
    ]);
    const rebuilt = await buildDailyRecords(db, day);
    expect(rebuilt.skipped).toBe(false);
    // The record's support still counts sightings.
    expect(await units(day)).toEqual(['G20 CR400AF-2002 1 careful']);

    // Removed (back to weight 1): stale again, and the old rule's answer comes back.
    await removeSource(db, 'careful');
    expect((await listStaleDays(db)).map((s) => s.serviceDay)).toContain(day);
    await buildDailyRecords(db, day);
    expect(await units(day)).toEqual(['G20 CR400AF-2001 4 busy']);
  });

  it('ranks by weight first, then falls back to support, sources and the earliest sighting', async () => {
    const { db } = t.current;
    const day = serviceDayFromYmd('20261105');
    // Three candidates, two units at most: the two heaviest are kept, and the half-trusted
    // source's unit is cut although it has as much support as the leader.
    await addSource(db, careful('0.5'));
    await ingestSightings(db, [
      ...sightings('20261105', 'G21', 'CRH2A-2010', 3, 'busy'),
      ...sightings('20261105', 'G21', 'CRH2A-2011', 3, 'careful'),
      ...sightings('20261105', 'G21', 'CRH2A-2012', 2, 'busy'),
    ]);
    await buildDailyRecords(db, day);
    // Weights 3, 1.5 and 2: 2010 and 2012 kept (2 >= 2 and 2 * 3 >= 3), 2011 (1.5) ranked last.
    expect(await units(day)).toEqual(['G21 CRH2A-2010 3 busy', 'G21 CRH2A-2012 2 busy']);
  });

  it('weighs the sources of a day with more sources than the rule counts in bits', async () => {
    const { db } = t.current;
    const day = serviceDayFromYmd('20261106');
    // 17 sources of weight 1 see G22 on one unit once each; the heavy one (trust 20) sees
    // another unit once. Unweighted, its lone report would fall below 2 and be dropped; weighed,
    // it leads (20 against 17) and the other unit, 17 >= 2 and 17 * 3 >= 20, stays beside it.
    await addSource(
      db,
      checkSourceSettings({ name: 'heavy', kind: 'v2', url: 'https://heavy.example', trust: '20' }),
    );
    const many = Array.from({ length: 17 }, (_, i) => `src-${String(i).padStart(2, '0')}`);
    await ingestSightings(db, [
      ...many.flatMap((source) => sightings('20261106', 'G22', 'CR400AF-2101', 1, source)),
      ...sightings('20261106', 'G22', 'CR400AF-2102', 1, 'heavy'),
    ]);
    await buildDailyRecords(db, day);
    expect(await units(day)).toEqual([
      `G22 CR400AF-2101 17 ${many.join(',')}`,
      'G22 CR400AF-2102 1 heavy',
    ]);
  });
});
