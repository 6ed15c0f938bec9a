import type { Queryable } from '../../shared/db/db.js';
import { resolveEmuIds } from '../emus/emu-registry.js';
import { dedupKeyOf } from '../ingest/observation-record.js';
import { markSightingDaysStale } from '../records/stale-days.js';
import { midnightOfServiceDay } from '../../shared/time/service-day.js';

/** The source of the observations reports become. */
export const REPORTS_SOURCE = 'reports';

interface ReportRow {
  id: number;
  train_code: string;
  train_codes: string[];
  emu_code: string;
  service_day: number;
  observed_at: string | null;
}

/**
 * Makes a corroborated report an observation of source `reports` with ref = the report's id,
 * so that it counts once however often it is accepted, and marks its day stale (as late data
 * is), in the caller's transaction. A report already made one (a refusal that was undone, a
 * second acceptance) only has its retraction, if any, lifted. Returns the observation's id.
 */
export async function reportToObservation(
  tx: Queryable,
  reportId: number,
  today: number,
): Promise<number> {
  const r = await tx.query<ReportRow>(
    `SELECT id, train_code, train_codes, emu_code, service_day, observed_at::text
       FROM sighting_reports WHERE id = $1`,
    [reportId],
  );
  const row = r.rows[0]!;
  const ref = String(row.id);
  const existing = await tx.query<{ id: string }>(
    'SELECT id FROM observations WHERE source = $1 AND ref = $2',
    [REPORTS_SOURCE, ref],
  );
  let observationId: number;
  if (existing.rows[0]) {
    observationId = Number(existing.rows[0].id);
    await tx.query('DELETE FROM retracted_observations WHERE observation_id = $1', [observationId]);
  } else {
    const ids = await resolveEmuIds(tx, [row.emu_code]);
    // Without a stated time the sighting stands at noon of its day: the service date is given,
    // so the build counts it for that day whatever the hour.
    const observedAt =
      row.observed_at !== null
        ? Number(row.observed_at)
        : midnightOfServiceDay(row.service_day) + 12 * 3600;
    const batch = await tx.query<{ id: string }>(
      `INSERT INTO ingest_batches (kind, files, finished_at, lines_read, accepted)
       VALUES ('reports', 0, now(), 1, 1) RETURNING id`,
    );
    const dedupKey = dedupKeyOf({
      source: REPORTS_SOURCE,
      ref,
      observedAt,
      trainCodes: row.train_codes,
      emuCode: row.emu_code,
      serviceDay: row.service_day,
      serviceDateGiven: true,
    });
    const ins = await tx.query<{ id: string }>(
      `INSERT INTO observations (batch_id, file, line, observed_at, service_day, service_date_given,
                                 train_code, train_codes, emu_id, emu_code, source, ref, dedup_key)
       VALUES ($1, 'report', 1, $2, $3, true, $4, $5, $6, $7, $8, $9, decode($10, 'hex'))
       RETURNING id`,
      [
        batch.rows[0]!.id,
        observedAt,
        row.service_day,
        row.train_code,
        row.train_codes,
        ids.get(row.emu_code)!,
        row.emu_code,
        REPORTS_SOURCE,
        ref,
        dedupKey,
      ],
    );
    observationId = Number(ins.rows[0]!.id);
  }
  await tx.query('UPDATE sighting_reports SET observation_id = $2 WHERE id = $1', [
    reportId,
    observationId,
  ]);
  await markSightingDaysStale(tx, [row.service_day], today);
  return observationId;
}
