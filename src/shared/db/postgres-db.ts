import pg from 'pg';
import { from as copyFromStream, to as copyToStream } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createLogger, type Logger } from '../log/logger.js';
import {
  copyColumnsSql,
  type Db,
  type DbListener,
  type ListenOptions,
  type Queryable,
  type QueryResult,
} from './db.js';
import { isConnectionLoss, ReachabilityGate } from './reachability-gate.js';

// int8 (ids, Unix seconds) as JS numbers: every value we keep is far below 2^53.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresDbOptions {
  connectionString: string;
  /** Pool size. Default 10. */
  max?: number;
  /** Name given to the connections in pg_stat_activity. Default "emutrack". */
  applicationName?: string;
  /**
   * A connection not made, or no pooled connection free, within this many ms fails the query
   * (the API answers `unavailable`) instead of waiting for ever. Default 3 000.
   */
  connectTimeoutMs?: number;
  /** Where lost idle connections and failed rollbacks are reported. Default a logger on stderr. */
  logger?: Pick<Logger, 'warn'>;
  /**
   * Once the database is found unreachable, queries fail at once (DatabaseUnreachableError)
   * but for one probe every this many ms (see ReachabilityGate). Default 1 000.
   */
  reconnectProbeMs?: number;
}

interface CheckedOut {
  client: pg.PoolClient;
  /** Tells what failed a query: after a lost connection the client is destroyed, not pooled. */
  failed(err: unknown): void;
  release(): void;
}
type Checkout = () => Promise<CheckedOut>;

function clientQueryable(client: pg.PoolClient | pg.Pool, checkout?: Checkout): Queryable {
  return {
    async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      if (client instanceof pg.Pool) {
        // Through checkout (as pool.query would connect, query and release), so that the
        // reachability gate sees every connection attempt.
        const c = await checkout!();
        try {
          const r = await c.client.query(sql, params as unknown[] | undefined);
          return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
        } catch (err) {
          c.failed(err);
          throw err;
        } finally {
          c.release();
        }
      }
      const r = await client.query(sql, params as unknown[] | undefined);
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async copyFrom(table, columns, data) {
      const run = async (c: pg.PoolClient) => {
        const sink = c.query(copyFromStream(`COPY ${copyColumnsSql(table, columns)} FROM STDIN`));
        const source = typeof data === 'string' ? Readable.from([data]) : Readable.from(data);
        await pipeline(source, sink);
      };
      if (client instanceof pg.Pool) {
        const c = await checkout!();
        try {
          await run(c.client);
        } finally {
          c.release();
        }
      } else {
        await run(client);
      }
    },
  };
}

export function createPostgresDb(options: PostgresDbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'emutrack',
    types,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3_000,
  });
  const logger = options.logger ?? createLogger();
  const gate = new ReachabilityGate({ retryMs: options.reconnectProbeMs ?? 1_000 });
  // An idle client losing its server must not crash the process (an 'error' event without a
  // listener would); the pool drops that client and the next query connects afresh.
  pool.on('error', (err) => {
    logger.warn(
      { err: err.message, code: (err as { code?: string }).code },
      'postgres: idle connection lost',
    );
  });
  /**
   * A client of its own for a transaction, a session or a COPY. pg-pool listens for a client's
   * errors only while it is idle in the pool: one checked out here that loses its server between
   * two queries would emit 'error' with no listener and crash the process. So it gets a listener
   * until released, and a client that lost its connection is destroyed, not pooled again.
   */
  const checkout = async (): Promise<CheckedOut> => {
    const client = await gate.connect(() => pool.connect());
    let lost: Error | undefined;
    const onError = (err: Error) => {
      lost = err;
      logger.warn({ err: err.message }, 'postgres: connection lost while in use');
    };
    client.on('error', onError);
    return {
      client,
      // A lost connection is not yet a lost database (a backend can be ended alone): the next
      // connection attempt, through the gate, tells.
      failed: (err) => {
        if (isConnectionLoss(err)) lost ??= err as Error;
      },
      release: () => {
        client.removeListener('error', onError);
        client.release(lost);
      },
    };
  };
  const base = clientQueryable(pool, checkout);
  return {
    kind: 'postgres',
    query: base.query,
    copyFrom: base.copyFrom,
    async transaction(fn) {
      const { client, failed, release } = await checkout();
      try {
        await client.query('BEGIN');
        const result = await fn(clientQueryable(client, checkout));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        failed(err);
        // The error that failed the transaction is the one to throw; a rollback failing too
        // (the connection is gone, and the server rolls back on its own) is only logged.
        await client
          .query('ROLLBACK')
          .catch((rollbackErr: Error) =>
            logger.warn({ err: rollbackErr.message }, 'postgres: rollback failed'),
          );
        throw err;
      } finally {
        release();
      }
    },
    async *copyTo(sql) {
      const { client, release } = await checkout();
      try {
        const stream = client.query(copyToStream(`COPY (${sql}) TO STDOUT`));
        for await (const chunk of stream) yield chunk as Buffer;
      } finally {
        release();
      }
    },
    async session(fn) {
      const { client, release } = await checkout();
      try {
        return await fn(clientQueryable(client, checkout));
      } finally {
        release();
      }
    },
    listen: (listenOptions) => openListener(options, listenOptions),
    async close() {
      await pool.end();
    },
  };
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A client outside the pool that LISTENs: notifications are delivered only to the session that
 * listens, so it must stay connected and is never shared. Its own heartbeats and other short
 * statements go through `query`; it commits them asynchronously (synchronous_commit off), since
 * nothing it writes needs to survive a crash.
 */
async function openListener(
  options: PostgresDbOptions,
  listen: ListenOptions,
): Promise<DbListener> {
  for (const channel of listen.channels) {
    if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${JSON.stringify(channel)}`);
  }
  const client = new pg.Client({
    connectionString: options.connectionString,
    application_name: `${options.applicationName ?? 'emutrack'}-listen`,
    types,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3_000,
  });
  let closed = false;
  let lost = false;
  const lose = (err: Error) => {
    if (closed || lost) return;
    lost = true;
    listen.onLost(err);
  };
  client.on('notification', (m) => listen.onNotification(m.channel, m.payload ?? ''));
  client.on('error', lose);
  client.on('end', () => lose(new Error('the listening connection ended')));
  try {
    await client.connect();
    await client.query(
      `SET synchronous_commit = off; ${listen.channels.map((c) => `LISTEN ${c};`).join(' ')}`,
    );
  } catch (err) {
    closed = true;
    await client.end().catch(() => undefined);
    throw err;
  }
  return {
    async query(sql, params) {
      await client.query(sql, params);
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.end().catch(() => undefined);
    },
  };
}
