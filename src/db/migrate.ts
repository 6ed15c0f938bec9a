import { runner } from 'node-pg-migrate';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

/** migrations/ at the package root, whether running from src/ (tests) or dist/src/ (built). */
export function migrationsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const parent = path.dirname(dir);
    if (path.basename(dir) === 'src') {
      const root = path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
      return path.join(root, 'migrations');
    }
    if (parent === dir) throw new Error('cannot locate migrations/ directory');
    dir = parent;
  }
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
      log,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    return applied.map((m) => m.name);
  });
}
