import type { Queryable } from '../../src/shared/db/db.js';

/** `db`, counting the queries that reach it (`queries`). */
export function countedDb(db: Queryable): Queryable & { queries: number } {
  const wrapper = {
    queries: 0,
    copyFrom: db.copyFrom.bind(db),
    query: ((text: string, params?: unknown[]) => {
      wrapper.queries++;
      return db.query(text, params);
    }) as Queryable['query'],
  };
  return wrapper;
}
