import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { testDatabaseName } from '../helpers/template-db.js';
import { ADMIN_DATABASE_URL, databaseUrl } from '../helpers/test-env.js';

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  it('are safe when several processes start at once on an empty database', async () => {
    const name = testDatabaseName();
    await admin(`CREATE DATABASE ${name}`);
    const dbs = [0, 1, 2].map(() =>
      createPostgresDb({ connectionString: databaseUrl(name), max: 2 }),
    );
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      // Exactly one starter applied the migrations; the others waited on the lock and found none left.
      expect(applied.map((a) => a.length).sort()).toEqual([0, 0, applied.flat().length]);
      expect(applied.flat()).toContain('001_foundation');
      const r = await dbs[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM pgmigrations');
      expect(r.rows[0]!.n).toBe(applied.flat().length);
      expect(await migrate(dbs[0]!)).toEqual([]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
