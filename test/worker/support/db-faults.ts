import type { Db, Queryable } from '../../../src/shared/db/db.js';

/** A Db whose first `failures` transactions throw before doing anything (a flaky database). */
export function failingTransactions(db: Db, failures: number): Db & { attempts: number } {
  let attempts = 0;
  return {
    ...db,
    get attempts() {
      return attempts;
    },
    query: db.query.bind(db),
    copyFrom: db.copyFrom.bind(db),
    copyTo: db.copyTo.bind(db),
    session: db.session.bind(db),
    close: db.close.bind(db),
    kind: db.kind,
    async transaction(fn) {
      attempts++;
      if (attempts <= failures) throw new Error(`injected failure ${attempts}`);
      return db.transaction(fn);
    },
  };
}

/**
 * A Db whose transactions that write daily records (a day's build) sleep `seconds` in
 * Postgres right after the insert, inside the transaction: a build slow enough to interrupt.
 * The session checks its client every 100 ms, so a killed process's transaction is rolled back
 * (and its advisory lock freed) at once instead of after the sleep.
 */
export function slowBuilds(db: Db, seconds: number): Db {
  const slowTx = (tx: Queryable): Queryable => ({
    copyFrom: tx.copyFrom.bind(tx),
    async query(sql, params) {
      const result = await tx.query(sql, params);
      // The build's write, alone or inside a WITH statement.
      if (/\bINSERT INTO daily_records\b/i.test(sql)) {
        await tx.query("SET LOCAL client_connection_check_interval = '100ms'");
        await tx.query('SELECT pg_sleep($1)', [seconds]);
      }
      return result as never;
    },
  });
  return {
    ...db,
    kind: db.kind,
    query: db.query.bind(db),
    copyFrom: db.copyFrom.bind(db),
    copyTo: db.copyTo.bind(db),
    session: db.session.bind(db),
    close: db.close.bind(db),
    transaction: (fn) => db.transaction((tx) => fn(slowTx(tx))),
  };
}
