import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrationsDir, migrate } from '../../src/shared/db/migrate.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { ADMIN_DATABASE_URL, databaseUrl } from './test-env.js';

/** The template's name changes whenever a migration does, so a stale template is never used. */
export function templateName(): string {
  const dir = migrationsDir();
  const hash = createHash('sha256');
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(path.join(dir, f)));
  return `emutrack_tpl_${hash.digest('hex').slice(0, 12)}`;
}

const TEMPLATE_LOCK = 0x74706c;

/**
 * The machine's real time, also when the suite runs with its clock moved
 * (test/helpers/moved-clock.mjs): test databases are named and aged by it, so a run with a moved
 * clock neither drops another run's databases as stale nor leaves its own looking new.
 */
const realNow: () => number =
  (globalThis as { __emutrackRealNow?: () => number }).__emutrackRealNow ?? Date.now;

/** Creates the migrated template database once (concurrent runs wait on an advisory lock). */
export async function ensureTemplate(): Promise<string> {
  const name = templateName();
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${name}`);
      const db = createPostgresDb({ connectionString: databaseUrl(name), max: 1 });
      try {
        await migrate(db);
      } catch (err) {
        await db.close();
        await admin.query(`DROP DATABASE ${name}`);
        throw err;
      }
      await db.close();
    }
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  } finally {
    await admin.end();
  }
  return name;
}

/** Drops test databases left by runs more than two hours old (kept after failures, or killed). */
export async function dropStaleTestDatabases(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    const r = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'emutrack\\_t\\_%'",
    );
    const cutoff = Math.floor(realNow() / 1000) - 2 * 3600;
    for (const { datname } of r.rows) {
      const ts = Number(datname.split('_')[2]);
      if (Number.isFinite(ts) && ts < cutoff)
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/** Identifies one vitest run: every test database it creates carries it in its name. */
export function newTestRunId(): string {
  return randomBytes(4).toString('hex');
}

/**
 * A test database's name: `emutrack_t_<unix seconds>_<run id>_<random>`. The seconds let a later
 * run drop what a killed run left; the run id lets this run's teardown drop all it made.
 */
export function testDatabaseName(runId = process.env.EMUTRACK_TEST_RUN ?? 'norun000'): string {
  if (!/^[0-9a-z]{1,16}$/.test(runId)) throw new Error(`bad test run id: ${runId}`);
  return `emutrack_t_${Math.floor(realNow() / 1000)}_${runId}_${randomBytes(4).toString('hex')}`;
}

/** Drops every database of one run (its teardown: whatever the files' own cleanup missed). */
export async function dropRunDatabases(runId: string): Promise<string[]> {
  if (!/^[0-9a-z]{1,16}$/.test(runId)) throw new Error(`bad test run id: ${runId}`);
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    const r = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'emutrack\\_t\\_%\\_' || $1 || '\\_%'",
      [runId],
    );
    for (const { datname } of r.rows)
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return r.rows.map((row) => row.datname);
  } finally {
    await admin.end();
  }
}
