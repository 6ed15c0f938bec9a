import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { Db } from './db.js';
import { createPostgresDb } from './postgres-db.js';
import { createPgliteDb } from './pglite-db.js';

/** Postgres at DATABASE_URL, or the embedded PGlite database under DATA_DIR when it is unset. */
export async function openDb(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'PG_POOL_MAX'> &
    Partial<Pick<Config, 'PG_CONNECT_TIMEOUT_MS'>>,
  logger?: Logger,
): Promise<Db> {
  if (config.DATABASE_URL) {
    return createPostgresDb({
      connectionString: config.DATABASE_URL,
      max: config.PG_POOL_MAX,
      ...(config.PG_CONNECT_TIMEOUT_MS !== undefined && {
        connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      }),
      ...(logger && { logger }),
    });
  }
  return createPgliteDb({ dataDir: path.resolve(config.DATA_DIR, 'pglite') });
}
