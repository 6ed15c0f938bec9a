import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import {
  ChangeCursorExpiredError,
  formatChangeCursor,
  parseChangeCursor,
  pruneRecordChanges,
  readChangeHead,
  readRecordChanges,
  START,
  type ChangeCursor,
  type RecordChange,
} from '../../src/domain/records/record-changes.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';

const t = useTestDatabase();

interface Row {
  id: number;
  line: string;
}

/** The records table, one line per record, as a replayed copy must hold it. */
async function table(): Promise<Row[]> {
  const r = await t.current.db.query<{ id: string; line: string }>(
    `SELECT id::text, concat_ws('|', service_day, train_code, emu_id, support,
                                array_to_string(sources, ','), first_observed_at,
                                last_observed_at, status, coalesce(timetable_id::text, '-')) AS line
       FROM daily_records ORDER BY id`,
  );
  return r.rows.map((row) => ({ id: Number(row.id), line: row.line })).sort((a, b) => a.id - b.id);
}

function lineOf(c: RecordChange): string {
  const r = c.record!;
  return [
    c.serviceDay,
    c.trainCode,
    c.emuId,
    r.support,
    r.sources.join(','),
    r.firstObservedAt,
    r.lastObservedAt,
    r.status,
    r.timetableId ?? '-',
  ].join('|');
}

/** A client of the feed: a local copy of the table, kept by applying each change. */
class Replica {
  readonly records = new Map<number, string>();
  cursor: ChangeCursor = START;
  readonly seen: RecordChange[] = [];

  async catchUp(pageSize: number): Promise<void> {
    for (;;) {
      const page = await readRecordChanges(t.current.db, this.cursor, pageSize);
      for (const c of page.changes) {
        this.seen.push(c);
        if (c.kind === 'removed') this.records.delete(c.recordId);
        else this.records.set(c.recordId, lineOf(c));
      }
      this.cursor = page.next;
      if (!page.more) return;
    }
  }

  /** Skips what is already there (a client that has just read the daily pages). */
  async startAtHead(): Promise<void> {
    this.cursor = await readChangeHead(t.current.db);
  }

  rows(): Row[] {
    return [...this.records].map(([id, line]) => ({ id, line })).sort((a, b) => a.id - b.id);
  }
}

const DAYS = ['20260901', '20260902', '20260903', '20260904'];

