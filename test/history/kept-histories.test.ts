import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  historyPageRange,
  mergedEmuHistoryPage,
  trainHistoryPage,
  type HistoryPageOptions,
  type HistoryRecord,
} from '../../src/domain/history/read-history.js';
import {
  emuHistoryItemJson,
  historyItemJson,
  trainHistoryItemJson,
} from '../../src/http/api/history-json.js';
import { KeptHistories } from '../../src/domain/history/kept-histories.js';
import { countedDb } from '../helpers/counted-db.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * Pages cut from a whole history (historyPageRange) are the pages the page's own query returns,
 * for any range, cursor and limit, ends and empty ranges included; KeptHistories queries the
 * first page that misses at a version, reads the history whole on the second, and cuts every
 * page after that from memory until the version moves.
 */
const t = useTestDatabase();
const D0 = 20_600;
const DAYS = 30;
let unit: number;
let merged: number;
/** Every record's (serviceDay, id), to draw cursors from. */
let trainKeys: { serviceDay: number; id: number }[];

beforeAll(async () => {
  const { db } = t.current;
  const emus = await db.query<{ id: number }>(
    `INSERT INTO emus (code, model, registered_by)
     VALUES ('CR400AF-5001', 'CR400AF', 'fleet'), ('CR400AF-5002', 'CR400AF', 'fleet')
     RETURNING id`,
  );
  [unit, merged] = emus.rows.map((r) => r.id) as [number, number];
  // G5 runs twice on most days, on either unit; ids are not in day order (days inserted in a
  // shuffled order), and some days are missing, as sources miss whole runs.
  const days = Array.from({ length: DAYS }, (_, k) => D0 + ((k * 7) % DAYS)).filter(
    (d) => d % 5 !== 0,
  );
  for (const day of days) {
    await db.query(
      `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                  first_observed_at, last_observed_at, status, timetable_id)
       SELECT $1, 'G5', CASE WHEN g = 1 THEN $2::int ELSE $3::int END, 2, '{crowd}', 0, 0, 1, NULL
         FROM generate_series(1, CASE WHEN $1::int % 3 = 0 THEN 1 ELSE 2 END) g`,
      [day, unit, merged],
    );
  }
  const corrections = await db.query<{ id: string }>(
    `INSERT INTO corrections (kind, reason, actor_via, actor_name, from_emu_id, into_emu_id)
     VALUES ('merge-emu', 'test', 'cli', 'test', $1, $2) RETURNING id`,
    [merged, unit],
  );
  await db.query(
    `INSERT INTO emu_merges (from_emu_id, into_emu_id, target_emu_id, correction_id)
     VALUES ($1, $2, $2, $3)`,
    [merged, unit, corrections.rows[0]!.id],
  );
  trainKeys = (await trainHistoryPage(db, 'G5', 'whole')).records.map((r) => ({
    serviceDay: r.serviceDay,
    id: r.id,
  }));
});

/** Page options over the history's days: ranges (some empty, some past either end), cursors, limits. */
const pageOptions = (): fc.Arbitrary<HistoryPageOptions> => {
  const day = fc.integer({ min: D0 - 2, max: D0 + DAYS + 2 });
  return fc
    .record(
      {
        limit: fc.integer({ min: 1, max: 12 }),
        fromDay: day,
        toDay: day,
        before: fc.constantFrom(...trainKeys),
      },
      { requiredKeys: ['limit'] },
    )
    .map((o) => o as HistoryPageOptions);
};

/** The page's records cut from a whole history, as KeptHistories cuts them. */
function historyPageOf(whole: readonly HistoryRecord[], options: HistoryPageOptions) {
  const { from, to, more } = historyPageRange(whole, options);
  return { records: whole.slice(from, to), more };
}

