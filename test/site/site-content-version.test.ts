import { describe, expect, it } from 'vitest';
import { DataVersionReader } from '../../src/shared/cache/data-versions.js';
import type { Queryable, QueryResult } from '../../src/shared/db/db.js';
import {
  SiteContentVersionReader,
  type SiteContentState,
} from '../../src/http/site/cache/site-content-version.js';

/**
 * A database whose every query sees the version committed when the query began (as a statement
 * snapshot does) and answers only when the test lets it: the order of arrivals, commits and
 * answers is set by the test, not by timing.
 */
class HeldDb implements Queryable {
  committed = 0;
  readonly held: (() => void)[] = [];
  queries = 0;

  query<R>(): Promise<QueryResult<R>> {
    this.queries++;
    const seen = this.committed;
    return new Promise((resolve) => {
      this.held.push(() =>
        resolve({
          // What both queries read: the data version's row, and the version with the schedule.
          rows: [{ name: 'site_content', key: '0', version: String(seen), next: null }] as R[],
          rowCount: 1,
        }),
      );
    });
  }

  /** Answers the oldest query held. */
  answer(): void {
    const next = this.held.shift();
    if (!next) throw new Error('no query is waiting');
    next();
  }

  copyFrom(): Promise<void> {
    throw new Error('not used');
  }
}

/** Lets scheduled reads start and answered ones settle. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function answerAll(db: HeldDb): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await turn();
    while (db.held.length > 0) db.answer();
  }
  await turn();
}

describe('site content version reader', () => {
  it('answers a request that arrived after a commit from a read begun after it, never from the read already running', async () => {
    const db = new HeldDb();
    const reader = new SiteContentVersionReader(
      db,
      new DataVersionReader(db, { maxConcurrentReads: 1 }),
    );
    const warm = reader.read();
    await answerAll(db);
    expect((await warm).version).toBe(0);

    const seen: Record<string, SiteContentState> = {};
    const before = db.queries;
    void reader.read().then((s) => (seen.a = s));
    await turn();
    expect(db.queries).toBe(before + 1); // A's read is running (it sees version 0)
    db.committed = 1; // a write commits (in this process or another)
    void reader.read().then((s) => (seen.b = s));
    void reader.read().then((s) => (seen.c = s));
    await turn();
    expect(db.queries).toBe(before + 1); // B and C wait: one read in flight
    db.answer();
    await turn();
    expect(seen.a?.version).toBe(0);
    expect(seen.b).toBeUndefined();
    await answerAll(db);
    expect(seen.b?.version).toBe(1);
    expect(seen.c).toBe(seen.b); // one read (and its re-read of the schedule) answered both
  });

  it('starts a second read for a request that arrived after a commit while one read runs (default: 4 in flight)', async () => {
    const db = new HeldDb();
    const reader = new SiteContentVersionReader(db, new DataVersionReader(db));
    const warm = reader.read();
    await answerAll(db);
    await warm;
    const a = reader.read();
    await turn();
    db.committed = 1;
    const b = reader.read();
    await turn();
    expect(db.held.length).toBe(2); // B did not join A's read
    await answerAll(db);
    expect((await a).version).toBe(0);
    expect((await b).version).toBe(1);
  });

  it('lets every request of one turn share one query', async () => {
    const db = new HeldDb();
    const reader = new SiteContentVersionReader(db, new DataVersionReader(db));
    const reads = Array.from({ length: 10 }, () => reader.read());
    await answerAll(db);
    const states = await Promise.all(reads);
    expect(new Set(states.map((s) => s.version))).toEqual(new Set([0]));
    expect(db.queries).toBe(2); // the version, then (first read) the next scheduled publication
  });
});
