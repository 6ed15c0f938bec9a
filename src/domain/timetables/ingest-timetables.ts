import path from 'node:path';
import type { Db } from '../../shared/db/db.js';
import { listInputFiles } from '../ingest/ingest-observations.js';
import { isFsError } from '../../shared/io/fs-error.js';
import type { RejectedLine } from '../ingest/record-rejects.js';
import { storeTimetableChunk } from './store-timetables.js';
import { isTimetableProblem, toTimetableInput, type TimetableInput } from './timetable-input.js';
import { readTimetableFile } from './read-timetable-file.js';

export interface TimetableTotals {
  /** Timetables read (NDJSON lines that are not blank, or .json files). */
  read: number;
  /** Valid timetables. */
  accepted: number;
  /** Valid timetables that declared a new or changed version. */
  changed: number;
  /** Valid timetables already stored with the same content and validFrom: nothing changed. */
  unchanged: number;
  rejected: number;
}

export interface TimetableFileResult extends TimetableTotals {
  file: string;
  /** Set when the file could not be read at all. */
  error?: string;
}

export interface IngestTimetablesResult extends TimetableTotals {
  batchId: number;
  /** Distinct contents stored for the first time (new timetableIds). */
  newContents: number;
  files: TimetableFileResult[];
  /**
   * The earliest service day whose timetable in force changed for some train number, if any:
   * daily records from that day on get the new timetable (and attribution) when rebuilt.
   */
  changedFrom?: number;
}

export interface IngestTimetablesOptions {
  /** Timetables per transaction. Default 500. */
  chunkSize?: number;
}

const TIMETABLE_FILE = /\.(ndjson|jsonl|json)$/i;

/**
 * Ingests timetables from a file or from every .json/.ndjson/.jsonl file directly inside a
 * directory (in name order; see read-timetable-file.ts for the forms). A timetable that fails
 * validation (a bad field or stop) goes to ingest_rejects with its file, line and reason, naming
 * the field; the others are stored. Versions apply in file order (see coverage-versions.ts).
 */
export async function ingestTimetables(
  db: Db,
  target: string,
  options: IngestTimetablesOptions = {},
): Promise<IngestTimetablesResult> {
  const chunkSize = options.chunkSize ?? 500;
  const { root, files } = await listInputFiles(target, TIMETABLE_FILE);
  const batch = await db.query<{ id: number }>(
    `INSERT INTO ingest_batches (kind, files) VALUES ('timetables', $1) RETURNING id`,
    [files.length],
  );
  const batchId = batch.rows[0]!.id;
  const result: IngestTimetablesResult = {
    batchId,
    read: 0,
    accepted: 0,
    changed: 0,
    unchanged: 0,
    rejected: 0,
    newContents: 0,
    files: [],
  };

  for (const filePath of files) {
    const name = path.relative(root, filePath) || path.basename(filePath);
    const f: TimetableFileResult = {
      file: name,
      read: 0,
      accepted: 0,
      changed: 0,
      unchanged: 0,
      rejected: 0,
    };
    let good: TimetableInput[] = [];
    let bad: RejectedLine[] = [];
    const flush = async () => {
      if (good.length === 0 && bad.length === 0) return;
      const stored = await storeTimetableChunk(db, batchId, name, good, bad);
      f.accepted += good.length;
      f.changed += stored.changed;
      f.unchanged += stored.unchanged;
      f.rejected += bad.length;
      result.newContents += stored.newContents;
      if (
        stored.changedFrom !== undefined &&
        (result.changedFrom === undefined || stored.changedFrom < result.changedFrom)
      )
        result.changedFrom = stored.changedFrom;
      good = [];
      bad = [];
    };
    try {
      for await (const input of readTimetableFile(filePath)) {
        f.read++;
        if ('error' in input) {
          bad.push({ line: input.line, raw: input.raw, field: null, reason: input.error });
        } else {
          const t = toTimetableInput(input.value);
          if (isTimetableProblem(t))
            bad.push({ line: input.line, raw: input.raw, field: t.field, reason: t.reason });
          else good.push(t);
        }
        if (good.length + bad.length >= chunkSize) await flush();
      }
      await flush();
    } catch (err) {
      if (!isFsError(err)) throw err;
      f.error = `${name}: ${(err as Error).message}`;
    }
    result.files.push(f);
    for (const k of ['read', 'accepted', 'changed', 'unchanged', 'rejected'] as const)
      result[k] += f[k];
  }
  await db.query(
    `UPDATE ingest_batches SET finished_at = now(), lines_read = $2, accepted = $3, duplicate = $4, rejected = $5
      WHERE id = $1`,
    [batchId, result.read, result.accepted, result.unchanged, result.rejected],
  );
  return result;
}
