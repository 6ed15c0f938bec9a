import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../../shared/db/db.js';
import { BlockBuffers, readLineBlocks } from './ndjson-blocks.js';
import { ChunkBuilder, type ParsedChunk } from './observation-copy-rows.js';
import { isProblem, toObservationRecord } from './observation-record.js';
import { ParsePool } from './parse-pool.js';
import { UnreadableFileError } from './read-observation-lines.js';
import { detectObservationFormat } from './formats/formats.js';
import type { FormatContext, ObservationFormat } from './formats/observation-format.js';
import { writeObservationChunk } from './write-observation-chunk.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { isFsError } from '../../shared/io/fs-error.js';
import { readEmuFormPolicy, type EmuFormPolicy } from '../emus/emu-forms.js';

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
  /** The format found from the file's content (formats/formats.ts), when one was. */
  format?: string;
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
  /**
   * Lines per bulk write (one transaction each). Default 10,000: larger chunks write no faster
   * and raise the worker's peak RSS (a few chunks are in memory at once: one being written, the
   * next ones parsed).
   */
  chunkSize?: number;
  /**
   * Worker threads that parse, validate and render NDJSON files in blocks of chunkSize lines
   * while this thread writes. Default: the cores less one, at least 1, at most 4. 0: every
   * file is read line by line on this thread (read-observation-lines.ts), as CSV files are.
   */
  parseThreads?: number;
  /**
   * Inputs whose NDJSON files hold fewer bytes than this in total are read on this thread: a
   * worker's start (tens of ms) costs more than it saves. Default 4 MiB.
   */
  parallelMinBytes?: number;
  /**
   * Accept EMU codes of no known model form that the fleet does not name (the setting
   * ALLOW_UNKNOWN_EMU_FORMS; emu-forms.ts). Default false: such lines are rejected.
   */
  allowUnknownEmuForms?: boolean;
  /**
   * The service day (YYYYMMDD) of files whose rows do not say it and whose name does not
   * either (the daily export; --date). A file whose name says another day is refused.
   */
  serviceDate?: string;
  /** The largest JSON array file read (bounded-json.ts). */
  maxJsonBytes?: number;
  /** Called after every chunk with the running totals of the whole call. */
  onProgress?: (totals: IngestTotals & { file: string }) => void;
}

