import { LineScanner, newScannedLine } from './ndjson-line-scan.js';
import { isProblem, toObservationRecord } from './observation-record.js';
import { ChunkBuilder, type ParsedChunk } from './observation-copy-rows.js';
import { STRICT_EMU_FORMS, type EmuFormPolicy } from '../emus/emu-forms.js';

const LF = 0x0a;
const CR = 0x0d;

/** A block of an NDJSON file: whole lines (UTF-8), the number of its first line, the file's name. */
export interface NdjsonBlock {
  bytes: Uint8Array;
  firstLine: number;
  batchId: number;
  file: string;
  /** Written unit -> emu id, for the units known to be registered (see RenderedRows). */
  emuIds?: ReadonlyMap<string, number>;
  /** Which EMU codes may register a unit (emu-forms.ts); default the known model families. */
  emuForms?: EmuFormPolicy;
  /**
   * A buffer whose rows were written already, for this thread to keep and render later rows
   * into (ndjson-parse-worker.ts): reusing buffers spares both threads the allocation of a
   * megabyte or two per chunk and the garbage collections such allocations set off.
   */
  spare?: ArrayBuffer;
}

/**
 * Parses a block of whole NDJSON lines exactly as the line reader does (formats/ndjson-format.ts:
 * lines split at \r\n, \n or a lone \r; a byte-order mark dropped from line 1; blank lines
 * skipped and not counted; a line that is not JSON refused with JSON.parse's message), then
 * validates each value with toObservationRecord. Lines of the common shape are scanned from
 * their bytes instead (ndjson-line-scan.ts: the same values, no JSON.parse, nothing allocated
 * per line); any other line is decoded and parsed the general way. Runs in a parse worker
 * thread, or in-process.
 */
export function parseNdjsonBlock(
  block: NdjsonBlock,
  options: {
    /** false: every line the general way (tests compare the two). Default true. */
    scan?: boolean;
    /** Where to render the rows if it is large enough; else a new buffer. */
    output?: ArrayBuffer;
    /** The scanner (and its code tables) to scan with, kept by a parse worker; else a new one. */
    scanner?: LineScanner;
  } = {},
): ParsedChunk {
  const scan = options.scan ?? true;
  const scanner = options.scanner ?? new LineScanner();
  const bytes = block.bytes;
  const end = bytes.length;
  // Rows are longer than their lines: the batch, file, day and key are added.
  const capacity = 2 * end + 4096;
  const chunk = new ChunkBuilder(
    block.batchId,
    block.file,
    block.emuIds,
    options.output && options.output.byteLength >= capacity ? options.output : capacity,
  );
  const scanned = SCANNED;
  const emuForms = block.emuForms ?? STRICT_EMU_FORMS;
  let line = block.firstLine;
  for (let start = 0; start < end; line++) {
    if (scan && scanner.scanLine(bytes, start, end, scanned, emuForms)) {
      chunk.read++;
      chunk.addScanned(line, bytes, scanned);
      start = scanned.next;
      continue;
    }
    start = parseLine(chunk, bytes, start, line, emuForms);
  }
  return chunk.finish();
}

/**
 * The line at `start` the general way (decoded, JSON.parse, toObservationRecord), as the line
 * reader parses it; returns where the next line starts. A block ends with a line break except
 * at the end of a file without one; an empty rest after the last break is not a line.
 */
function parseLine(
  chunk: ChunkBuilder,
  bytes: Uint8Array,
  start: number,
  line: number,
  emuForms: EmuFormPolicy,
): number {
  const end = bytes.length;
  let lineEnd = start;
  while (lineEnd < end && bytes[lineEnd] !== LF && bytes[lineEnd] !== CR) lineEnd++;
  const next = bytes[lineEnd] === CR && bytes[lineEnd + 1] === LF ? lineEnd + 2 : lineEnd + 1;
  let raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, lineEnd - start).toString('utf8');
  if (line === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
  if (raw.trim() === '') return next;
  chunk.read++;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    chunk.reject(line, raw, null, `not valid JSON: ${(err as Error).message}`);
    return next;
  }
  const rec = toObservationRecord(value, emuForms);
  if (isProblem(rec)) chunk.reject(line, raw, rec.field, rec.reason);
  else chunk.add(line, rec);
  return next;
}

/** The scanner's output for the line at hand (one per thread: blocks are parsed one at a time). */
const SCANNED = newScannedLine();
