import { runner } from 'node-pg-migrate';
import path from 'node:path';
import { packageRoot } from '../app/package-root.js';
import type { Db } from './db.js';

/** migrations/ at the package root. */
export function migrationsDir(): string {
  return path.join(packageRoot(), 'migrations');
}

export interface MigrateOptions {
  /** Log lines of node-pg-migrate; default: silent. */
  log?: (msg: string) => void;
}

/**
 * Applies every pending migration in one transaction. Concurrent starters queue on
 * node-pg-migrate's advisory lock (mode "wait") instead of failing, so two processes starting at
 * once is safe: the second finds nothing left to do.
 */
export async function migrate(db: Db, options: MigrateOptions = {}): Promise<string[]> {
  const log = options.log ?? (() => {});
  return db.session(async (session) => {
    const dbClient = {
      query: (textOrConfig: string | { text: string; values?: unknown[] }, values?: unknown[]) =>
        typeof textOrConfig === 'string'
          ? session.query(textOrConfig, values)
          : session.query(textOrConfig.text, textOrConfig.values ?? values),
    };
    const applied = await runner({
      // node-pg-migrate only calls query() on an external client.
      dbClient: dbClient as never,
      dir: migrationsDir(),
      migrationsTable: 'pgmigrations',
      direction: 'up',
      singleTransaction: true,
      advisoryLockMode: 'wait',
      checkOrder: true,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    return applied.map((m) => m.name);
  });
}
