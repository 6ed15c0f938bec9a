import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Db } from '../../src/shared/db/db.js';
import { createPostgresDb } from '../../src/shared/db/postgres-db.js';
import { createLogger } from '../../src/shared/log/logger.js';
import { ensureTemplate, testDatabaseName } from './template-db.js';
import { ADMIN_DATABASE_URL, databaseUrl } from './test-env.js';

export interface TestDatabase {
  name: string;
  url: string;
  db: Db;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, migrated database copied from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env.EMUTRACK_TEST_TEMPLATE ?? (await ensureTemplate());
  const name = testDatabaseName();
  // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
      break;
    } catch (err) {
      if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100 + attempt * 50));
    }
  }
  const url = databaseUrl(name);
  // The file's teardown ends this pool's sessions with DROP ... WITH (FORCE) when it is slow to
  // close (a loaded machine): that is the harness's doing, not a fault to warn about.
  const logger = createLogger('error');
  return { name, url, db: createPostgresDb({ connectionString: url, max: 5, logger }) };
}

/** How long a pool may take to end before the drop goes ahead and ends its sessions itself. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Drops the database whatever state its pool is in: a client a failed test left checked out
 * would keep pool.end() waiting past the hook's timeout, and the database would stay behind.
 * DROP ... WITH (FORCE) ends any session still open.
 */
export async function dropTestDatabase(t: TestDatabase): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
  try {
    await Promise.race([t.db.close().catch(() => undefined), grace]);
  } finally {
    clearTimeout(timer);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${t.name} WITH (FORCE)`));
  }
}

/**
 * One database for the whole test file, always dropped afterwards. With EMUTRACK_KEEP_TEST_DBS=1
 * a file with a failed test keeps it (its name printed) for inspection; the run's teardown then
 * keeps it too, and a run two hours later drops it.
 */
export function useTestDatabase(): { readonly current: TestDatabase } {
  let current: TestDatabase | undefined;
  let failed = false;
  beforeAll(async () => {
    current = await createTestDatabase();
  });
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });
  afterAll(async () => {
    if (!current) return;
    if (failed && process.env.EMUTRACK_KEEP_TEST_DBS === '1') {
      await current.db.close();
      console.error(`test database kept for inspection: ${current.url}`);
    } else {
      await dropTestDatabase(current);
    }
  });
  return {
    get current() {
      if (!current) throw new Error('test database not ready (use inside tests or hooks)');
      return current;
    },
  };
}