describe('the change feed of daily records', () => {
  it('replayed from the start by a client, reconstructs exactly the records table after builds, concurrent rebuilds, late data and a correction', async () => {
    const db = t.current.db;
    const replica = new Replica();
    // First builds of four days, committing concurrently.
    await ingestSightings(
      db,
      DAYS.flatMap((d, i) => [
        ...sightings(d, `G${100 + i}`, `CR400AF-${2100 + i}`, 2),
        ...sightings(d, `G${200 + i}`, `CR400AF-${2200 + i}`, 1),
        ...sightings(d, `D${300 + i}`, `CRH380A-${2300 + i}`, 3),
      ]),
    );
    await Promise.all(DAYS.map((d) => buildDailyRecords(db, serviceDayFromYmd(d))));
    await replica.catchUp(5);
    expect(replica.rows()).toEqual(await table());

    // Late data: another unit seen on G100 (added), more support for G201 (changed), and G302
    // gone from day 3 (its sightings belong to G303 now: removed + added); rebuilt concurrently.
    await ingestSightings(db, [
      ...sightings(DAYS[0]!, 'G100', 'CR400AF-2999', 4, 'late'),
      ...sightings(DAYS[1]!, 'G201', 'CR400AF-2201', 2, 'late'),
    ]);
    const builds = DAYS.map((d) => buildDailyRecords(db, serviceDayFromYmd(d)));
    await replica.catchUp(3); // reads while builds are in flight
    await Promise.all(builds);
    await replica.catchUp(3);
    expect(replica.rows()).toEqual(await table());

    // A correction removes a record by hand, in a transaction that names its cause.
    await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('emutrack.change_cause', 'correction', true)`);
      await tx.query(`DELETE FROM daily_records WHERE service_day = $1 AND train_code = 'G200'`, [
        serviceDayFromYmd(DAYS[0]!),
      ]);
    });
    await replica.catchUp(4);
    expect(replica.rows()).toEqual(await table());

    const kinds = new Set(replica.seen.map((c) => c.kind));
    expect(kinds).toEqual(new Set(['added', 'changed', 'removed']));
    expect(replica.seen.at(-1)).toMatchObject({ kind: 'removed', cause: 'correction' });
    expect(replica.seen.filter((c) => c.cause === 'build').length).toBeGreaterThan(10);
    // Every change seen once: cursors strictly increase.
    const cursors = replica.seen.map((c) => formatChangeCursor(c.cursor));
    expect(new Set(cursors).size).toBe(cursors.length);
  });

  it('skips no change when a transaction that began first commits last', async () => {
    const replica = new Replica();
    await replica.startAtHead();
    const first = new pg.Client({ connectionString: t.current.url });
    const second = new pg.Client({ connectionString: t.current.url });
    await first.connect();
    await second.connect();
    try {
      // `first` begins and takes its transaction id (and its start time) before `second`...
      const [mine, theirs] = [await someEmu(), await someEmu()];
      await first.query('BEGIN');
      await first.query('SELECT pg_current_xact_id()');
      await new Promise((r) => setTimeout(r, 5)); // a later now() for `second`, for the check below
      await second.query('BEGIN');
      await insertRecord(second, 'G9002', theirs);
      await second.query('COMMIT');
      await replica.catchUp(100);
      expect(replica.seen.map((c) => c.trainCode)).toEqual(['G9002']);
      // ...and commits its record last. Ordered by transaction id or start time it would sort
      // before the change the reader has already moved past, and be skipped.
      await insertRecord(first, 'G9001', mine);
      await first.query('COMMIT');
      await replica.catchUp(100);
      expect(replica.seen.map((c) => c.trainCode)).toEqual(['G9002', 'G9001']);
      expect(replica.seen[1]!.changedAt.getTime()).toBeLessThan(
        replica.seen[0]!.changedAt.getTime(),
      );
      const seenIds = new Set(replica.rows().map((r) => r.id));
      expect((await table()).filter((r) => seenIds.has(r.id))).toEqual(replica.rows());
    } finally {
      await first.end();
      await second.end();
    }
  });

  it('makes a second writer of records wait for the first to commit, so positions commit in order', async () => {
    const db = t.current.db;
    const replica = new Replica();
    await replica.startAtHead();
    const first = new pg.Client({ connectionString: t.current.url });
    const second = new pg.Client({ connectionString: t.current.url });
    await first.connect();
    await second.connect();
    try {
      const emuId = await someEmu();
      await first.query('BEGIN');
      await insertRecord(first, 'G9101', emuId);
      await second.query('BEGIN');
      const secondWrite = insertRecord(second, 'G9102', emuId);
      await waitFor(async () => {
        const r = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return r.rows[0]!.n === 1;
      });
      await replica.catchUp(100);
      expect(replica.seen).toHaveLength(0);
      await first.query('COMMIT');
      await secondWrite;
      await replica.catchUp(100);
      expect(replica.seen.map((c) => c.trainCode)).toEqual(['G9101']);
      await second.query('COMMIT');
      await replica.catchUp(100);
      expect(replica.seen.map((c) => c.trainCode)).toEqual(['G9101', 'G9102']);
    } finally {
      await first.end();
      await second.end();
    }
  });

  it('gives no change and takes no position for an update that changes nothing a reader sees', async () => {
    const db = t.current.db;
    const replica = new Replica();
    await replica.startAtHead();
    const before = await db.query<{ position: string }>(
      'SELECT position::text FROM record_change_clock',
    );
    await db.query('UPDATE daily_records SET built_at = now()');
    await db.query('DELETE FROM daily_records WHERE false');
    await replica.catchUp(1000);
    expect(replica.seen).toHaveLength(0);
    const after = await db.query<{ position: string }>(
      'SELECT position::text FROM record_change_clock',
    );
    expect(after.rows[0]!.position).toBe(before.rows[0]!.position);
  });

  it('answers cursor_expired for a cursor older than the retention, and reads on from a kept one', async () => {
    const db = t.current.db;
    const all = await readRecordChanges(db, START, 100_000);
    expect(all.changes.length).toBeGreaterThan(5);
    // The first five changes' transactions are made 40 days old.
    const oldest = all.changes.slice(0, 5);
    const lastOld = oldest.at(-1)!.cursor;
    await db.query(
      `UPDATE record_change_positions SET changed_at = now() - interval '40 days'
        WHERE position <= $1`,
      [lastOld.position.toString()],
    );
    const deleted = await pruneRecordChanges(db, 30);
    expect(deleted).toBeGreaterThanOrEqual(5);
    const err = await readRecordChanges(db, START, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChangeCursorExpiredError);
    expect((err as ChangeCursorExpiredError).code).toBe('cursor_expired');
    expect((err as Error).message).toMatch(/records\/daily/);
    // The head it names is a cursor to follow the feed from.
    const head = (err as ChangeCursorExpiredError).head;
    expect((await readRecordChanges(db, head, 10)).changes).toHaveLength(0);
    // A cursor at or after the retention bound still reads on without a gap.
    const kept = all.changes.find((c) => c.cursor.position > lastOld.position)!;
    const prior = all.changes[all.changes.indexOf(kept) - 1]!.cursor;
    const page = await readRecordChanges(db, prior, 100_000);
    expect(page.changes[0]!.cursor).toEqual(kept.cursor);
    expect(await pruneRecordChanges(db, 30)).toBe(0);
  });

  it('parses only the cursors it hands out', () => {
    expect(parseChangeCursor('')).toEqual(START);
    expect(parseChangeCursor('12.345')).toEqual({ position: 12n, recordId: 345n });
    expect(formatChangeCursor({ position: 12n, recordId: 345n })).toBe('12.345');
    for (const bad of ['x', '1', '1.', '.1', '-1.2', '1.2.3', '1'.repeat(19) + '.1', '1.2 '])
      expect(() => parseChangeCursor(bad), bad).toThrow(/not a change-feed cursor/);
  });
});

async function someEmu(): Promise<number> {
  const r = await t.current.db.query<{ id: number }>(
    `INSERT INTO emus (code, registered_by) VALUES ('CRH380B-' || (random() * 1e6)::int, 'fleet')
     RETURNING id`,
  );
  return r.rows[0]!.id;
}

function insertRecord(c: pg.Client, train: string, emuId: number) {
  return c.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status)
     VALUES ($1, $2, $3, 1, '{x}', 0, 0, 0)`,
    [serviceDayFromYmd('20260910'), train, emuId],
  );
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
