import { beforeEach, describe, expect, it } from 'vitest';
import { CurrentCirculationProvider } from '../../src/domain/circulation/current-circulation-provider.js';
import { currentCirculation } from '../../src/domain/circulation/current-circulation.js';
import { readDataVersions } from '../../src/shared/cache/data-versions.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { importTables, officialTable, seedLoop, TODAY } from './circulation-fixture.js';
import { resetCirculationData } from './support.js';

const t = useTestDatabase();
beforeEach(() => resetCirculationData(t.current.db));

const CONFIG = { CIRCULATION_CRON: '30 3 * * *', CIRCULATION_WINDOW_DAYS: 14 };
const clock = () => 1_790_000_000_000;

/** The circulations' version as the train page's part of it reads (`circulations:0@N`). */
async function version(db: Queryable): Promise<string> {
  const v = (await readDataVersions(db, ['circulations:0'])).get('circulations:0') ?? 0;
  return `circulations:0@${v}`;
}

/** Counts the lookups of one train's circulation (the official table's, the route's). */
function counting(db: Queryable, lookups: string[]): Queryable {
  return {
    query: (sql, params) => {
      if (sql.includes('SELECT o.entry_key')) lookups.push('official');
      if (sql.includes('n.train_codes @>')) lookups.push('route');
      return db.query(sql, params);
    },
    copyFrom: (...args) => db.copyFrom(...args),
  };
}

describe('CurrentCirculationProvider with the circulations version', () => {
  it('answers as currentCirculation, and a train no circulation holds costs no lookup', async () => {
    const { db } = t.current;
    await seedLoop(db);
    const lookups: string[] = [];
    const provider = new CurrentCirculationProvider(counting(db, lookups), CONFIG, clock);
    const v = await version(db);
    const g13 = await provider.circulationOf(
      { trainCode: 'G13', allCodes: [], serviceDay: TODAY },
      v,
    );
    expect(g13).toEqual(
      await currentCirculation(db, {
        trainCode: 'G13',
        serviceDay: TODAY,
        refreshAt: provider.nextRefreshAt(),
        evidenceDays: 14,
      }),
    );
    expect(g13?.source).toBe('inferred');
    expect(lookups).toEqual(['official', 'route']);

    lookups.length = 0;
    expect(
      await provider.circulationOf({ trainCode: 'G99', allCodes: ['G99'], serviceDay: TODAY }, v),
    ).toBeUndefined();
    expect(lookups).toEqual([]);
    // A number of the run that a route holds finds it (a paired train).
    const paired = await provider.circulationOf(
      { trainCode: 'G98', allCodes: ['G98', 'G14'], serviceDay: TODAY },
      v,
    );
    expect(paired?.source).toBe('inferred');
    // Without a version, every train is looked up as before.
    lookups.length = 0;
    await provider.circulationOf({ trainCode: 'G99', allCodes: [], serviceDay: TODAY });
    expect(lookups).toEqual(['official', 'route']);
  });

  it('sees an official table holding a train of no route once the version moves', async () => {
    const { db } = t.current;
    await seedLoop(db);
    const provider = new CurrentCirculationProvider(db, CONFIG, clock);
    const before = await version(db);
    const ask = (v: string) =>
      provider.circulationOf({ trainCode: 'G15', allCodes: [], serviceDay: TODAY }, v);
    expect(await ask(before)).toBeUndefined();
    await importTables(db, [officialTable('G13#G14#G15')]);
    const after = await version(db);
    expect(after).not.toBe(before);
    expect((await ask(after))?.source).toBe('official');
  });
});
