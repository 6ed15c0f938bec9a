import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/shared/db/migrate.js';
import { testDatabaseName } from '../helpers/template-db.js';
import { ADMIN_DATABASE_URL, databaseUrl } from '../helpers/test-env.js';

/**
 * Migration 028 moves the five counters it replaces into data_versions: a database migrated up
 * to the one before, with counters that have moved, keeps every version (never goes back: a
 * kept page or a client's ETag of the old number would be served again).
 */
async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function migrateUp(url: string, dir: string): Promise<void> {
  await runner({
    databaseUrl: url,
    dir,
    migrationsTable: 'pgmigrations',
    direction: 'up',
    singleTransaction: true,
    checkOrder: true,
    log: () => {},
  });
}

describe('migration 028', () => {
  it('moves the counters of migrations 004, 011, 014, 016 and 022 into data_versions', async () => {
    const name = testDatabaseName();
    const url = databaseUrl(name);
    const before = await mkdtemp(path.join(os.tmpdir(), 'emutrack-before-028-'));
    await admin(`CREATE DATABASE ${name}`);
    try {
      for (const file of await readdir(migrationsDir())) {
        if (file < '028') await symlink(path.join(migrationsDir(), file), path.join(before, file));
      }
      await migrateUp(url, before);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`
          INSERT INTO daily_record_builds (service_day, version, inputs) VALUES (100, 7, 'a'), (101, 0, 'b');
          UPDATE page_versions SET version = 3 WHERE name = 'exports';
          UPDATE page_versions SET version = 4 WHERE name = 'emus';
          UPDATE timetable_changes SET version = 5;
          UPDATE reference_model_changes SET version = 6;
          UPDATE site_content_version SET base = 10;
          INSERT INTO site_content_changes (xid) VALUES (1), (2);`);
        await migrateUp(url, migrationsDir());
        const r = await c.query<{ name: string; key: string; version: string }>(
          'SELECT name, key, version FROM data_versions ORDER BY name, key',
        );
        expect(r.rows.map((row) => `${row.name}:${row.key}=${row.version}`)).toEqual([
          'emus:0=4',
          'exports:0=3',
          'records:100=7',
          'reference_models:0=6',
          'site_content:0=12',
          'timetables:0=5',
        ]);
        // The day's next changing build moves on from there.
        await c.query(
          `UPDATE daily_record_builds SET version = version + 1 WHERE service_day = 100`,
        );
        const day = await c.query<{ version: string }>(
          `SELECT version FROM data_versions WHERE name = 'records' AND key = 100`,
        );
        expect(day.rows[0]!.version).toBe('8');
      } finally {
        await c.end();
      }
    } finally {
      await rm(before, { recursive: true, force: true });
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
