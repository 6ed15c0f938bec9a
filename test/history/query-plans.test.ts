import { beforeAll, describe, expect, it } from 'vitest';
import {
  EMU_HISTORY_SQL,
  TRAIN_HISTORY_SQL,
  historyQueryParams,
} from '../../src/domain/history/read-history.js';
import {
  STATION_CALLS_SQL,
  STATION_TIMETABLES_SQL,
  stationBoard,
  stationTimetables,
} from '../../src/domain/timetables/station-board.js';
import { useTestDatabase } from '../helpers/test-db.js';

/**
 * The plans of the large read queries, on tables big enough for the planner to care and with
 * fresh statistics: ten years of records of 150 EMUs on 150 numbers (547,500 rows), and ten years of
 * timetable versions (4,000 train numbers, a new version every year: 40,000 timetables with
 * 400,000 stops and 40,000 coverage rows; 600 trains a day call at the hub). Each query must be
 * served by an index in the order of its page, so that a page reads about limit + 1 entries
 * whatever the history's length and the cursor's depth: no sequential scan of the big tables,
 * and no sort of a history.
 */
const FIRST_DAY = 20_000;
const DAYS = 3_650;
const EMUS = 150;
const TRAINS = 4_000;
const YEARS = 10;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe('plans of the history and station timetable queries', () => {
  const t = useTestDatabase();

  beforeAll(async () => {
    const { db } = t.current;
    await db.query(
      `INSERT INTO emus (code, model, registered_by)
       SELECT 'CR400AF-' || (1000 + g), 'CR400AF', 'fleet' FROM generate_series(1, $1::int) g`,
      [EMUS],
    );
    // 150 numbers run every day, each by one of the EMUs in turn: every number and every EMU
    // has a record a day (3,650 over the ten years).
    await db.query(
      `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                  first_observed_at, last_observed_at, status)
       SELECT d, 'G' || k, (SELECT min(id) FROM emus) + (k + d) % $3::int, 2, '{a}', 0, 0, 1
         FROM generate_series($1::int, $1::int + $2::int - 1) d
              CROSS JOIN generate_series(1, $3::int) k`,
      [FIRST_DAY, DAYS, EMUS],
    );
    // One timetable per train number and year: version y in force over year y.
    await db.query(
      `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                               start_offset, end_offset)
       SELECT sha256((n || ':' || y)::bytea), 'D' || n, ARRAY['D' || n], 'S' || (n % 97), 'T' || (n % 89),
              21600 + (n % 600) * 60, 21600 + (n % 600) * 60 + 9 * 600
         FROM generate_series(1, $1::int) n CROSS JOIN generate_series(0, $2::int - 1) y`,
      [TRAINS, YEARS],
    );
    // Ten stops each; 600 numbers (n <= 600) call at the hub as their fifth stop.
    await db.query(
      `INSERT INTO timetable_stops (timetable_id, station_no, station_name, arrive_offset, depart_offset)
       SELECT t.id, s, CASE WHEN s = 5 AND substr(t.train_code, 2)::int <= 600 THEN 'HUB'
                            ELSE 'S' || ((t.id * 7 + s * 131) % 3000) END,
              CASE WHEN s > 1 THEN t.start_offset + (s - 1) * 600 END,
              CASE WHEN s < 10 THEN t.start_offset + (s - 1) * 600 + 60 END
         FROM timetables t CROSS JOIN generate_series(1, 10) s`,
    );
    await db.query(
      `INSERT INTO timetable_coverage (train_code, timetable_id, service_day_start, service_day_end_exclusive)
       SELECT t.train_code, t.id, $1::int + y * 365,
              CASE WHEN y < $2::int - 1 THEN $1::int + (y + 1) * 365 END
         FROM (SELECT id, train_code, row_number() OVER (PARTITION BY train_code ORDER BY id) - 1 AS y
                 FROM timetables) t`,
      [FIRST_DAY, YEARS],
    );
    for (const table of [
      'emus',
      'daily_records',
      'timetables',
      'timetable_stops',
      'timetable_coverage',
    ]) {
      await db.query(`ANALYZE ${table}`);
    }
    // Loading ten years takes a while on a shared machine; only the plans are asserted.
  }, 300_000);

  async function plan(sql: string, params: unknown[]): Promise<PlanNode[]> {
    const r = await t.current.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) ${sql}`,
      params,
    );
    return nodes(r.rows[0]!['QUERY PLAN'][0].Plan);
  }

  function expectIndexOrder(all: PlanNode[], index: string) {
    const scans = all.filter((n) => n['Relation Name'] === 'daily_records');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
      [expect.stringMatching(/^Index (Only )?Scan$/), index],
    ]);
    expect(all.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(all.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  }

  const pages = [
    ['the first page of ten years', { limit: 20 }],
    ['a page of 200', { limit: 200 }],
    [
      'a page deep into the cursor',
      { limit: 20, before: { serviceDay: FIRST_DAY + 1_000, id: 200_000 } },
    ],
    [
      'a page of a range',
      {
        limit: 200,
        fromDay: FIRST_DAY + 100,
        toDay: FIRST_DAY + 3_000,
        before: { serviceDay: FIRST_DAY + 2_000, id: 1 },
      },
    ],
  ] as const;

  for (const [name, options] of pages) {
    it(`history by EMU, ${name}: the (emu_id, service_day, id) index in page order`, async () => {
      const r = await t.current.db.query<{ n: number; m: number }>(
        `SELECT count(*) FILTER (WHERE emu_id = 7)::int AS n,
                count(*) FILTER (WHERE train_code = 'G17')::int AS m FROM daily_records`,
      );
      expect(r.rows[0]).toEqual({ n: DAYS, m: DAYS });
      expectIndexOrder(
        await plan(EMU_HISTORY_SQL, historyQueryParams(7, options)),
        'daily_records_emu_history',
      );
    });

    it(`history by train, ${name}: the (train_code, service_day, id) index in page order`, async () => {
      expectIndexOrder(
        await plan(TRAIN_HISTORY_SQL, historyQueryParams('G17', options)),
        'daily_records_train_history',
      );
    });
  }

  it('station timetable of the hub: its stops by station, coverage by index, no sequential scan', async () => {
    const day = FIRST_DAY + 5 * 365 + 10;
    const ids = await stationTimetables(t.current.db, 'HUB', day);
    expect(ids).toHaveLength(600);
    const inForce = await plan(STATION_TIMETABLES_SQL, ['HUB', day]);
    expect(inForce.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    const indexes = inForce.flatMap((n) => n['Index Name'] ?? []);
    expect(indexes).toContain('timetable_stops_station');
    expect(
      indexes.some((i) =>
        ['timetable_coverage_in_force', 'timetable_coverage_timetable_days'].includes(i),
      ),
    ).toBe(true);
  });

  it("station timetable of the hub: its timetables' calls by the stops' key, timetables by id", async () => {
    const day = FIRST_DAY + 5 * 365 + 10;
    const ids = await stationTimetables(t.current.db, 'HUB', day);
    const board = await stationBoard(t.current.db, 'HUB', day);
    expect(board.map((e) => e.timetableId).sort((a, b) => a - b)).toEqual(
      [...ids].sort((a, b) => a - b),
    );
    const all = await plan(STATION_CALLS_SQL, ['HUB', ids]);
    expect(all.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    const used = [...new Set(all.flatMap((n) => n['Index Name'] ?? []))].sort();
    expect(used).toHaveLength(2);
    expect(used).toContain('timetables_pkey');
    expect(used.find((i) => i !== 'timetables_pkey')).toMatch(/^timetable_stops_(pkey|station)$/);
  });
});
