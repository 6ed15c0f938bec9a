import { copyTextValue } from '../../shared/db/db.js';
import {
  FLAG_NONE,
  LineScanner,
  POSITION_NONE,
  newScannedLine,
  type ScannedLine,
} from './ndjson-line-scan.js';
import { emuIdOf } from './scanned-emu-code.js';
import { dedupDigest } from './scanned-line-digest.js';
import { writeInt } from './scan-digits.js';
import {
  FORMATION_POSITIONS,
  isProblem,
  toObservationRecord,
  type ObservationRecord,
} from './observation-record.js';
import { STRICT_EMU_FORMS, type EmuFormPolicy } from '../emus/emu-forms.js';
import type { RejectedLine } from './record-rejects.js';

/**
 * A chunk's rows as COPY text (UTF-8). Columns: batch_id, file, line, observed_at, service_day,
 * service_date_given, train_code, train_codes, emu_id, emu_code, source, ref, dedup_key,
 * position, fault, spare (write-observation-chunk.ts). A row whose EMU was not registered yet, as far as the thread
 * that rendered it knew, holds ten zeros as its emu_id, at a byte offset listed in `pending`,
 * for the writer to overwrite with the id it resolves in the transaction that stores the row
 * (integer input takes leading zeros: 0000000042 is 42).
 */
export interface RenderedRows {
  bytes: Uint8Array;
  /** [serviceDay, rows, serviceDay, rows, ...] */
  days: number[];
  /** Rows whose emu_id is left to the writer. */
  pending: PendingEmuIds;
}

export interface PendingEmuIds {
  /** The distinct units as written (the aliases the registry resolves to emu ids). */
  units: string[];
  /** Per row left: the byte offset of its ten-digit emu_id ... */
  offsets: number[];
  /** ... and the index of its unit in `units`. */
  unitIndexes: number[];
}

/**
 * One parsed chunk: refused lines, how many non-blank lines were read and how many were valid,
 * and the valid lines less those repeating a dedup key earlier in the chunk (the first line
 * with a key is the one kept), in line order.
 */
export interface ParsedChunk {
  read: number;
  valid: number;
  rejects: RejectedLine[];
  rows: RenderedRows;
  /** The block's buffer, given back by a parse thread to read another block into. */
  input?: ArrayBuffer;
}

const EMU_ID_DIGITS = 10;
const EMU_ID_PLACEHOLDER = '0'.repeat(EMU_ID_DIGITS);
const encoder = new TextEncoder();
const PLACEHOLDER_BYTES = encoder.encode(EMU_ID_PLACEHOLDER);
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const HEX = encoder.encode('0123456789abcdef');
const POSITION_BYTES = FORMATION_POSITIONS.map((p) => encoder.encode(p));

/** A boolean or NULL in COPY text. */
function flagText(flag: boolean | null): string {
  return flag === null ? '\\N' : flag ? 't' : 'f';
}

/** A scanned flag (FLAG_NONE, 0 or 1) in COPY text at `at`; returns where it ends. */
function writeFlag(o: Uint8Array, at: number, flag: number): number {
  if (flag === FLAG_NONE) {
    o[at++] = BACKSLASH;
    o[at++] = 0x4e;
  } else o[at++] = flag === 1 ? 0x74 : 0x66;
  return at;
}

/**
 * A chunk's COPY text, written as bytes into one growing array: rows of scanned lines are
 * copied from the block's bytes, others are encoded from their strings. Nothing survives a row
 * but the bytes.
 */
class RowBytes {
  bytes: Uint8Array;
  length = 0;

  constructor(output: number | ArrayBuffer) {
    this.bytes = typeof output === 'number' ? new Uint8Array(output) : new Uint8Array(output);
  }

  reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.length + n, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Copies src[start..end); the caller reserved room. */
  copy(src: Uint8Array, start: number, end: number): void {
    const out = this.bytes;
    let at = this.length;
    for (let i = start; i < end; i++) out[at++] = src[i]!;
    this.length = at;
  }

  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.reserve(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /** The bytes; a view of a buffer of their own (transferable). */
  finish(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * The dedup keys of a chunk, each as 8 words (the service day, then the first 224 bits of the
 * sha256), in an open-addressing table: the same comparison as the keys' text, without keeping
 * a string per row alive through the chunk.
 */
class DedupKeys {
  private words: Int32Array;
  private filled: Uint8Array;
  private size = 0;

  constructor(slots: number) {
    this.words = new Int32Array(slots * 8);
    this.filled = new Uint8Array(slots);
  }

  /** Empties the table for another chunk. */
  clear(): void {
    this.filled.fill(0);
    this.size = 0;
  }

  /** Adds `key` (8 words); false when it was there already. */
  add(key: Int32Array): boolean {
    if ((this.size + 1) * 2 > this.filled.length) this.grow();
    return this.put(key);
  }

  private put(key: Int32Array): boolean {
    const words = this.words;
    const mask = this.filled.length - 1;
    for (let i = (key[1]! ^ key[0]!) & mask; ; i = (i + 1) & mask) {
      const at = i * 8;
      if (this.filled[i] === 0) {
        for (let k = 0; k < 8; k++) words[at + k] = key[k]!;
        this.filled[i] = 1;
        this.size++;
        return true;
      }
      let k = 0;
      while (k < 8 && words[at + k] === key[k]) k++;
      if (k === 8) return false;
    }
  }

  private grow(): void {
    const { words, filled } = this;
    this.words = new Int32Array(words.length * 2);
    this.filled = new Uint8Array(filled.length * 2);
    this.size = 0;
    const key = new Int32Array(8);
    for (let i = 0; i < filled.length; i++) {
      if (filled[i] === 0) continue;
      for (let k = 0; k < 8; k++) key[k] = words[i * 8 + k]!;
      this.put(key);
    }
  }
}

/** Tables of finished chunks, for the next ones (a thread parses one block at a time). */
const spareKeys: DedupKeys[] = [];

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
}

/** Eight hex digits of `hex` from `at`, as a 32-bit word. */
function hexWord(hex: string, at: number): number {
  let w = 0;
  for (let k = 0; k < 8; k++) w = (w << 4) | hexValue(hex.charCodeAt(at + k));
  return w;
}

/**
 * Collects one chunk's lines, rendering each accepted one as COPY text as it comes. `emuIds`
 * (written unit -> emu id) holds the units known to be registered; a row naming another unit
 * gets a placeholder id (see RenderedRows). Lines come validated (add, from the line reader or
 * a line the scanner left) or scanned (addScanned): both render the same bytes for the same
 * line.
 */
export class ChunkBuilder {
  read = 0;
  valid = 0;
  readonly rejects: RejectedLine[] = [];
  /** Taken from the spare tables; given back by finish(). */
  private readonly keys = spareKeys.pop() ?? new DedupKeys(1 << 14);
  private readonly key = new Int32Array(8);
  /** batch_id and file, the same on every row, as text and as bytes. */
  private readonly prefix: string;
  private readonly prefixBytes: Uint8Array;
  private readonly out: RowBytes;
  private readonly days = new Map<number, number>();
  private readonly pending: PendingEmuIds = { units: [], offsets: [], unitIndexes: [] };
  private readonly pendingUnits = new Map<string, number>();

  /** `output`: a buffer to render into, or the capacity of a new one. */
  constructor(
    batchId: number,
    file: string,
    private readonly emuIds: ReadonlyMap<string, number> = new Map(),
    output: number | ArrayBuffer = 1 << 20,
  ) {
    this.prefix = `${batchId}\t${copyTextValue(file)}\t`;
    this.prefixBytes = encoder.encode(this.prefix);
    this.out = new RowBytes(output);
  }

  reject(line: number, raw: string, field: string | null, reason: string): void {
    this.rejects.push({ line, raw, field, reason });
  }

  private pendingIndexOf(unit: string): number {
    let index = this.pendingUnits.get(unit);
    if (index === undefined) {
      index = this.pending.units.push(unit) - 1;
      this.pendingUnits.set(unit, index);
    }
    return index;
  }

  private countDay(day: number): void {
    this.days.set(day, (this.days.get(day) ?? 0) + 1);
  }

  /**
   * Adds one accepted record. Numbers, booleans and the validated train codes (letters,
   * digits, "/") need no escaping; free text goes through copyTextValue.
   */
  add(line: number, r: ObservationRecord): void {
    this.valid++;
    const key = this.key;
    for (let k = 0; k < 8; k++) key[k] = hexWord(r.dedupKey, k * 8);
    if (!this.keys.add(key)) {
      // A repeat stores no row, but its written form of the unit is still registered as an
      // alias (CR400AF2001 beside CR400AF-2001), as every accepted line's form always was.
      if (!this.emuIds.has(r.emuUnit)) this.pendingIndexOf(r.emuUnit);
      return;
    }
    const head =
      `${this.prefix}${line}\t${r.observedAt}\t${r.serviceDay}\t${r.serviceDateGiven ? 't' : 'f'}\t` +
      `${r.trainCode}\t{${r.trainCodes.join(',')}}\t`;
    const tail = `\t${copyTextValue(r.emuCode)}\t${copyTextValue(r.source)}\t${copyTextValue(r.ref)}\t\\\\x${r.dedupKey}\t${r.position ?? '\\N'}\t${flagText(r.fault)}\t${flagText(r.spare)}\n`;
    const emuId = this.emuIds.get(r.emuUnit);
    if (emuId !== undefined) {
      this.out.text(head + emuId + tail);
    } else {
      this.out.text(head);
      this.pending.offsets.push(this.out.length);
      this.pending.unitIndexes.push(this.pendingIndexOf(r.emuUnit));
      this.out.text(EMU_ID_PLACEHOLDER + tail);
    }
    this.countDay(r.serviceDay);
  }

  /**
   * Adds a line the scanner accepted (bytes of the block, see ndjson-line-scan.ts): the same
   * row as add() renders for the record the validator makes of that line, copied from the
   * line's bytes. Hot: one call per line of a block.
   */
  addScanned(line: number, bytes: Uint8Array, s: ScannedLine): void {
    this.valid++;
    const digest = DIGEST;
    dedupDigest(bytes, s, digest);
    const key = this.key;
    key[0] = s.serviceDay;
    for (let k = 1; k < 8; k++) key[k] = digest[k - 1]!;
    const emu = s.emu!;
    const known = emuIdOf(emu, this.emuIds);
    if (!this.keys.add(key)) {
      if (!known) this.pendingIndexOf(emu.unit);
      return;
    }
    const out = this.out;
    out.reserve(
      this.prefixBytes.length +
        (s.trainCodeEnd - s.trainCodeStart) +
        (s.trainArrayEnd - s.trainArrayStart) +
        (s.emuEnd - s.emuStart) +
        (s.sourceEnd - s.sourceStart) +
        (s.refEnd - s.refStart) +
        176,
    );
    const o = out.bytes;
    out.copy(this.prefixBytes, 0, this.prefixBytes.length);
    let at = writeInt(o, out.length, line);
    o[at++] = TAB;
    if (s.observedAtStart >= 0) {
      out.length = at;
      out.copy(bytes, s.observedAtStart, s.observedAtEnd);
      at = out.length;
    } else {
      at = writeInt(o, at, s.observedAt);
    }
    o[at++] = TAB;
    at = writeInt(o, at, s.serviceDay);
    o[at++] = TAB;
    o[at++] = s.serviceDateGiven ? 0x74 : 0x66;
    o[at++] = TAB;
    out.length = at;
    out.copy(s.trainBytes, s.trainCodeStart, s.trainCodeEnd);
    out.bytes[out.length++] = TAB;
    out.copy(s.trainBytes, s.trainArrayStart, s.trainArrayEnd);
    out.bytes[out.length++] = TAB;
    if (known) {
      out.copy(emu.bytes, emu.idStart, emu.idEnd);
    } else {
      this.pending.offsets.push(out.length);
      this.pending.unitIndexes.push(this.pendingIndexOf(emu.unit));
      out.copy(PLACEHOLDER_BYTES, 0, EMU_ID_DIGITS);
    }
    o[out.length++] = TAB;
    out.copy(bytes, s.emuStart, s.emuEnd);
    o[out.length++] = TAB;
    out.copy(bytes, s.sourceStart, s.sourceEnd);
    o[out.length++] = TAB;
    if (s.refStart >= 0) {
      out.copy(bytes, s.refStart, s.refEnd);
    } else {
      o[out.length++] = BACKSLASH;
      o[out.length++] = 0x4e;
    }
    at = out.length;
    o[at++] = TAB;
    o[at++] = BACKSLASH;
    o[at++] = BACKSLASH;
    o[at++] = 0x78;
    // The key as stored: the service day, then the first 224 bits of the digest, in hex.
    for (let k = 0; k < 8; k++) {
      const word = key[k]!;
      for (let shift = 28; shift >= 0; shift -= 4) o[at++] = HEX[(word >>> shift) & 15]!;
    }
    // position, fault, spare.
    o[at++] = TAB;
    if (s.position === POSITION_NONE) {
      o[at++] = BACKSLASH;
      o[at++] = 0x4e;
    } else {
      const name = POSITION_BYTES[s.position - 1]!;
      for (let j = 0; j < name.length; j++) o[at++] = name[j]!;
    }
    o[at++] = TAB;
    at = writeFlag(o, at, s.fault);
    o[at++] = TAB;
    at = writeFlag(o, at, s.spare);
    o[at++] = LF;
    out.length = at;
    this.countDay(s.serviceDay);
  }

  /** The chunk; the builder must not be used after. */
  finish(): ParsedChunk {
    this.keys.clear();
    spareKeys.push(this.keys);
    const days: number[] = [];
    for (const [day, n] of this.days) days.push(day, n);
    return {
      read: this.read,
      valid: this.valid,
      rejects: this.rejects,
      rows: { bytes: this.out.finish(), days, pending: this.pending },
    };
  }
}

/** Writes resolved ids (written unit -> emu id) over the placeholders of the rows left pending. */
export function fillPendingEmuIds(rows: RenderedRows, emuIds: ReadonlyMap<string, number>): void {
  const { units, offsets, unitIndexes } = rows.pending;
  const digits = units.map((unit) => {
    const text = String(emuIds.get(unit)!).padStart(EMU_ID_DIGITS, '0');
    if (text.length !== EMU_ID_DIGITS) throw new RangeError(`emu id ${text} is too long`);
    return encoder.encode(text);
  });
  for (let i = 0; i < offsets.length; i++) rows.bytes.set(digits[unitIndexes[i]!]!, offsets[i]!);
}

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
 * Parses a block of whole NDJSON lines exactly as the line reader does (read-observation-lines:
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

/** A scanned line's digest (one per thread: blocks are parsed one at a time). */
const DIGEST = new Int32Array(8);

/** The scanner's output for the line at hand (one per thread: blocks are parsed one at a time). */
const SCANNED = newScannedLine();
