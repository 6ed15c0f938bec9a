/**
 * The one database handle that domain code sees. Two implementations: node-postgres (a server)
 * and PGlite (the embedded default). Domain code uses only `query`, `transaction` and
 * `copyFrom`, so the same SQL runs on both.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
  /**
   * Bulk-loads rows in Postgres COPY text format (see `copyTextRow`) into `table (columns)`.
   * The data is a whole buffer or an async stream of chunks.
   */
  copyFrom(
    table: string,
    columns: readonly string[],
    data: string | AsyncIterable<string | Buffer>,
  ): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction on one connection; commits when fn resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Streams a query's rows as COPY ... TO STDOUT text chunks (used by exports and benchmarks). */
  copyTo(sql: string): AsyncIterable<Buffer>;
  /** Runs fn on one dedicated connection without opening a transaction (migrations use it). */
  session<T>(fn: (session: Queryable) => Promise<T>): Promise<T>;
  /**
   * A connection of its own that LISTENs on `channels` (Postgres only: absent on the embedded
   * PGlite, whose one connection serves everything). Notifications arrive in the order their
   * transactions committed, a session's own included.
   */
  listen?(options: ListenOptions): Promise<DbListener>;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Channel names (lower-case identifiers: they are LISTENed unquoted). */
  channels: readonly string[];
  onNotification(channel: string, payload: string): void;
  /** The connection ended or failed; not called after close(). Open a new listener to go on. */
  onLost(err: Error): void;
}

/** A LISTENing connection (Db.listen). */
export interface DbListener {
  /** Runs a statement on the listening connection. */
  query(sql: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** A timestamp column's value as a Date, whether the driver gave a Date or the timestamp's text. */
export const toDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

/** Escapes one value for the COPY text format: \N for null, backslash escapes for the rest. */
export function copyTextValue(
  value: string | number | bigint | boolean | null | undefined,
): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  // Fast path: most values (codes, numbers) need no escaping.
  if (!/[\\\t\n\r]/.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

/** One COPY text-format row, newline included. */
export function copyTextRow(
  values: readonly (string | number | bigint | boolean | null | undefined)[],
): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t';
    line += copyTextValue(values[i]);
  }
  return line + '\n';
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function copyColumnsSql(table: string, columns: readonly string[]): string {
  const tableSql = table.split('.').map(quoteIdent).join('.');
  return `${tableSql} (${columns.map(quoteIdent).join(', ')})`;
}
