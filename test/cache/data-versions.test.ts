import { describe, expect, it } from 'vitest';
import { DataVersionReader, readDataVersion } from '../../src/shared/cache/data-versions.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * data_versions and its one trigger function (migration 028): one committed transaction is one
 * new version of what it wrote, whatever it wrote it with; nothing rolled back moves one; and
 * writers of different rows do not wait on each other for the version row before they commit.
 */
const t = useTestDatabase();
const siteContent = () => readDataVersion(t.current.db, { name: 'site_content' });

async function addUser(q: { query: typeof t.current.db.query }, name: string): Promise<void> {
  await q.query(`INSERT INTO users (username, password_hash) VALUES ($1, 'not-a-hash')`, [name]);
}

describe('data versions', () => {
  it('move once per committed transaction, however many rows and statements it wrote', async () => {
    const before = await siteContent();
    await t.current.db.transaction(async (tx) => {
      for (let i = 0; i < 5; i++) await addUser(tx, `many-${i}`);
      await tx.query(`UPDATE users SET password_hash = 'other' WHERE username LIKE 'many-%'`);
    });
    expect(await siteContent()).toBe(before + 1);
    await addUser(t.current.db, 'one-more');
    expect(await siteContent()).toBe(before + 2);
  });

  it('do not move for a rolled-back transaction or savepoint', async () => {
    const before = await siteContent();
    await expect(
      t.current.db.transaction(async (tx) => {
        await addUser(tx, 'rolled-back');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await siteContent()).toBe(before);
    await t.current.db.transaction(async (tx) => {
      await tx.query('SAVEPOINT s');
      await addUser(tx, 'in-savepoint');
      await tx.query('ROLLBACK TO SAVEPOINT s');
    });
    expect(await siteContent()).toBe(before);
    // A write after a rolled-back one in the same transaction still moves it.
    await t.current.db.transaction(async (tx) => {
      await tx.query('SAVEPOINT s');
      await addUser(tx, 'in-savepoint-2');
      await tx.query('ROLLBACK TO SAVEPOINT s');
      await addUser(tx, 'after-savepoint');
    });
    expect(await siteContent()).toBe(before + 1);
  });

  it('run the bump once per transaction, not once per row: the first row queues it, the rest queue nothing', async () => {
    const emus = () => readDataVersion(t.current.db, { name: 'emus' });
    const before = await emus();
    const calls = await t.current.db.transaction(async (tx) => {
      // Postgres counts PL/pgSQL calls of this transaction when asked to (superuser setting).
      await tx.query(`SET LOCAL track_functions = 'pl'`);
      await tx.query(
        `INSERT INTO emus (code, model, train_set_no, registered_by)
         SELECT 'CRH380A-' || (6000 + g), 'CRH380A', (6000 + g)::text, 'observation'
           FROM generate_series(1, 300) g`,
      );
      await tx.query(
        `INSERT INTO emu_aliases (alias, emu_id)
         SELECT replace(code, '-', ''), id FROM emus WHERE code LIKE 'CRH380A-6%'`,
      );
      // The deferred events run now, in this transaction, where its call counts can be read.
      await tx.query('SET CONSTRAINTS ALL IMMEDIATE');
      const r = await tx.query<{ calls: string }>(
        `SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_xact_user_functions
          WHERE funcname = 'bump_data_version'`,
      );
      return Number(r.rows[0]!.calls);
    });
    expect(calls).toBe(1);
    expect(await emus()).toBe(before + 1);
    // A savepoint rolled back takes its queued bump with it; the next write queues it again.
    await t.current.db.transaction(async (tx) => {
      await tx.query('SAVEPOINT s');
      await tx.query(
        `INSERT INTO emus (code, model, registered_by) VALUES ('CRH380A-6901', 'CRH380A', 'fleet')`,
      );
      await tx.query('ROLLBACK TO SAVEPOINT s');
      await tx.query(
        `INSERT INTO emu_aliases (alias, emu_id) SELECT 'CRH380A6001-X', id FROM emus WHERE code = 'CRH380A-6001'`,
      );
    });
    expect(await emus()).toBe(before + 2);
  });

  it('every unkeyed version trigger asks to be queued once per transaction', async () => {
    // A trigger added later without the guard would cost a deferred event per row again.
    const r = await t.current.db.query<{ tgname: string; relname: string }>(
      `SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgfoid = 'bump_data_version'::regproc AND t.tgconstraint <> 0
          AND t.tgnargs = 1 AND c.relname <> 'daily_record_builds'
          AND pg_get_triggerdef(t.oid) NOT LIKE '%data_version_unqueued%'`,
    );
    expect(r.rows).toEqual([]);
    const guarded = await t.current.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_trigger WHERE tgfoid = 'bump_data_version'::regproc
          AND pg_get_triggerdef(oid) LIKE '%data_version_unqueued%'`,
    );
    expect(guarded.rows[0]!.n).toBeGreaterThanOrEqual(17);
  });

  it('let writers of different rows work side by side until they commit (no lock on the version row before)', async () => {
    const other = createPostgresDb({ connectionString: t.current.url, max: 2 });
    try {
      const before = await siteContent();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const first = t.current.db.transaction(async (tx) => {
        await addUser(tx, 'side-a');
        wrote();
        await released; // still open while the other writes and commits
      });
      await written;
      await other.transaction(async (tx) => {
        // Waiting on the first writer would fail here (instead of hanging the test).
        await tx.query(`SET LOCAL lock_timeout = '5s'`);
        await addUser(tx, 'side-b');
      });
      expect(await siteContent()).toBe(before + 1);
      release();
      await first;
      expect(await siteContent()).toBe(before + 2);
    } finally {
      await other.close();
    }
  });

  it('read: a commit through another pool is seen by the next read begun after it', async () => {
    const other = createPostgresDb({ connectionString: t.current.url, max: 2 });
    try {
      const reader = new DataVersionReader(other);
      const before = await reader.read({ name: 'site_content' });
      await addUser(t.current.db, 'through-the-first-pool');
      expect(await reader.read({ name: 'site_content' })).toBe(before + 1);
      // A thing never changed is at 0.
      expect(await reader.read({ name: 'records', key: 1 })).toBe(0);
    } finally {
      await other.close();
    }
  });
});
