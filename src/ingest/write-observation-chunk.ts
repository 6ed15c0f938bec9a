import { copyTextValue, type Db, type Queryable } from '../db/db.js';
import { resolveEmuIds } from '../emus/emu-registry.js';
import type { ObservationRecord } from './observation-record.js';
import { recordRejects, type RejectedLine } from './record-rejects.js';

export interface PendingRow {
  line: number;
  record: ObservationRecord;
}

export interface ChunkResult {
  accepted: number;
  /** New observations per service day. */
  days: Map<number, number>;
}

const COLUMNS = [
  'batch_id',
  'file',
  'line',
  'observed_at',
  'service_day',
  'service_date_given',
  'train_code',
  'train_codes',
  'emu_id',
  'emu_code',
  'source',
  'ref',
  'dedup_key',
] as const;

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/** The rows whose dedup key is neither stored already nor repeated earlier in the chunk. */
async function newRows(tx: Queryable, rows: readonly PendingRow[]): Promise<PendingRow[]> {
  const keys = rows.map((r) => r.record.dedupKey);
  const stored = await tx.query<{ k: string }>(
    `SELECT encode(o.dedup_key, 'hex') AS k
       FROM observations o
      WHERE o.dedup_key = ANY (SELECT decode(k, 'hex') FROM unnest($1::text[]) AS k)`,
    [keys],
  );
  const seen = new Set(stored.rows.map((r) => r.k));
  const fresh: PendingRow[] = [];
  for (const r of rows) {
    if (seen.has(r.record.dedupKey)) continue;
    seen.add(r.record.dedupKey);
    fresh.push(r);
  }
  return fresh;
}

/**
 * COPY text for the rows. Hot: one call per line ingested. Numbers, booleans and the validated
 * train codes (letters, digits, "/") need no escaping; free text goes through copyTextValue.
 */
function copyData(
  batchId: number,
  file: string,
  rows: readonly PendingRow[],
  emuIds: Map<string, number>,
): string {
  const fileText = copyTextValue(file);
  const parts: string[] = [];
  for (const { line, record: r } of rows) {
    parts.push(
      `${batchId}\t${fileText}\t${line}\t${r.observedAt}\t${r.serviceDay}\t${r.serviceDateGiven ? 't' : 'f'}\t` +
        `${r.trainCode}\t{${r.trainCodes.join(',')}}\t${emuIds.get(r.emuUnit)!}\t${copyTextValue(r.emuCode)}\t` +
        `${copyTextValue(r.source)}\t${copyTextValue(r.ref)}\t\\\\x${r.dedupKey}\n`,
    );
  }
  return parts.join('');
}

type RowWriter = (
  tx: Queryable,
  rows: PendingRow[],
  data: (rows: PendingRow[]) => string,
) => Promise<Map<number, number>>;

/**
 * The fast path: drop rows already stored (one index probe per key), then COPY the rest
 * straight into observations. Another ingester may store one of the same sightings between the
 * probe and the COPY; the unique index then refuses the chunk and the caller retries it on the
 * safe path.
 */
const copyNewRows: RowWriter = async (tx, rows, data) => {
  const fresh = await newRows(tx, rows);
  if (fresh.length > 0) await tx.copyFrom('observations', COLUMNS, data(fresh));
  const days = new Map<number, number>();
  for (const r of fresh) days.set(r.record.serviceDay, (days.get(r.record.serviceDay) ?? 0) + 1);
  return days;
};

/** The safe path: COPY into a temporary table, then INSERT ... ON CONFLICT DO NOTHING. */
const insertIgnoringDuplicates: RowWriter = async (tx, rows, data) => {
  await tx.query(
    `CREATE TEMP TABLE observations_stage ON COMMIT DROP AS SELECT ${COLUMNS.join(', ')} FROM observations WITH NO DATA`,
  );
  await tx.copyFrom('observations_stage', COLUMNS, data(rows));
  const inserted = await tx.query<{ service_day: number; n: number }>(
    `WITH ins AS (
       INSERT INTO observations (${COLUMNS.join(', ')})
       SELECT ${COLUMNS.join(', ')} FROM observations_stage ORDER BY line
       ON CONFLICT (dedup_key) DO NOTHING
       RETURNING service_day
     )
     SELECT service_day, count(*)::int AS n FROM ins GROUP BY service_day`,
  );
  return new Map(inserted.rows.map((r) => [r.service_day, r.n]));
};

async function writeChunk(
  db: Db,
  writer: RowWriter,
  batchId: number,
  file: string,
  rows: PendingRow[],
  rejects: RejectedLine[],
  emuCache: Map<string, number>,
): Promise<ChunkResult> {
  return db.transaction(async (tx) => {
    const emuIds = await resolveEmuIds(
      tx,
      rows.map((r) => r.record.emuUnit),
      emuCache,
    );
    const days = await writer(tx, rows, (some) => copyData(batchId, file, some, emuIds));
    await recordRejects(tx, batchId, file, rejects);
    let accepted = 0;
    for (const n of days.values()) accepted += n;
    return { accepted, days };
  });
}

/**
 * Stores one chunk of a file's good lines and its rejected lines, in one transaction.
 * `emuCache` (written EMU code -> emuId) may be shared by the chunks of one ingestion.
 */
export async function writeObservationChunk(
  db: Db,
  batchId: number,
  file: string,
  rows: PendingRow[],
  rejects: RejectedLine[],
  emuCache: Map<string, number> = new Map(),
): Promise<ChunkResult> {
  // EMUs registered by a transaction that rolls back do not exist: the shared cache learns a
  // chunk's new entries only once its transaction has committed.
  let local = new Map(emuCache);
  let result: ChunkResult;
  try {
    result = await writeChunk(db, copyNewRows, batchId, file, rows, rejects, local);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    local = new Map(emuCache);
    result = await writeChunk(db, insertIgnoringDuplicates, batchId, file, rows, rejects, local);
  }
  for (const [written, id] of local) emuCache.set(written, id);
  return result;
}
