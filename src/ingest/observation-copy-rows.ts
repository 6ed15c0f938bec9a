import { copyTextValue } from '../db/db.js';
import { isProblem, toObservationRecord, type ObservationRecord } from './observation-record.js';
import type { RejectedLine } from './record-rejects.js';

/**
 * Accepted lines of one chunk, as columns, ready to COPY: each row's COPY text up to its emu_id
 * column (`heads`) and from the column after it, newline included (`tails`), so that the thread
 * that parsed the lines also renders them, and the writer only puts in the EMU ids it resolves.
 * Columns: batch_id, file, line, observed_at, service_day, service_date_given, train_code,
 * train_codes | emu_id | emu_code, source, ref, dedup_key (write-observation-chunk.ts).
 */
export interface CopyRows {
  lines: number[];
  serviceDays: number[];
  /** Hex dedup keys (observation-record.ts). */
  dedupKeys: string[];
  /** The unit as written (the alias the registry resolves to an emu id). */
  emuUnits: string[];
  heads: string[];
  tails: string[];
}

/** One parsed chunk: accepted rows, refused lines, and how many non-blank lines were read. */
export interface ParsedChunk {
  read: number;
  rows: CopyRows;
  rejects: RejectedLine[];
}

export function emptyCopyRows(): CopyRows {
  return { lines: [], serviceDays: [], dedupKeys: [], emuUnits: [], heads: [], tails: [] };
}

/**
 * Appends one accepted record. Hot: one call per line ingested. Numbers, booleans and the
 * validated train codes (letters, digits, "/") need no escaping; free text goes through
 * copyTextValue. `fileText` is the file name already escaped.
 */
export function appendCopyRow(
  rows: CopyRows,
  batchId: number,
  fileText: string,
  line: number,
  r: ObservationRecord,
): void {
  rows.lines.push(line);
  rows.serviceDays.push(r.serviceDay);
  rows.dedupKeys.push(r.dedupKey);
  rows.emuUnits.push(r.emuUnit);
  rows.heads.push(
    `${batchId}\t${fileText}\t${line}\t${r.observedAt}\t${r.serviceDay}\t${r.serviceDateGiven ? 't' : 'f'}\t` +
      `${r.trainCode}\t{${r.trainCodes.join(',')}}\t`,
  );
  rows.tails.push(
    `\t${copyTextValue(r.emuCode)}\t${copyTextValue(r.source)}\t${copyTextValue(r.ref)}\t\\\\x${r.dedupKey}\n`,
  );
}

/** A block of an NDJSON file: whole lines, the number of its first line, the file's name. */
export interface NdjsonBlock {
  text: string;
  firstLine: number;
  batchId: number;
  file: string;
}

/**
 * Parses a block of whole NDJSON lines exactly as the line reader does (read-observation-lines:
 * lines split at \r\n, \n or a lone \r; a byte-order mark dropped from line 1; blank lines
 * skipped and not counted; a line that is not JSON refused with JSON.parse's message), then
 * validates each value with toObservationRecord. Runs in a parse worker thread, or in-process.
 */
export function parseNdjsonBlock(block: NdjsonBlock): ParsedChunk {
  const fileText = copyTextValue(block.file);
  const rows = emptyCopyRows();
  const rejects: RejectedLine[] = [];
  const pieces = block.text.split(/\r\n|\n|\r/);
  // A block ends with a line break except at the end of a file without one: the empty piece
  // after the last break is not a line.
  if (pieces[pieces.length - 1] === '') pieces.pop();
  let read = 0;
  for (let i = 0; i < pieces.length; i++) {
    const line = block.firstLine + i;
    let raw = pieces[i]!;
    if (line === 1) raw = raw.replace(/^\uFEFF/, '');
    if (raw.trim() === '') continue;
    read++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      rejects.push({ line, raw, field: null, reason: `not valid JSON: ${(err as Error).message}` });
      continue;
    }
    const rec = toObservationRecord(value);
    if (isProblem(rec)) rejects.push({ line, raw, field: rec.field, reason: rec.reason });
    else appendCopyRow(rows, block.batchId, fileText, line, rec);
  }
  return { read, rows, rejects };
}
