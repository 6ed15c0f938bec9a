import type { Db, Queryable } from '../db/db.js';
import { resolveEmuIds } from '../emus/emu-registry.js';
import type { CopyRows } from './observation-copy-rows.js';
import { recordRejects, type RejectedLine } from './record-rejects.js';

export interface ChunkResult {
  accepted: number;
  /** New observations per service day. */
  days: Map<number, number>;
  /**
   * Whether some row was already stored (or stored meanwhile by another ingester): the next
   * chunks of the file should look their keys up before writing.
   */
  sawStored: boolean;
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

/** Indexes of the rows whose dedup key is not repeated earlier in the chunk nor in `stored`. */
function freshIndexes(rows: CopyRows, stored: ReadonlySet<string>): number[] {
  const seen = new Set(stored);
  const fresh: number[] = [];
  for (let i = 0; i < rows.dedupKeys.length; i++) {
    const key = rows.dedupKeys[i]!;
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(i);
  }
  return fresh;
}

/** The chunk's dedup keys that are stored already (one index probe per key). */
async function storedKeys(tx: Queryable, rows: CopyRows): Promise<Set<string>> {
  const stored = await tx.query<{ k: string }>(
    `SELECT encode(o.dedup_key, 'hex') AS k
       FROM observations o
      WHERE o.dedup_key = ANY (SELECT decode(k, 'hex') FROM unnest($1::text[]) AS k)`,
    [rows.dedupKeys],
  );
  return new Set(stored.rows.map((r) => r.k));
}

/** COPY text of the given rows, with their resolved EMU ids put in. */
function copyData(rows: CopyRows, which: readonly number[], emuIds: Map<string, number>): string {
  const parts: string[] = new Array<string>(which.length * 3);
  let k = 0;
  for (const i of which) {
    parts[k++] = rows.heads[i]!;
    parts[k++] = String(emuIds.get(rows.emuUnits[i]!)!);
    parts[k++] = rows.tails[i]!;
  }
  return parts.join('');
}

function daysOf(rows: CopyRows, which: readonly number[]): Map<number, number> {
  const days = new Map<number, number>();
  for (const i of which) {
    const d = rows.serviceDays[i]!;
    days.set(d, (days.get(d) ?? 0) + 1);
  }
  return days;
}

/** How a chunk's rows reach observations; all three store the same rows. */
type RowWriter = (
  tx: Queryable,
  rows: CopyRows,
  emuIds: Map<string, number>,
) => Promise<{ days: Map<number, number>; sawStored: boolean }>;

/**
 * The optimistic path, for a file whose chunks so far were all new: COPY the chunk's distinct
 * rows straight into observations under a savepoint, without looking their keys up first. If
 * one is stored already, the unique index refuses the COPY (at that row: little is wasted), the
 * savepoint is rolled back and the chunk goes the probing path. A first ingestion of a file
 * thus costs what a plain COPY into the indexed table costs.
 */
const copyOptimistically: RowWriter = async (tx, rows, emuIds) => {
  const fresh = freshIndexes(rows, new Set());
  if (fresh.length === 0) return { days: new Map(), sawStored: false };
  await tx.query('SAVEPOINT optimistic_copy');
  try {
    await tx.copyFrom('observations', COLUMNS, copyData(rows, fresh, emuIds));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await tx.query('ROLLBACK TO SAVEPOINT optimistic_copy');
    const probed = await copyNewRows(tx, rows, emuIds);
    return { days: probed.days, sawStored: true };
  }
  await tx.query('RELEASE SAVEPOINT optimistic_copy');
  return { days: daysOf(rows, fresh), sawStored: false };
};

/**
 * The probing path: drop rows already stored (one index probe per key), then COPY the rest
 * straight into observations. Another ingester may store one of the same sightings between the
 * probe and the COPY; the unique index then refuses the chunk and the caller retries it on the
 * safe path.
 */
const copyNewRows: RowWriter = async (tx, rows, emuIds) => {
  const stored = await storedKeys(tx, rows);
  const fresh = freshIndexes(rows, stored);
  if (fresh.length > 0) await tx.copyFrom('observations', COLUMNS, copyData(rows, fresh, emuIds));
  return { days: daysOf(rows, fresh), sawStored: stored.size > 0 };
};

/** The safe path: COPY into a temporary table, then INSERT ... ON CONFLICT DO NOTHING. */
const insertIgnoringDuplicates: RowWriter = async (tx, rows, emuIds) => {
  await tx.query(
    `CREATE TEMP TABLE observations_stage ON COMMIT DROP AS SELECT ${COLUMNS.join(', ')} FROM observations WITH NO DATA`,
  );
  const all = rows.dedupKeys.map((_, i) => i);
  await tx.copyFrom('observations_stage', COLUMNS, copyData(rows, all, emuIds));
  const inserted = await tx.query<{ service_day: number; n: number }>(
    `WITH ins AS (
       INSERT INTO observations (${COLUMNS.join(', ')})
       SELECT ${COLUMNS.join(', ')} FROM observations_stage ORDER BY line
       ON CONFLICT (dedup_key) DO NOTHING
       RETURNING service_day
     )
     SELECT service_day, count(*)::int AS n FROM ins GROUP BY service_day`,
  );
  return { days: new Map(inserted.rows.map((r) => [r.service_day, r.n])), sawStored: true };
};

async function writeChunk(
  db: Db,
  writer: RowWriter,
  batchId: number,
  file: string,
  rows: CopyRows,
  rejects: RejectedLine[],
  emuCache: Map<string, number>,
): Promise<ChunkResult> {
  return db.transaction(async (tx) => {
    const emuIds = await resolveEmuIds(tx, rows.emuUnits, emuCache);
    const { days, sawStored } = await writer(tx, rows, emuIds);
    await recordRejects(tx, batchId, file, rejects);
    let accepted = 0;
    for (const n of days.values()) accepted += n;
    return { accepted, days, sawStored };
  });
}

export interface WriteChunkOptions {
  /**
   * Look every key up before writing (true), or COPY first and look up only when the unique
   * index refuses (false: for files whose earlier chunks were all new). Default true.
   */
  probe?: boolean;
}

/**
 * Stores one chunk of a file's good lines and its rejected lines, in one transaction.
 * `emuCache` (written EMU code -> emuId) may be shared by the chunks of one ingestion. Whatever
 * path a chunk takes, the same rows are stored: the first line with a given dedup key, unless
 * the key was stored already.
 */
export async function writeObservationChunk(
  db: Db,
  batchId: number,
  file: string,
  rows: CopyRows,
  rejects: RejectedLine[],
  emuCache: Map<string, number> = new Map(),
  options: WriteChunkOptions = {},
): Promise<ChunkResult> {
  // EMUs registered by a transaction that rolls back do not exist: the shared cache learns a
  // chunk's new entries only once its transaction has committed.
  let local = new Map(emuCache);
  let result: ChunkResult;
  const first = (options.probe ?? true) ? copyNewRows : copyOptimistically;
  try {
    result = await writeChunk(db, first, batchId, file, rows, rejects, local);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    local = new Map(emuCache);
    result = await writeChunk(db, insertIgnoringDuplicates, batchId, file, rows, rejects, local);
  }
  for (const [written, id] of local) emuCache.set(written, id);
  return result;
}
