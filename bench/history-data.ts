import pg from 'pg';

/**
 * A year of a national network, generated in SQL (INSERT ... SELECT from generate_series), for
 * the history benchmark: EMUS units of eight models; TRAINS train numbers (G, D and C) a day,
 * each with a ten-stop timetable (a quarter get a second version half-way through the year) and
 * one unit a day, rotating through the fleet (every 50th number is a coupled pair), so a unit
 * runs two or three numbers a day; HUB_TRAINS numbers call at the hub, 北京南.
 */
export const EMUS = 4_500;
export const TRAINS = 12_000;
export const DAYS = 365;
export const HUB = '北京南';
/** Every TRAINS / HUB_TRAINS-th number calls at the hub. */
export const HUB_TRAINS = 600;
/** Day of the year on which a quarter of the numbers change timetable (mid-way for fewer days). */
const SECOND_VERSION_DAY = 180;

const MODELS = ['CR400AF', 'CR400BF', 'CRH380A', 'CRH380B', 'CRH2A', 'CRH3C', 'CR300AF', 'CRH5A'];

export interface HistoryDataset {
  records: number;
  firstDay: number;
  lastDay: number;
  /** Seconds spent: loading rows, building the history indexes, vacuum and analyze. */
  loadSeconds: number;
  indexSeconds: number;
}

/**
 * Fills a freshly migrated database. The history indexes of daily_records are dropped for the
 * load and built again from their own definitions afterwards (faster than maintaining them row
 * by row), and the foreign-key triggers are skipped for the load (session_replication_role:
 * the ids come from the tables themselves); the table ends exactly as the migrations define it.
 */
export async function loadHistoryDataset(
  url: string,
  firstDay: number,
  days = DAYS,
): Promise<HistoryDataset> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const started = Date.now();
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await c.query(
      `INSERT INTO emus (code, model, train_set_no, registered_by)
       SELECT m || '-' || lpad(g::text, 4, '0'), m, g::text, 'fleet'
         FROM generate_series(1, $1::int) g, LATERAL (SELECT ($2::text[])[1 + g % $3::int] AS m) x`,
      [EMUS, MODELS, MODELS.length],
    );
    // Train k: prefix G, D or C, number 1 + k / 3. Version 0 from the first day; version 1 (a
    // minute later everywhere) from SECOND_VERSION_DAY for every fourth number.
    await c.query(
      `CREATE TEMP TABLE bench_train AS
       SELECT k, (ARRAY['G','D','C'])[1 + k % 3] || (1 + k / 3) AS code,
              6 * 3600 + (k * 37 % 960) * 60 AS start_offset
         FROM generate_series(0, $1::int - 1) k`,
      [TRAINS],
    );
    const hubEvery = TRAINS / HUB_TRAINS;
    const station = `CASE WHEN s = 5 AND b.k % ${hubEvery} = 0 THEN '${HUB}'
                          ELSE 'S' || ((b.k * 7 + s * 13) % 1500) END`;
    await c.query(
      `INSERT INTO timetables (content_hash, train_code, all_codes, start_station, end_station,
                               start_offset, end_offset)
       SELECT sha256(('bench:' || b.k || ':' || v)::bytea), b.code, ARRAY[b.code],
              (SELECT ${station} FROM (SELECT 1 AS s) one), (SELECT ${station} FROM (SELECT 10 AS s) ten),
              b.start_offset + v * 60, b.start_offset + v * 60 + 9 * 1200
         FROM bench_train b CROSS JOIN generate_series(0, 1) v
        WHERE v = 0 OR b.k % 4 = 0
        ORDER BY b.k, v`,
    );
    await c.query(
      `CREATE TEMP TABLE bench_version AS
       SELECT b.k, b.code, t.id, t.start_offset, (t.start_offset - b.start_offset) / 60 AS v
         FROM bench_train b JOIN timetables t ON t.train_code = b.code`,
    );
    await c.query(
      `INSERT INTO timetable_stops (timetable_id, station_no, station_name, arrive_offset,
                                    depart_offset, platform_no)
       SELECT b.id, s, ${station},
              CASE WHEN s > 1 THEN b.start_offset + (s - 1) * 1200 END,
              CASE WHEN s < 10 THEN b.start_offset + (s - 1) * 1200 + 120 END,
              CASE WHEN s = 5 THEN 1 + b.k % 24 END
         FROM bench_version b CROSS JOIN generate_series(1, 10) s`,
    );
    await c.query(
      `INSERT INTO timetable_coverage (train_code, timetable_id, service_day_start, service_day_end_exclusive)
       SELECT b.code, b.id, $1::int + CASE WHEN b.v = 1 THEN $2::int ELSE 0 END,
              CASE WHEN b.v = 0 AND b.k % 4 = 0 THEN $1::int + $2::int END
         FROM bench_version b`,
      [firstDay, Math.min(SECOND_VERSION_DAY, Math.floor(days / 2))],
    );

    const indexes = await c.query<{ name: string; def: string }>(
      `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
        WHERE i.tablename = 'daily_records'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
    );
    for (const i of indexes.rows) await c.query(`DROP INDEX ${i.name}`);
    await c.query(`SET session_replication_role = replica`);
    await c.query(
      `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                  first_observed_at, last_observed_at, status, timetable_id)
       SELECT $1::int + d, b.code, e0.id + (b.k + d * 1237 + u * 2250) % $3::int, 3, '{crowd,board}',
              0, 0,
              CASE WHEN b.k % 50 = 0 THEN 3 WHEN (b.k + d) % 11 = 0 THEN 0 ELSE 1 END,
              CASE WHEN b.k % 4 = 0 AND d >= $4::int THEN v1.id ELSE v0.id END
         FROM generate_series(0, $2::int - 1) d
              CROSS JOIN bench_train b
              CROSS JOIN generate_series(0, 1) u
              CROSS JOIN (SELECT min(id) AS id FROM emus) e0
              JOIN bench_version v0 ON v0.k = b.k AND v0.v = 0
              LEFT JOIN bench_version v1 ON v1.k = b.k AND v1.v = 1
        WHERE u = 0 OR b.k % 50 = 0`,
      [firstDay, days, EMUS, Math.min(SECOND_VERSION_DAY, Math.floor(days / 2))],
    );
    await c.query(`SET session_replication_role = DEFAULT`);
    const loaded = Date.now();
    for (const i of indexes.rows) await c.query(i.def);
    await c.query('VACUUM ANALYZE daily_records');
    for (const table of ['emus', 'timetables', 'timetable_stops', 'timetable_coverage']) {
      await c.query(`ANALYZE ${table}`);
    }
    const count = await c.query<{ n: string }>('SELECT count(*) AS n FROM daily_records');
    return {
      records: Number(count.rows[0]!.n),
      firstDay,
      lastDay: firstDay + days - 1,
      loadSeconds: (loaded - started) / 1000,
      indexSeconds: (Date.now() - loaded) / 1000,
    };
  } finally {
    await c.end();
  }
}