/** The file or directory given to ingest does not exist. */
export class InputNotFoundError extends EmutrackError {
  constructor(readonly target: string) {
    super('input_not_found', `${target}: no such file or directory`);
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
 * Good lines are bulk-written (COPY straight into observations while a file's chunks are new,
 * else COPY into a staging table and INSERT ... ON CONFLICT DO NOTHING on the dedup key: see
 * write-observation-chunk.ts), bad lines go to ingest_rejects with file, line and reason, and
 * the one does not hold up the other. Parsing of the next chunk overlaps the write of the last.
 * A file that cannot be read at all is reported in its result and the other files proceed.
 */
export async function ingestObservations(
  db: Db,
  target: string,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const chunkSize = options.chunkSize ?? 10_000;
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
  const emuForms = await readEmuFormPolicy(db, options.allowUnknownEmuForms ?? false);

  const nameOf = (f: string) => path.relative(root, f) || path.basename(f);
  // A file whose format cannot be told is reported in its place (below) and the others go on.
  const formats = await Promise.all(
    files.map((f) =>
      detectObservationFormat(f, nameOf(f)).catch((err: unknown) =>
        err instanceof Error ? err : new Error(String(err)),
      ),
    ),
  );
  const isNdjson = (i: number) => !(formats[i] instanceof Error) && formats[i]!.name === 'ndjson';
  const ndjsonBytes = (
    await Promise.all(files.map(async (f, i) => (isNdjson(i) ? (await stat(f)).size : 0)))
  ).reduce((a, b) => a + b, 0);
  const context = { serviceDate: options.serviceDate, maxJsonBytes: options.maxJsonBytes };
  const threads = options.parseThreads ?? Math.max(1, Math.min(4, os.availableParallelism() - 1));
  const pool =
    threads > 0 && ndjsonBytes > 0 && ndjsonBytes >= (options.parallelMinBytes ?? 4 << 20)
      ? new ParsePool(threads)
      : undefined;

  // Every file's chunks come parsed, in order, from one stream that runs ahead of the writer
  // across file boundaries (the next file's first blocks are parsed while the last file's
  // last chunks are written); each chunk is written in its own transaction.
  const items = readAhead(
    fileChunks(
      files,
      formats,
      context,
      root,
      pool,
      batchId,
      chunkSize,
      threads,
      emuCache,
      emuForms,
    ),
  )[Symbol.asyncIterator]();
  try {
    let item = await items.next();
    for (const [i, filePath] of files.entries()) {
      const name = nameOf(filePath);
      const format = formats[i]!;
      const result: IngestFileResult = {
        file: name,
        ...(format instanceof Error ? {} : { format: format.name }),
        read: 0,
        accepted: 0,
        duplicate: 0,
        rejected: 0,
      };
      // Optimistic COPY while the file's chunks are new; the safe path once a key was stored.
      let optimistic = true;
      for (; !item.done && item.value.file === i; item = await items.next()) {
        const it = item.value;
        // A file that failed is reported; its later chunks (parsed already) are dropped.
        if (result.error !== undefined) continue;
        if ('error' in it) {
          const err = it.error;
          if (!(err instanceof UnreadableFileError) && !isFsError(err)) throw err;
          result.error =
            err instanceof UnreadableFileError ? err.message : `${name}: ${(err as Error).message}`;
          continue;
        }
        const chunk = it.chunk;
        result.read += chunk.read;
        // Chunks commit without waiting for the disk; the batch's closing update below
        // commits synchronously, which flushes the WAL up to it: when ingestObservations
        // returns, every chunk is as durable as it was with synchronous commits.
        const w = await writeObservationChunk(db, batchId, name, chunk, emuCache, {
          optimistic,
          commitAsync: true,
        });
        optimistic &&= !w.sawStored;
        // Its rows are written: the buffer can take a later chunk's.
        pool?.recycle(chunk.rows.bytes.buffer as ArrayBuffer);
        result.accepted += w.accepted;
        result.duplicate += chunk.valid - w.accepted;
        result.rejected += chunk.rejects.length;
        for (const [d, n] of w.days) days.set(d, (days.get(d) ?? 0) + n);
        options.onProgress?.({
          file: name,
          read: total.read + result.read,
          accepted: total.accepted + result.accepted,
          duplicate: total.duplicate + result.duplicate,
          rejected: total.rejected + result.rejected,
        });
      }
      results.push(result);
      total.read += result.read;
      total.accepted += result.accepted;
      total.duplicate += result.duplicate;
      total.rejected += result.rejected;
    }
  } finally {
    await items.return?.(undefined);
    await pool?.close();
  }
  await db.query(
    `UPDATE ingest_batches SET finished_at = now(), lines_read = $2, accepted = $3, duplicate = $4, rejected = $5
      WHERE id = $1`,
    [batchId, total.read, total.accepted, total.duplicate, total.rejected],
  );
  return { batchId, ...total, files: results, serviceDays: [...days.keys()].sort((a, b) => a - b) };
}

/**
 * A file read line by line on this thread by its format's reader, in chunks of chunkSize lines.
 * Every format's lines are validated here alike. The next chunk is parsed while the consumer
 * writes the last (the generator runs ahead by one).
 */
async function* parsedLines(
  filePath: string,
  format: ObservationFormat,
  context: FormatContext,
  batchId: number,
  chunkSize: number,
  emuIds: ReadonlyMap<string, number>,
  emuForms: EmuFormPolicy,
): AsyncGenerator<ParsedChunk> {
  let chunk = new ChunkBuilder(batchId, context.name, emuIds);
  for await (const input of format.read(filePath, context)) {
    chunk.read++;
    if ('error' in input) {
      chunk.reject(input.line, input.raw, input.field ?? null, input.error);
    } else {
      const rec = toObservationRecord(input.value, emuForms);
      if (isProblem(rec)) {
        // Named as the file names the field (emu_no), not as the observation does (emuCode).
        const field = rec.field === null ? null : (format.fieldNames?.[rec.field] ?? rec.field);
        const reason =
          field === rec.field ? rec.reason : rec.reason.replace(`${rec.field}:`, `${field}:`);
        chunk.reject(input.line, input.raw, field, reason);
      } else chunk.add(input.line, rec);
    }
    if (chunk.valid + chunk.rejects.length >= chunkSize) {
      yield chunk.finish();
      chunk = new ChunkBuilder(batchId, context.name, emuIds);
    }
  }
  if (chunk.read > 0) yield chunk.finish();
}

/** A parsed chunk of the file at index `file`, or why that file could not be read further. */
type FileItem = { file: number; chunk: ParsedChunk } | { file: number; error: unknown };

/**
 * The chunks of every file, in file order. NDJSON files (when there is a pool) are cut into
 * blocks of chunkSize lines on this thread (a memchr per line) and parsed by the pool's
 * threads, up to `ahead` blocks at once, across file boundaries; other files are read line by
 * line on this thread by their format's reader. Each block takes the EMU ids known so far, so that its thread renders
 * whole COPY rows (the writer puts in the ids of units not registered yet). A file that fails
 * yields its error in its place, and the next files go on. Memory stays bounded: at most
 * `ahead` parsed blocks wait for the writer.
 */
async function* fileChunks(
  files: readonly string[],
  formats: readonly (ObservationFormat | Error)[],
  context: Omit<FormatContext, 'name'>,
  root: string,
  pool: ParsePool | undefined,
  batchId: number,
  chunkSize: number,
  ahead: number,
  emuIds: ReadonlyMap<string, number>,
  emuForms: EmuFormPolicy,
): AsyncGenerator<FileItem> {
  const queue: Promise<FileItem>[] = [];
  // Blocks are read into buffers that the parse threads give back.
  const buffers = new BlockBuffers();
  try {
    for (const [file, filePath] of files.entries()) {
      const name = path.relative(root, filePath) || path.basename(filePath);
      const format = formats[file]!;
      if (format instanceof Error) {
        while (queue.length > 0) yield await queue.shift()!;
        yield { file, error: format };
        continue;
      }
      if (pool && format.name === 'ndjson') {
        try {
          for await (const block of readLineBlocks(filePath, chunkSize, buffers)) {
            queue.push(
              pool.parse({ ...block, batchId, file: name, emuIds, emuForms }).then(
                (chunk) => {
                  if (chunk.input) buffers.give(chunk.input);
                  return { file, chunk };
                },
                (error: unknown) => ({ file, error }),
              ),
            );
            if (queue.length > ahead) yield await queue.shift()!;
          }
        } catch (error) {
          queue.push(Promise.resolve({ file, error }));
        }
        continue;
      }
      while (queue.length > 0) yield await queue.shift()!;
      try {
        const chunks = parsedLines(
          filePath,
          format,
          { ...context, name },
          batchId,
          chunkSize,
          emuIds,
          emuForms,
        );
        for await (const chunk of chunks) yield { file, chunk };
      } catch (error) {
        yield { file, error };
      }
    }
    while (queue.length > 0) yield await queue.shift()!;
  } finally {
    await Promise.allSettled(queue);
  }
}

/** The source's items, fetching the next one while the consumer works on the last. */
async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const r = await next;
      if (r.done) return;
      next = it.next();
      // Reported when awaited above; this only keeps Node from calling it unhandled meanwhile.
      next.catch(() => {});
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}