describe('historyPageRange', () => {
  it("cuts the page the page's own query returns, for any range, cursor and limit", async () => {
    const { db } = t.current;
    const train = (await trainHistoryPage(db, 'G5', 'whole')).records;
    const emu = await mergedEmuHistoryPage(db, merged, 'whole');
    expect(emu.emuId).toBe(unit);
    expect(train.length).toBeGreaterThan(30);
    await fc.assert(
      fc.asyncProperty(pageOptions(), async (options) => {
        expect(historyPageOf(train, options)).toEqual(await trainHistoryPage(db, 'G5', options));
        const { emuId, ...page } = await mergedEmuHistoryPage(db, merged, options);
        expect(emuId).toBe(unit);
        expect(historyPageOf(emu.records, options)).toEqual(page);
      }),
      { numRuns: 200 },
    );
  });

  it('answers past the last record, and on an empty history, with no records and no more', () => {
    expect(historyPageOf([], { limit: 5 })).toEqual({ records: [], more: false });
    const last = trainKeys[trainKeys.length - 1]!;
    expect(historyPageOf([], { limit: 5, before: last })).toEqual({ records: [], more: false });
  });
});

describe('KeptHistories', () => {
  it('queries the first page missed at a version, reads the history on the second, cuts after', async () => {
    const db = countedDb(t.current.db);
    const histories = new KeptHistories(db, historyItemJson);
    const whole = (await trainHistoryPage(t.current.db, 'G5', 'whole')).records;
    const first = await histories.trainPage('G5', 'histories:0@1', { limit: 5 });
    expect(first.records).toEqual(whole.slice(0, 5));
    expect(db.queries).toBe(1);
    // The second miss: its own page query, and the whole history's read in the background.
    await histories.trainPage('G5', 'histories:0@1', { limit: 5, before: trainKeys[4]! });
    expect(db.queries).toBe(3);
    await histories.readsSettled();
    const cut = await histories.trainPage('G5', 'histories:0@1', {
      limit: 7,
      before: trainKeys[9]!,
    });
    expect(cut.records).toEqual(whole.slice(10, 17));
    expect(cut.itemsJson).toBe(whole.slice(10, 17).map(trainHistoryItemJson).join(','));
    expect(db.queries).toBe(3);
    // A new version: missed again, queried again.
    await histories.trainPage('G5', 'histories:0@2', { limit: 5 });
    expect(db.queries).toBe(4);
  });

  it("reads a train's history whole once for several pages at once, and cuts them after", async () => {
    const db = countedDb(t.current.db);
    const histories = new KeptHistories(db, historyItemJson);
    const pages: HistoryPageOptions[] = [
      { limit: 4 },
      { limit: 8, fromDay: D0 + 12, toDay: D0 + 12 },
      { limit: 5, before: trainKeys[6]! },
      { limit: 400, fromDay: D0 + 3, toDay: D0 + 17 },
    ];
    const expected = await Promise.all(pages.map((o) => trainHistoryPage(t.current.db, 'G5', o)));
    const cut = await histories.trainPages('G5', 'histories:0@1', pages);
    expect(cut.map((p) => ({ records: p.records, more: p.more }))).toEqual(
      expected.map((p) => ({ records: p.records, more: p.more })),
    );
    expect(db.queries).toBe(1);
    // Kept: the next pages, and GetTrainHistory's, are cut from memory.
    await histories.trainPages('G5', 'histories:0@1', pages);
    await histories.trainPage('G5', 'histories:0@1', { limit: 3 });
    expect(db.queries).toBe(1);
    // A new version: read whole again.
    await histories.trainPages('G5', 'histories:0@2', pages);
    expect(db.queries).toBe(2);
  });

  it("cuts an EMU's pages from the unit it was merged into, read whole", async () => {
    const db = countedDb(t.current.db);
    const histories = new KeptHistories(db, historyItemJson);
    for (let i = 0; i < 2; i++) await histories.emuPage(merged, 'histories:0@1', { limit: 3 });
    await histories.readsSettled();
    const queries = db.queries;
    const page = await histories.emuPage(merged, 'histories:0@1', { limit: 4, fromDay: D0 + 20 });
    expect(db.queries).toBe(queries);
    const { emuId, ...expected } = await mergedEmuHistoryPage(t.current.db, merged, {
      limit: 4,
      fromDay: D0 + 20,
    });
    const itemsJson = expected.records.map(emuHistoryItemJson).join(',');
    expect(page).toEqual({ emuId, ...expected, itemsJson });
    expect(page.emuId).toBe(unit);
  });
});
