import type { Db } from '../src/shared/db/db.js';
import { insertGeneratedTimetables, insertGeneratedUnits } from './generated-rows.js';

/**
 * The data of the never-served-pages benchmark (bench/suites/fresh-pages.ts), generated in SQL:
 * EMUS units; one timetable per train number; a day of DAY_RECORDS records (one per number,
 * nine in ten with a timetable) for records/daily; and HISTORY_KEYS numbers run every day for
 * HISTORY_DAYS days before it by HISTORY_KEYS units in rotation, so that each of those numbers and
 * units has a history of HISTORY_DAYS records to page through at random.
 */
export const EMUS = 4_500;
export const DAY_RECORDS = 12_000;
export const HISTORY_KEYS = 100;
export const HISTORY_DAYS = 1_000;

export interface FreshPagesDataset {
  serviceDay: number;
  /** The day's record ids, ascending. */
  dayIds: number[];
  /** Per history key: code and its records' cursors ("day:id"), newest first. */
  emus: { id: number; code: string; cursors: string[] }[];
  trains: { code: string; cursors: string[] }[];
}

export async function loadFreshPagesDataset(
  db: Db,
  serviceDay: number,
): Promise<FreshPagesDataset> {
  await insertGeneratedUnits(db, EMUS);
  await insertGeneratedTimetables(db, 'fresh', DAY_RECORDS);
  await db.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status, timetable_id)
     SELECT $1, 'G' || (1000 + g), e0.id + (g * 7919) % $3, 1 + g % 3, '{crowd}', 0, 0,
            CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END,
            CASE WHEN g % 10 = 0 THEN NULL ELSE t0.id + g - 1 END
       FROM generate_series(1, $2::int) g,
            (SELECT min(id) AS id FROM emus) e0, (SELECT min(id) AS id FROM timetables) t0`,
    [serviceDay, DAY_RECORDS, EMUS],
  );
  // Number k (G1001..) runs on each of the HISTORY_DAYS days before, by unit (k + d) % KEYS.
  await db.query(
    `INSERT INTO daily_records (service_day, train_code, emu_id, support, sources,
                                first_observed_at, last_observed_at, status, timetable_id)
     SELECT $1::int - d, 'G' || (1000 + k), e0.id + (k + d) % $2::int, 3, '{crowd}', 0, 0,
            CASE WHEN (k + d) % 11 = 0 THEN 0 ELSE 1 END, t0.id + k - 1
       FROM generate_series(1, $3::int) d, generate_series(1, $2::int) k,
            (SELECT min(id) AS id FROM emus) e0, (SELECT min(id) AS id FROM timetables) t0
      ORDER BY d DESC, k`,
    [serviceDay, HISTORY_KEYS, HISTORY_DAYS],
  );
  // As autovacuum leaves a table: the visibility map set, so the histories read the index only.
  await db.query('VACUUM ANALYZE daily_records');
  for (const table of ['emus', 'timetables']) await db.query(`ANALYZE ${table}`);

  const ids = await db.query<{ id: number }>(
    'SELECT id FROM daily_records WHERE service_day = $1 ORDER BY id',
    [serviceDay],
  );
  const cursorsOf = async (column: string, keys: readonly (string | number)[]) => {
    const out: string[][] = [];
    for (const key of keys) {
      const r = await db.query<{ cursor: string }>(
        `SELECT service_day || ':' || id AS cursor FROM daily_records WHERE ${column} = $1
          ORDER BY service_day DESC, id DESC`,
        [key],
      );
      out.push(r.rows.map((row) => row.cursor));
    }
    return out;
  };
  const emuRows = await db.query<{ id: number; code: string }>(
    'SELECT id, code FROM emus ORDER BY id LIMIT $1',
    [HISTORY_KEYS],
  );
  const trainCodes = Array.from({ length: HISTORY_KEYS }, (_, k) => `G${1001 + k}`);
  const emuCursors = await cursorsOf(
    'emu_id',
    emuRows.rows.map((e) => e.id),
  );
  const trainCursors = await cursorsOf('train_code', trainCodes);
  return {
    serviceDay,
    dayIds: ids.rows.map((r) => Number(r.id)),
    emus: emuRows.rows.map((e, i) => ({ id: e.id, code: e.code, cursors: emuCursors[i]! })),
    trains: trainCodes.map((code, i) => ({ code, cursors: trainCursors[i]! })),
  };
}

/** A page asked for: a key's path (without query), its cursor and limit. */
export interface FreshPage {
  /** The request's path and query. */
  url: string;
  /** What the page's SQL is given. */
  key: string | number;
  cursor: string;
  limit: number;
}

/** Limits drawn at random, as the issue asks: 150 to 200. */
export const MIN_LIMIT = 150;
export const MAX_LIMIT = 200;

/** A small seeded generator (mulberry32): the same pages in every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` distinct pages (no two share key, cursor and limit), each a full page: a cursor drawn
 * from a key's records with at least MAX_LIMIT records after it. `keys` give, per key, its path
 * (with a query or not) and its records' cursors newest first.
 */
export function freshPages(
  keys: readonly { path: string; key: string | number; cursors: readonly string[] }[],
  count: number,
  seed: number,
): FreshPage[] {
  const random = seededRandom(seed);
  const seen = new Set<string>();
  const pages: FreshPage[] = [];
  while (pages.length < count) {
    const k = keys[Math.floor(random() * keys.length)]!;
    const usable = k.cursors.length - MAX_LIMIT - 1;
    const cursor = k.cursors[Math.floor(random() * usable)]!;
    const limit = MIN_LIMIT + Math.floor(random() * (MAX_LIMIT - MIN_LIMIT + 1));
    const id = `${k.path}|${cursor}|${limit}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const url = `${k.path}${k.path.includes('?') ? '&' : '?'}limit=${limit}&cursor=${cursor}`;
    pages.push({ url, key: k.key, cursor, limit });
  }
  return pages;
}
