import type { Db } from '../../shared/db/db.js';
import { STRICT_EMU_FORMS, type EmuFormPolicy } from '../emus/emu-forms.js';
import { ChunkBuilder } from './observation-copy-rows.js';
import { isProblem, toObservationRecord } from './observation-record.js';
import type { RejectedLine } from './record-rejects.js';
import { writeObservationChunk } from './write-observation-chunk.js';

/** One observation given as a value (what an NDJSON line parses to), with where it came from. */
export interface ObservationValue {
  /** Its place in the input (1-based), as a file's line number: rejects are listed by it. */
  line: number;
  /** Its text as received, kept with a rejected line (a function: made only if it is refused). */
  raw: string | (() => string);
  value: unknown;
  /** Refused before validation (the caller could not make an observation of it), and why. */
  problem?: { field: string | null; reason: string };
}

export interface ValuesResult {
  accepted: number;
  /** Valid values already stored (same source + ref, or same content), or repeated here. */
  duplicate: number;
  rejected: number;
  /** The values refused, in order: their line, field and reason (as recorded in rejects). */
  rejects: readonly RejectedLine[];
  /** Service days that received new observations, ascending. */
  serviceDays: number[];
  /** Some valid value was stored already: the next values of the input should take the safe path. */
  sawStored: boolean;
}

function rawText(v: ObservationValue): string {
  return typeof v.raw === 'string' ? v.raw : v.raw();
}

/**
 * Adds one value to a chunk as ingestObservationValues does: refused with its problem, else
 * validated (toObservationRecord) and rendered, or refused naming the field as the upstream
 * names it (`fieldNames`: emuCode -> emu_no), as a file's formats do (ingest-observations.ts).
 */
export function addObservationValue(
  builder: ChunkBuilder,
  v: ObservationValue,
  emuForms: EmuFormPolicy,
  fieldNames?: Readonly<Record<string, string>>,
): void {
  builder.read++;
  if (v.problem) {
    builder.reject(v.line, rawText(v), v.problem.field, v.problem.reason);
    return;
  }
  const rec = toObservationRecord(v.value, emuForms);
  if (isProblem(rec)) {
    const field = rec.field === null ? null : (fieldNames?.[rec.field] ?? rec.field);
    const reason =
      field === rec.field ? rec.reason : rec.reason.replace(`${rec.field}:`, `${field}:`);
    builder.reject(v.line, rawText(v), field, reason);
  } else builder.add(v.line, rec);
}

/** Opens an ingest batch (ingest_batches) for inputs that are not files: `kind` says what. */
export async function openIngestBatch(db: Db, kind: string): Promise<number> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO ingest_batches (kind, files) VALUES ($1, 0) RETURNING id`,
    [kind],
  );
  return r.rows[0]!.id;
}

/** Closes a batch with its totals. */
export async function finishIngestBatch(
  db: Db,
  batchId: number,
  totals: { read: number; accepted: number; duplicate: number; rejected: number },
): Promise<void> {
  await db.query(
    `UPDATE ingest_batches SET finished_at = now(), lines_read = $2, accepted = $3, duplicate = $4, rejected = $5
      WHERE id = $1`,
    [batchId, totals.read, totals.accepted, totals.duplicate, totals.rejected],
  );
}

/**
 * Ingests observations given as values, in one transaction: the same validation
 * (toObservationRecord), dedup key, COPY rows, EMU registration, stale marks and rejects as a
 * file's lines get (ingest-observations.ts), so a sighting that comes from another server is
 * stored, deduplicated and rebuilt exactly as one read from a file. `file` names the input in
 * ingest_rejects and observations.file.
 */
export async function ingestObservationValues(
  db: Db,
  batchId: number,
  file: string,
  values: readonly ObservationValue[],
  options: {
    emuForms?: EmuFormPolicy;
    emuCache?: Map<string, number>;
    /** The upstream's names of observation fields (emuCode -> emu_no), for rejects. */
    fieldNames?: Readonly<Record<string, string>>;
    /**
     * COPY the values straight in, falling back to the safe path if one is stored already
     * (writeObservationChunk's `optimistic`): for values expected new. Default false.
     */
    optimistic?: boolean;
    /** Commit without waiting for the WAL (writeObservationChunk's `commitAsync`). Default false. */
    commitAsync?: boolean;
  } = {},
): Promise<ValuesResult> {
  const emuCache = options.emuCache ?? new Map<string, number>();
  const emuForms = options.emuForms ?? STRICT_EMU_FORMS;
  const builder = new ChunkBuilder(batchId, file, emuCache);
  for (const v of values) addObservationValue(builder, v, emuForms, options.fieldNames);
  const chunk = builder.finish();
  // The safe path by default: a pull repeats what it took before by design.
  const w = await writeObservationChunk(db, batchId, file, chunk, emuCache, {
    optimistic: options.optimistic ?? false,
    commitAsync: options.commitAsync ?? false,
  });
  return {
    accepted: w.accepted,
    duplicate: chunk.valid - w.accepted,
    rejected: chunk.rejects.length,
    rejects: chunk.rejects,
    serviceDays: [...w.days.keys()].sort((a, b) => a - b),
    sawStored: w.sawStored,
  };
}
