import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/shared/db/migrate.js';
import { createPostgresDb } from '../src/shared/db/postgres-db.js';
import type { BenchDatabase } from './bench-types.js';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, migrated database on the server at adminUrl; drop() removes it. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `emutrack_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const db = createPostgresDb({ connectionString: url, max: 4 });
  await migrate(db);
  return {
    url,
    db,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
