import { PGlite, types as pgliteTypes, type Transaction } from '@electric-sql/pglite';
import { mkdir } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { copyColumnsSql, type Db, type Queryable, type QueryResult } from './db.js';
import { EmutrackError } from '../errors/emutrack-error.js';

const parsers = { [pgliteTypes.INT8]: (v: string) => Number(v) };

async function collect(data: string | AsyncIterable<string | Buffer>): Promise<Blob> {
  if (typeof data === 'string') return new Blob([data]);
  const parts: Buffer[] = [];
  for await (const chunk of data)
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return new Blob(parts);
}

type Runner = Pick<Transaction, 'query' | 'exec'>;

function runnerQueryable(runner: Runner): Queryable {
  return {
    async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      // The extended protocol takes one statement; parameterless scripts (migrations) go through exec.
      if (params === undefined || params.length === 0) {
        const results = await runner.exec(sql, { parsers });
        const last = results[results.length - 1];
        return {
          rows: (last?.rows ?? []) as R[],
          rowCount: last?.affectedRows ?? last?.rows.length ?? 0,
        };
      }
      const r = await runner.query<R>(sql, params, { parsers });
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    async copyFrom(table, columns, data) {
      // COPY FROM STDIN is not available in PGlite; its in-process API reads from a blob instead.
      await runner.query(`COPY ${copyColumnsSql(table, columns)} FROM '/dev/blob'`, [], {
        blob: await collect(data),
      });
    },
  };
}

export interface PgliteDbOptions {
  /** Directory for the database files; undefined = in memory. */
  dataDir?: string;
}

/** A second process opening the same PGlite directory would corrupt it; it gets this instead. */
export class EmbeddedDatabaseBusyError extends EmutrackError {
  constructor(dataDir: string) {
    super(
      'embedded_database_busy',
      `the embedded database at ${dataDir} is in use by another emutrack process (API, worker or CLI); ` +
        'stop it (on the embedded database `npm start` serves the documentation site too), ' +
        'or set DATABASE_URL to share a Postgres server',
    );
  }
}

/** The embedded default: real Postgres compiled to WASM, in this process, one session. */
export async function createPgliteDb(options: PgliteDbOptions = {}): Promise<Db> {
  let release: (() => Promise<void>) | undefined;
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true });
    try {
      // A lock whose holder died goes stale after 10 s and is taken over.
      release = await lockfile.lock(options.dataDir, {
        stale: 10_000,
        lockfilePath: `${options.dataDir}.lock`,
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'ELOCKED')
        throw new EmbeddedDatabaseBusyError(options.dataDir);
      throw err;
    }
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ dataDir: options.dataDir, parsers });
  } catch (err) {
    await release?.();
    throw err;
  }
  const base = runnerQueryable(pglite);
  return {
    kind: 'pglite',
    query: base.query,
    copyFrom: base.copyFrom,
    transaction: (fn) => pglite.transaction((tx) => fn(runnerQueryable(tx))),
    async *copyTo(sql) {
      const r = await pglite.query(`COPY (${sql}) TO '/dev/blob'`);
      if (r.blob) yield Buffer.from(await r.blob.arrayBuffer());
    },
    session: (fn) => fn(base),
    async close() {
      await pglite.close();
      await release?.();
    },
  };
}
