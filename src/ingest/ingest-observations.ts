import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/db.js';
import type { RejectedLine } from './record-rejects.js';
import { writeObservationChunk, type PendingRow } from './write-observation-chunk.js';
import { isProblem, toObservationRecord } from './observation-record.js';
import { readObservationLines, UnreadableFileError } from './read-observation-lines.js';

export interface IngestTotals {
  /** Non-blank data lines read (a CSV header is not counted). */
  read: number;
  accepted: number;
  /** Valid lines already stored (same source + ref, or same content). */
  duplicate: number;
  rejected: number;
}

export interface IngestFileResult extends IngestTotals {
  file: string;
  /** Set when the file itself could not be read; its lines were not counted. */
  error?: string;
}

export interface IngestResult extends IngestTotals {
  batchId: number;
  files: IngestFileResult[];
  /** Service days that received new observations, ascending. */
  serviceDays: number[];
}

export interface IngestOptions {
  /** Lines per bulk write (one transaction each). Default 20,000. */
  chunkSize?: number;
  /** Called after every chunk with the running totals of the whole call. */
  onProgress?: (totals: IngestTotals & { file: string }) => void;
}

/** The file or directory given to ingest does not exist. */
export class InputNotFoundError extends Error {
  constructor(readonly target: string) {
    super(`${target}: no such file or directory`);
    this.name = 'InputNotFoundError';
  }
}

const INPUT_FILE = /\.(ndjson|jsonl|json|csv)$/i;

/**
 * The files a path names: itself, or the input files directly inside a directory (by default
 * observation files: .ndjson, .jsonl, .json, .csv), by name.
 */
export async function listInputFiles(
  target: string,
  pattern: RegExp = INPUT_FILE,
): Promise<{ root: string; files: string[] }> {
  const st = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new InputNotFoundError(target);
    throw err;
  });
  if (!st.isDirectory()) return { root: path.dirname(target), files: [target] };
  const entries = await readdir(target, { withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && pattern.test(e.name))
    .map((e) => path.join(target, e.name))
    .sort();
  return { root: target, files };
}

/**
 * Ingests one observation file or every observation file of a directory.
 *
 * Good lines are bulk-written (COPY into a staging table, then one INSERT ... ON CONFLICT DO
 * NOTHING on the dedup key), bad lines go to ingest_rejects with file, line and reason, and
 * the one does not hold up the other. Parsing of the next chunk overlaps the write of the last.
 * A file that cannot be read at all is reported in its result and the other files proceed.
 */
export async function ingestObservations(
  db: Db,
  target: string,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const chunkSize = options.chunkSize ?? 20_000;
  const { root, files } = await listInputFiles(target);
  const batch = await db.query<{ id: number }>(
    `INSERT INTO ingest_batches (kind, files) VALUES ('observations', $1) RETURNING id`,
    [files.length],
  );
  const batchId = batch.rows[0]!.id;
  const total: IngestTotals = { read: 0, accepted: 0, duplicate: 0, rejected: 0 };
  const results: IngestFileResult[] = [];
  const days = new Map<number, number>();
  const emuCache = new Map<string, number>();

  for (const filePath of files) {
    const name = path.relative(root, filePath) || path.basename(filePath);
    const result: IngestFileResult = {
      file: name,
      read: 0,
      accepted: 0,
      duplicate: 0,
      rejected: 0,
    };
    let rows: PendingRow[] = [];
    let rejects: RejectedLine[] = [];
    let pending: Promise<void> = Promise.resolve();
    const flush = () => {
      const chunkRows = rows;
      const chunkRejects = rejects;
      rows = [];
      rejects = [];
      const previous = pending;
      pending = (async () => {
        await previous;
        const w = await writeObservationChunk(db, batchId, name, chunkRows, chunkRejects, emuCache);
        result.accepted += w.accepted;
        result.duplicate += chunkRows.length - w.accepted;
        result.rejected += chunkRejects.length;
        for (const [d, n] of w.days) days.set(d, (days.get(d) ?? 0) + n);
        options.onProgress?.({
          file: name,
          read: total.read + result.read,
          accepted: total.accepted + result.accepted,
          duplicate: total.duplicate + result.duplicate,
          rejected: total.rejected + result.rejected,
        });
      })();
      // Reported when awaited below; this only keeps Node from calling it unhandled meanwhile.
      pending.catch(() => {});
    };
    try {
      for await (const input of readObservationLines(filePath)) {
        result.read++;
        if ('error' in input) {
          rejects.push({ line: input.line, raw: input.raw, field: null, reason: input.error });
        } else {
          const rec = toObservationRecord(input.value);
          if (isProblem(rec))
            rejects.push({
              line: input.line,
              raw: input.raw,
              field: rec.field,
              reason: rec.reason,
            });
          else rows.push({ line: input.line, record: rec });
        }
        if (rows.length + rejects.length >= chunkSize) {
          // Bound memory: at most one chunk being written while the next one is parsed.
          await pending;
          flush();
        }
      }
      flush();
      await pending;
    } catch (err) {
      await pending.catch(() => {});
      if (!(err instanceof UnreadableFileError) && !isFsError(err)) throw err;
      result.error =
        err instanceof UnreadableFileError ? err.message : `${name}: ${(err as Error).message}`;
    }
    results.push(result);
    total.read += result.read;
    total.accepted += result.accepted;
    total.duplicate += result.duplicate;
    total.rejected += result.rejected;
  }
  await db.query(
    `UPDATE ingest_batches SET finished_at = now(), lines_read = $2, accepted = $3, duplicate = $4, rejected = $5
      WHERE id = $1`,
    [batchId, total.read, total.accepted, total.duplicate, total.rejected],
  );
  return { batchId, ...total, files: results, serviceDays: [...days.keys()].sort((a, b) => a - b) };
}

function isFsError(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    typeof (err as { code: unknown }).code === 'string' &&
    /^E[A-Z]+$/.test((err as { code: string }).code)
  );
}
