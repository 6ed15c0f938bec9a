import { loadConfig, type Config } from '../config/config.js';
import type { Db } from '../db/db.js';
import { migrate } from '../db/migrate.js';
import { openDb } from '../db/open-db.js';
import { createLogger, type Logger } from '../log/logger.js';

/** What every process (CLI, worker, API) and every job processor gets: nothing HTTP or BullMQ. */
export interface AppContext {
  config: Config;
  db: Db;
  logger: Logger;
}

export interface OpenAppContextOptions {
  config?: Config;
  logger?: Logger;
  /** Apply pending migrations before returning. Default true. */
  migrate?: boolean;
}

/** Opens the database named by the configuration (Postgres or the embedded PGlite) and migrates it. */
export async function openAppContext(options: OpenAppContextOptions = {}): Promise<AppContext> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const db = await openDb(config, logger);
  try {
    if (options.migrate ?? true) {
      const applied = await migrate(db, { log: (m) => logger.debug(m) });
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
  } catch (err) {
    await db.close();
    throw err;
  }
  return { config, db, logger };
}
