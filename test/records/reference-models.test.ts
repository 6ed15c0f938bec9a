import { describe, expect, it } from 'vitest';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { refreshReferenceModels } from '../../src/domain/records/reference-models.js';
import { serviceDayFromYmd, ymdOfServiceDay } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings, type Sighting } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const t = useTestDatabase();
const END = serviceDayFromYmd('20261014');

async function shares() {
  const r = await t.current.db.query<{
    train_code: string;
    model: string;
    weighted_share: number;
    window_start: number;
    window_end: number;
  }>(
    'SELECT train_code, model, weighted_share, window_start, window_end FROM train_reference_models ORDER BY train_code, weighted_share DESC, model',
  );
  return r.rows.map((x) => [x.train_code, x.model, Math.round(x.weighted_share * 1e6) / 1e6]);
}

/** `n` sightings of the unit on the train on the k-th day before END (0 = END). */
const on = (k: number, train: string, unit: string, n = 2): Sighting[] =>
  sightings(ymdOfServiceDay(END - k), train, unit, n);

describe('reference models', () => {
  it('weighs each day once, split between its units, unconfirmed records half; drops small shares', async () => {
    // Models come from the fleet import.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-fleet-'));
    try {
      const fleet = path.join(dir, 'fleet.csv');
      await writeFile(
        fleet,
        'emu_code,model\nCR400AF-2001,CR400AF\nCR400AF-2002,CR400AF\nCR400BF-5033,CR400BF\nCRH2A-2010,CRH2A\nCRH2A-2011,CRH2A\nCRH380A-2641,CRH380A\n',
      );
      await importFleet(t.current.db, fleet);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const seen: Sighting[] = [];
    // G10: 10 days CR400AF (two different units), 3 days CR400BF, 1 day run by one
    // unconfirmed report of CRH380A: weights 10, 3, 0.5 of 13.5.
    for (let k = 0; k < 10; k++)
      seen.push(...on(k, 'G10', k % 2 ? 'CR400AF-2001' : 'CR400AF-2002'));
    for (let k = 10; k < 13; k++) seen.push(...on(k, 'G10', 'CR400BF-5033'));
    seen.push(...on(13, 'G10', 'CRH380A-2641', 1));
    // Outside the window: counts for nothing.
    seen.push(...on(14, 'G10', 'CRH2A-2010'), ...on(20, 'G10', 'CRH2A-2010'));
    // G20: coupled CRH2A pair on 2 days (one model, whole days), a CR400AF on 1 day: 2 of 3.
    for (const k of [0, 1]) seen.push(...on(k, 'G20', 'CRH2A-2010'), ...on(k, 'G20', 'CRH2A-2011'));
    seen.push(...on(2, 'G20', 'CR400AF-2001'));
    // G30: one day coupled CR400AF + CR400BF (half each), one day CR400AF: 0.75 / 0.25.
    seen.push(
      ...on(3, 'G30', 'CR400AF-2002'),
      ...on(3, 'G30', 'CR400BF-5033'),
      ...on(4, 'G30', 'CR400AF-2002'),
    );
    await ingestSightings(t.current.db, seen);
    for (let d = END - 20; d <= END; d++) await buildDailyRecords(t.current.db, d);

    const r = await refreshReferenceModels(t.current.db, { windowEnd: END });
    expect(r).toEqual({ windowStart: END - 13, windowEnd: END, trains: 3, rows: 4 });
    expect(await shares()).toEqual([
      ['G10', 'CR400AF', Math.round((10 / 13.5) * 1e6) / 1e6],
      ['G20', 'CRH2A', Math.round((2 / 3) * 1e6) / 1e6],
      ['G20', 'CR400AF', Math.round((1 / 3) * 1e6) / 1e6],
      ['G30', 'CR400AF', 0.75],
    ]);
    const row = await t.current.db.query(
      'SELECT window_start, window_end FROM train_reference_models LIMIT 1',
    );
    expect(row.rows[0]).toEqual({ window_start: END - 13, window_end: END });
  });

  it('takes the window and the threshold it is given, and replaces what was stored', async () => {
    await refreshReferenceModels(t.current.db, { windowEnd: END, windowDays: 3, minShare: 0.2 });
    expect(await shares()).toEqual([
      ['G10', 'CR400AF', 1],
      ['G20', 'CRH2A', Math.round((2 / 3) * 1e6) / 1e6],
      ['G20', 'CR400AF', Math.round((1 / 3) * 1e6) / 1e6],
    ]);
    await refreshReferenceModels(t.current.db, { windowEnd: END - 100 });
    expect(await shares()).toEqual([]);
    await expect(
      refreshReferenceModels(t.current.db, { windowEnd: END, windowDays: 0 }),
    ).rejects.toThrow(/windowDays/);
  });
});
