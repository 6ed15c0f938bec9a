import { describe, expect, it } from 'vitest';
import { ReferenceModelCache } from '../../src/domain/records/reference-model-cache.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { stationBoardVersions } from '../../src/domain/timetables/station-board.js';
import { useTestDatabase } from '../helpers/test-db.js';

describe('ReferenceModelCache', () => {
  const t = useTestDatabase();

  async function seed(db: Queryable): Promise<void> {
    await db.query('DELETE FROM train_reference_models');
    await db.query(
      `INSERT INTO train_reference_models (train_code, model, weighted_share, window_start, window_end)
       VALUES ('G1', 'CR400AF', 0.75, 1, 14), ('G1', 'CR400BF', 0.25, 1, 14), ('G2', 'CRH380A', 1, 1, 14)`,
    );
  }

  /** What the cache asked: 'whole' for the whole table, else the numbers asked for. */
  function counting(db: Queryable, asked: (string[] | 'whole')[]): Queryable {
    return {
      query: (sql, params) => {
        if (sql.includes('FROM train_reference_models')) {
          const first = params![0];
          asked.push(Array.isArray(first) ? [...(first as string[])] : 'whole');
        }
        return db.query(sql, params);
      },
      copyFrom: (...args) => db.copyFrom(...args),
    };
  }

  it('reads the whole table once per version of the models; numbers without models are known to have none', async () => {
    const { db } = t.current;
    await seed(db);
    const asked: (string[] | 'whole')[] = [];
    const cache = new ReferenceModelCache(counting(db, asked));
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
    expect(asked).toEqual(['whole']);

    // A change to the models is a new version (the statement trigger of migration 016).
    const before = await version();
    await db.query(`DELETE FROM train_reference_models WHERE train_code = 'G2'`);
    expect(await version()).toBeGreaterThan(before);
    expect(Object.fromEntries(await cache.models(['G2', 'G1'], await version()))).toEqual({
      G1: first.get('G1'),
    });
    expect(asked).toEqual(['whole', 'whole']);
  });

  it('reads number by number, each once per version, a table of more numbers than it keeps', async () => {
    const { db } = t.current;
    await seed(db);
    const asked: (string[] | 'whole')[] = [];
    const cache = new ReferenceModelCache(counting(db, asked), 1);
    const version = (await stationBoardVersions(db)).referenceModels;
    expect([...(await cache.models(['G2'], version)).keys()]).toEqual(['G2']);
    expect([...(await cache.models(['G2'], version)).keys()]).toEqual(['G2']);
    // Two numbers have models, one is kept: found too large once, and not read whole again.
    expect(asked).toEqual(['whole', ['G2']]);
  });

  it('reads again after a failed read of the whole table', async () => {
    const { db } = t.current;
    await seed(db);
    let fail = true;
    const failing: Queryable = {
      query: (sql, params) =>
        fail && sql.includes('FROM train_reference_models')
          ? Promise.reject(new Error('connection lost'))
          : db.query(sql, params),
      copyFrom: (...args) => db.copyFrom(...args),
    };
    const cache = new ReferenceModelCache(failing);
    const version = (await stationBoardVersions(db)).referenceModels;
    await expect(cache.models(['G1'], version)).rejects.toThrow('connection lost');
    fail = false;
    expect([...(await cache.models(['G1'], version)).keys()]).toEqual(['G1']);
  });
});
