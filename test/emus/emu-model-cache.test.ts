import { describe, expect, it } from 'vitest';
import { EmuModelCache } from '../../src/domain/emus/emu-model-cache.js';
import { readDataVersions } from '../../src/shared/cache/data-versions.js';
import type { Queryable } from '../../src/shared/db/db.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

/** The unit register's version as a page's part of it reads (`emus:0@N`). */
async function version(db: Queryable): Promise<string> {
  const v = (await readDataVersions(db, ['emus:0'])).get('emus:0') ?? 0;
  return `emus:0@${v}`;
}

describe('EmuModelCache', () => {
  it('reads each unit once per version of the register; a model filled in is a new version', async () => {
    const { db } = t.current;
    const ids = (
      await db.query<{ id: number }>(
        `INSERT INTO emus (code, model, registered_by)
         VALUES ('CR400AF-2001', 'CR400AF', 'fleet'), ('CRH380A-2541', '', 'observation')
         RETURNING id`,
      )
    ).rows.map((r) => r.id);
    const asked: number[][] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        if (sql.includes('FROM emus')) asked.push([...(params![0] as number[])]);
        return db.query(sql, params);
      },
      copyFrom: (...args) => db.copyFrom(...args),
    };
    const cache = new EmuModelCache(counted);
    const v = await version(db);
    const [a, b] = ids as [number, number];
    expect(await cache.models([a, b, 999_999], v)).toEqual(
      new Map([
        [a, { code: 'CR400AF-2001', model: 'CR400AF' }],
        [b, { code: 'CRH380A-2541', model: '' }],
      ]),
    );
    expect(await cache.models([b, a, b], v)).toEqual(
      new Map([
        [b, { code: 'CRH380A-2541', model: '' }],
        [a, { code: 'CR400AF-2001', model: 'CR400AF' }],
      ]),
    );
    // The unknown id is asked for again (it may be registered any moment); the known ones not.
    expect(asked).toEqual([[a, b, 999_999]]);

    await db.query(`UPDATE emus SET model = 'CRH380A' WHERE id = $1`, [b]);
    const moved = await version(db);
    expect(moved).not.toBe(v);
    expect((await cache.models([b], moved)).get(b)).toEqual({
      code: 'CRH380A-2541',
      model: 'CRH380A',
    });
    expect(asked).toEqual([[a, b, 999_999], [b]]);
  });
});
