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
