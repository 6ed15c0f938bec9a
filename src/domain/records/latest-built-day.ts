import type { Queryable } from '../../shared/db/db.js';

/** The latest built day and what its records hold. */
export interface BuiltDaySummary {
  serviceDay: number;
  /** Daily records of the day (the rows of its CSV export). */
  records: number;
  /** Train numbers among them. */
  trains: number;
  /** Units among them. */
  emus: number;
  /** Whether the day's CSV export is stored (and so served). */
  exported: boolean;
}

/**
 * The latest service day whose build wrote records (daily_record_builds.version > 0), with its
 * counts, or undefined before any. Such a day appears, and its records change, only in a build
 * that moves the data versions ('records' of the day and 'histories'), so a page kept under
 * 'histories' and 'exports' shows exactly this; a build that found nothing for a new day writes
 * no records and moves neither, and is not counted as the latest.
 */
export async function readLatestBuiltDay(q: Queryable): Promise<BuiltDaySummary | undefined> {
  const r = await q.query<{
    service_day: number;
    records: number;
    trains: number;
    emus: number;
    exported: boolean;
  }>(
    `SELECT b.service_day, count(d.id)::int AS records,
            count(DISTINCT d.train_code)::int AS trains, count(DISTINCT d.emu_id)::int AS emus,
            EXISTS (SELECT 1 FROM daily_exports x WHERE x.service_day = b.service_day) AS exported
       FROM (SELECT service_day FROM daily_record_builds WHERE version > 0
              ORDER BY service_day DESC LIMIT 1) b
       LEFT JOIN daily_records d ON d.service_day = b.service_day
      GROUP BY b.service_day`,
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    serviceDay: row.service_day,
    records: row.records,
    trains: row.trains,
    emus: row.emus,
    exported: row.exported,
  };
}
