import { describe, expect, it } from 'vitest';
import { resolveEmuIds } from '../../src/domain/emus/emu-registry.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * resolveEmuIds registers unknown units with plain INSERTs (no ON CONFLICT) in a savepoint, and
 * falls back to INSERT ... ON CONFLICT DO NOTHING when a row it inserts exists after all: these
 * are the cases where the plain insert meets a row it did not expect.
 */
const t = useTestDatabase();

async function aliasesOf(id: number): Promise<string[]> {
  const r = await t.current.db.query<{ alias: string }>(
    'SELECT alias FROM emu_aliases WHERE emu_id = $1 ORDER BY alias',
    [id],
  );
  return r.rows.map((x) => x.alias);
}

describe('resolveEmuIds: registering units', () => {
  it('registers new units with their written and canonical forms as aliases', async () => {
    const ids = await t.current.db.transaction((tx) =>
      resolveEmuIds(tx, ['CRH380A-2651', 'CRH380BL3501']),
    );
    expect(await aliasesOf(ids.get('CRH380A-2651')!)).toEqual(['CRH380A-2651']);
    expect(await aliasesOf(ids.get('CRH380BL3501')!)).toEqual(['CRH380BL-3501', 'CRH380BL3501']);
  });

  it('a unit in the register without an alias: the conflict falls back, the transaction goes on', async () => {
    const existing = await t.current.db.query<{ id: number }>(
      `INSERT INTO emus (code, model, registered_by) VALUES ('CR400BF-5033', 'CR400BF', 'fleet')
       RETURNING id`,
    );
    const id = existing.rows[0]!.id;
    const { ids, after } = await t.current.db.transaction(async (tx) => {
      const ids = await resolveEmuIds(tx, ['CR400BF-5033', 'CR400BF-5034']);
      // The savepoint's failure is behind it: the transaction still takes statements.
      const after = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM emus');
      return { ids, after: after.rows[0]!.n };
    });
    expect(ids.get('CR400BF-5033')).toBe(id);
    expect(ids.get('CR400BF-5034')).not.toBe(id);
    expect(await aliasesOf(id)).toEqual(['CR400BF-5033']);
    expect(after).toBeGreaterThanOrEqual(2);
  });

  it('two writers registering the same new unit at once get the same id, neither fails', async () => {
    const a = createPostgresDb({ connectionString: t.current.url, max: 2 });
    const b = createPostgresDb({ connectionString: t.current.url, max: 2 });
    try {
      let registered!: () => void;
      const aRegistered = new Promise<void>((resolve) => (registered = resolve));
      let commit!: () => void;
      const aMayCommit = new Promise<void>((resolve) => (commit = resolve));
      const first = a.transaction(async (tx) => {
        const ids = await resolveEmuIds(tx, ['CR400AF-2299']);
        registered();
        await aMayCommit;
        return ids;
      });
      await aRegistered;
      // B looks the unit up (A's row is not committed: not found), then its plain INSERT waits
      // on A's row and fails with a unique violation once A commits.
      const second = b.transaction((tx) => resolveEmuIds(tx, ['CR400AF-2299']));
      // A commits once B waits on its row, so B's plain INSERT is the one that meets it.
      for (let blocked = 0; blocked === 0;) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const r = await t.current.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        blocked = r.rows[0]!.n;
      }
      commit();
      const [ida, idb] = await Promise.all([first, second]);
      expect(idb.get('CR400AF-2299')).toBe(ida.get('CR400AF-2299'));
      const n = await t.current.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM emus WHERE code = 'CR400AF-2299'`,
      );
      expect(n.rows[0]!.n).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('given the database, registers in a transaction of its own and fills the cache', async () => {
    const cache = new Map<string, number>();
    const ids = await resolveEmuIds(t.current.db, ['CRH2A-2010'], cache);
    expect(cache.get('CRH2A-2010')).toBe(ids.get('CRH2A-2010'));
    expect(await aliasesOf(ids.get('CRH2A-2010')!)).toEqual(['CRH2A-2010']);
  });
});
