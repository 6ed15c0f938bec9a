import type { Db, Queryable } from '../../shared/db/db.js';
import { resolveEmuIds } from '../emus/emu-registry.js';
import { fillPendingEmuIds, type ParsedChunk, type RenderedRows } from './observation-copy-rows.js';
import { recordRejects } from './record-rejects.js';
import { markSightingDaysStale } from '../records/stale-days.js';
import { serviceDayOf } from '../../shared/time/service-day.js';

export interface ChunkResult {
  accepted: number;
  /** New observations per service day. */
  days: Map<number, number>;
  /**
   * Whether some row was already stored (or stored meanwhile by another ingester): the next
   * chunks of the file should not try the optimistic COPY.
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
  'position',
  'fault',
  'spare',
] as const;

/**
 * A map that reads through to `base` and keeps what is set in itself (iterating gives only
 * those): resolveEmuIds gets and sets entries, and the caller moves them into `base` once the
 * transaction that registered them has committed.
 */
class CacheOverlay extends Map<string, number> {
  constructor(private readonly base: ReadonlyMap<string, number>) {
    super();
  }

  override get(key: string): number | undefined {
    return super.get(key) ?? this.base.get(key);
  }

  override has(key: string): boolean {
    return super.has(key) || this.base.has(key);
  }
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

async function* once(bytes: Uint8Array): AsyncGenerator<Buffer> {
  yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function daysMap(flat: readonly number[]): Map<number, number> {
  const days = new Map<number, number>();
  for (let i = 0; i < flat.length; i += 2) days.set(flat[i]!, flat[i + 1]!);
  return days;
}

/** How a chunk's rows reach observations; both store the same rows. */
type RowWriter = (
  tx: Queryable,
  rows: RenderedRows,
) => Promise<{ days: Map<number, number>; sawStored: boolean }>;

/**
 * The optimistic path, for a file whose chunks so far were all new: COPY the chunk's rows
 * (distinct keys already) straight into observations, without looking their keys up first. If
 * one is stored already, the unique index refuses the COPY (at that row: little is wasted), the
 * transaction rolls back and the caller writes the chunk the safe way. A first ingestion of a
 * file thus costs what a plain COPY into the indexed table costs, in three round trips a chunk
 * (BEGIN, COPY, COMMIT).
 */
const copyOptimistically: RowWriter = async (tx, rows) => {
  if (rows.bytes.byteLength > 0) await tx.copyFrom('observations', COLUMNS, once(rows.bytes));
  return { days: daysMap(rows.days), sawStored: false };
};

/**
 * The safe path, once a key was found stored: COPY into a temporary table, then INSERT ... ON
 * CONFLICT DO NOTHING in line order, so Postgres drops the keys stored already (by an earlier
 * file or chunk, or by another ingester racing this one).
 */
const insertIgnoringDuplicates: RowWriter = async (tx, rows) => {
  if (rows.bytes.byteLength === 0) return { days: new Map(), sawStored: true };
  await tx.query(
    `CREATE TEMP TABLE observations_stage ON COMMIT DROP AS SELECT ${COLUMNS.join(', ')} FROM observations WITH NO DATA`,
  );
  await tx.copyFrom('observations_stage', COLUMNS, once(rows.bytes));
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
  chunk: ParsedChunk,
  emuCache: Map<string, number>,
  commitAsync: boolean,
  alsoInTransaction: WriteChunkOptions['alsoInTransaction'],
): Promise<ChunkResult> {
  return db.transaction(async (tx) => {
    if (commitAsync) await tx.query('SET LOCAL synchronous_commit TO off');
    const rows = chunk.rows;
    if (rows.pending.units.length > 0)
      fillPendingEmuIds(rows, await resolveEmuIds(tx, rows.pending.units, emuCache));
    const { days, sawStored } = await writer(tx, rows);
    // The days these sightings may change are marked stale with them, in this transaction: a
    // committed sighting is never left unnoticed (the worker rebuilds the days: stale-days.ts).
    // One statement, whatever the number of days.
    if (days.size > 0)
      await markSightingDaysStale(tx, [...days.keys()], serviceDayOf(Date.now() / 1000));
    await recordRejects(tx, batchId, file, chunk.rejects);
    let accepted = 0;
    for (const n of days.values()) accepted += n;
    await alsoInTransaction?.(tx, accepted);
    return { accepted, days, sawStored };
  });
}

export interface WriteChunkOptions {
  /**
   * COPY first and fall back to the safe path only when the unique index refuses (true: for
   * files whose earlier chunks were all new), or take the safe path at once (false). Default
   * false.
   */
  optimistic?: boolean;
  /**
   * Commit without waiting for the WAL to reach the disk (synchronous_commit off for this
   * transaction): the caller ends with a synchronous commit of its own, which flushes the WAL
   * up to it, this chunk's commit included. Default false.
   */
  commitAsync?: boolean;
  /**
   * Run in the chunk's transaction once its rows are stored (with how many were new), so that
   * what it writes commits with them or not at all: a puller's cursor past the pages stored.
   */
  alsoInTransaction?: (tx: Queryable, accepted: number) => Promise<void>;
}

/**
 * Stores one parsed chunk of a file (its distinct good lines and its rejected lines) in one
 * transaction. `emuCache` (written unit -> emuId) may be shared by the chunks of one
 * ingestion (the rows name their EMU ids already, but for those left pending). Whatever path a chunk takes, the same
 * rows are stored: the first line with a given dedup key, unless the key was stored already.
 */
export async function writeObservationChunk(
  db: Db,
  batchId: number,
  file: string,
  chunk: ParsedChunk,
  emuCache: Map<string, number> = new Map(),
  options: WriteChunkOptions = {},
): Promise<ChunkResult> {
  // EMUs registered by a transaction that rolls back do not exist: the shared cache learns a
  // chunk's new entries only once its transaction has committed. Meanwhile they are kept in
  // an overlay of their own (not a copy of the whole cache, which grows to thousands of units).
  const commitAsync = options.commitAsync ?? false;
  const also = options.alsoInTransaction;
  let local = new CacheOverlay(emuCache);
  let result: ChunkResult;
  try {
    const first = options.optimistic ? copyOptimistically : insertIgnoringDuplicates;
    result = await writeChunk(db, first, batchId, file, chunk, local, commitAsync, also);
  } catch (err) {
    if (!options.optimistic || !isUniqueViolation(err)) throw err;
    local = new CacheOverlay(emuCache);
    result = await writeChunk(
      db,
      insertIgnoringDuplicates,
      batchId,
      file,
      chunk,
      local,
      commitAsync,
      also,
    );
  }
  for (const [written, id] of local) emuCache.set(written, id);
  return result;
}
