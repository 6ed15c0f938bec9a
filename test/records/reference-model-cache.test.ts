import { describe, expect, it } from 'vitest';
import { ReferenceModelCache } from '../../src/domain/records/reference-model-cache.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { stationBoardVersions } from '../../src/domain/timetables/station-board.js';
import { useTestDatabase } from '../helpers/test-db.js';

describe('ReferenceModelCache', () => {
  const t = useTestDatabase();

  it('reads each number once per version of the models, numbers without models included', async () => {
    const { db } = t.current;
    await db.query(
      `INSERT INTO train_reference_models (train_code, model, weighted_share, window_start, window_end)
       VALUES ('G1', 'CR400AF', 0.75, 1, 14), ('G1', 'CR400BF', 0.25, 1, 14), ('G2', 'CRH380A', 1, 1, 14)`,
    );
    const asked: string[][] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        if (sql.includes('FROM train_reference_models')) asked.push([...(params![0] as string[])]);
        return db.query(sql, params);
      },
      copyFrom: (...args) => db.copyFrom(...args),
    };
    const cache = new ReferenceModelCache(counted);
    const version = async () => (await stationBoardVersions(db)).referenceModels;

    const first = await cache.models(['G1', 'G2', 'G3'], await version());
    expect(Object.fromEntries(first)).toEqual({
      G1: [
        { model: 'CR400AF', weightedShare: 0.75 },
        { model: 'CR400BF', weightedShare: 0.25 },
      ],
      G2: [{ model: 'CRH380A', weightedShare: 1 }],
    });
    // G3 has none: left out, and not asked for again.
    expect(Object.fromEntries(await cache.models(['G3', 'G2'], await version()))).toEqual({
      G2: [{ model: 'CRH380A', weightedShare: 1 }],
    });
    expect(asked).toEqual([['G1', 'G2', 'G3']]);

    // A change to the models is a new version (the statement trigger of migration 016).
    const before = await version();
    await db.query(`DELETE FROM train_reference_models WHERE train_code = 'G2'`);
    expect(await version()).toBeGreaterThan(before);
    expect(Object.fromEntries(await cache.models(['G2', 'G1'], await version()))).toEqual({
      G1: first.get('G1'),
    });
    expect(asked).toHaveLength(2);
  });
});
