import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dropRunDatabases, newTestRunId, testDatabaseName } from './template-db.js';
import { createTestDatabase, dropTestDatabase } from './test-db.js';
import { ADMIN_DATABASE_URL } from './test-env.js';

async function exists(name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

describe('test databases are always dropped', () => {
  it('even when a failed test left a connection busy (pool.end() would wait for ever)', async () => {
    const t = await createTestDatabase();
    // A session that never finishes: what a test that failed mid-query leaves checked out.
    void t.db.session(() => new Promise<never>(() => {})).catch(() => undefined);
    await t.db.query('SELECT 1');
    await dropTestDatabase(t);
    expect(await exists(t.name)).toBe(false);
  }, 20_000);

  it("carry the run's id, and the run's teardown drops what the files left (no other run's)", async () => {
    const mine = newTestRunId();
    const other = newTestRunId();
    const names = [testDatabaseName(mine), testDatabaseName(mine), testDatabaseName(other)];
    const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await c.connect();
    try {
      for (const name of names) await c.query(`CREATE DATABASE ${name}`);
      expect((await dropRunDatabases(mine)).sort()).toEqual(names.slice(0, 2).sort());
      expect(await Promise.all(names.map(exists))).toEqual([false, false, true]);
    } finally {
      await c.query(`DROP DATABASE IF EXISTS ${names[2]}`);
      await c.end();
    }
  });

  it('names every database with this run', () => {
    expect(testDatabaseName()).toMatch(
      new RegExp(`^emutrack_t_\\d+_${process.env.EMUTRACK_TEST_RUN}_[0-9a-f]{8}$`),
    );
  });
});
