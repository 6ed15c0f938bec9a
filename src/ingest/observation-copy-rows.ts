import { copyTextValue } from '../db/db.js';
import { isProblem, toObservationRecord, type ObservationRecord } from './observation-record.js';
import type { RejectedLine } from './record-rejects.js';

/**
 * A chunk's rows as COPY text (UTF-8). Columns: batch_id, file, line, observed_at, service_day,
 * service_date_given, train_code, train_codes, emu_id, emu_code, source, ref, dedup_key
 * (write-observation-chunk.ts). A row whose EMU was not registered yet, as far as the thread
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
}

const EMU_ID_DIGITS = 10;
const EMU_ID_PLACEHOLDER = '0'.repeat(EMU_ID_DIGITS);
const encoder = new TextEncoder();

/**
 * Rows of COPY text encoded into one growing byte array as they come, a few hundred at a time:
 * the rendered strings die young instead of surviving, with the whole chunk, into the old
 * generation.
 */
class CopyTextBytes {
  private bytes = new Uint8Array(1 << 20);
  private length = 0;
  private pending = '';
  private pendingRows = 0;

  push(row: string): void {
    this.pending += row;
    if (++this.pendingRows === 256) this.flush();
  }

  /** How many bytes were pushed so far. */
  byteLength(): number {
    this.flush();
    return this.length;
  }

  /** The bytes; a view of a buffer of their own (transferable). */
  finish(): Uint8Array {
    this.flush();
    return this.bytes.subarray(0, this.length);
  }

  private flush(): void {
    if (this.pending === '') return;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = this.length + this.pending.length * 3;
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.length += encoder.encodeInto(this.pending, this.bytes.subarray(this.length)).written;
    this.pending = '';
    this.pendingRows = 0;
  }
}

/**
 * Collects one chunk's lines, rendering each accepted one as COPY text as it comes. `emuIds`
 * (written unit -> emu id) holds the units known to be registered; a row naming another unit
 * gets a placeholder id (see RenderedRows).
 */
export class ChunkBuilder {
  read = 0;
  valid = 0;
  readonly rejects: RejectedLine[] = [];
  private readonly seen = new Set<string>();
  /** batch_id and file, the same on every row. */
  private readonly prefix: string;
  private readonly out = new CopyTextBytes();
  private readonly days = new Map<number, number>();
  private readonly pending: PendingEmuIds = { units: [], offsets: [], unitIndexes: [] };
  private readonly pendingUnits = new Map<string, number>();

  constructor(
    batchId: number,
    file: string,
    private readonly emuIds: ReadonlyMap<string, number> = new Map(),
  ) {
    this.prefix = `${batchId}\t${copyTextValue(file)}\t`;
  }

  reject(line: number, raw: string, field: string | null, reason: string): void {
    this.rejects.push({ line, raw, field, reason });
  }

  /**
   * Adds one accepted record. Hot: one call per line ingested. Numbers, booleans and the
   * validated train codes (letters, digits, "/") need no escaping; free text goes through
   * copyTextValue.
   */
  add(line: number, r: ObservationRecord): void {
    this.valid++;
    if (this.seen.has(r.dedupKey)) {
      // A repeat stores no row, but its written form of the unit is still registered as an
      // alias (CR400AF2001 beside CR400AF-2001), as every accepted line's form always was.
      if (!this.emuIds.has(r.emuUnit) && !this.pendingUnits.has(r.emuUnit)) {
        this.pendingUnits.set(r.emuUnit, this.pending.units.push(r.emuUnit) - 1);
      }
      return;
    }
    this.seen.add(r.dedupKey);
    const head =
      `${this.prefix}${line}\t${r.observedAt}\t${r.serviceDay}\t${r.serviceDateGiven ? 't' : 'f'}\t` +
      `${r.trainCode}\t{${r.trainCodes.join(',')}}\t`;
    const tail = `\t${copyTextValue(r.emuCode)}\t${copyTextValue(r.source)}\t${copyTextValue(r.ref)}\t\\\\x${r.dedupKey}\n`;
    const emuId = this.emuIds.get(r.emuUnit);
    if (emuId !== undefined) {
      this.out.push(head + emuId + tail);
    } else {
      this.out.push(head);
      let unit = this.pendingUnits.get(r.emuUnit);
      if (unit === undefined) {
        unit = this.pending.units.push(r.emuUnit) - 1;
        this.pendingUnits.set(r.emuUnit, unit);
      }
      this.pending.offsets.push(this.out.byteLength());
      this.pending.unitIndexes.push(unit);
      this.out.push(EMU_ID_PLACEHOLDER + tail);
    }
    this.days.set(r.serviceDay, (this.days.get(r.serviceDay) ?? 0) + 1);
  }

  finish(): ParsedChunk {
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
}

/**
 * Parses a block of whole NDJSON lines exactly as the line reader does (read-observation-lines:
 * lines split at \r\n, \n or a lone \r; a byte-order mark dropped from line 1; blank lines
 * skipped and not counted; a line that is not JSON refused with JSON.parse's message), then
 * validates each value with toObservationRecord. Runs in a parse worker thread, or in-process.
 */
export function parseNdjsonBlock(block: NdjsonBlock): ParsedChunk {
  const text = Buffer.from(
    block.bytes.buffer,
    block.bytes.byteOffset,
    block.bytes.byteLength,
  ).toString('utf8');
  const chunk = new ChunkBuilder(block.batchId, block.file, block.emuIds);
  // One line at a time (no array of the block's lines kept alive while it is parsed). A block
  // ends with a line break except at the end of a file without one; an empty rest after the
  // last break is not a line.
  let line = block.firstLine;
  let cr = text.indexOf('\r');
  for (let start = 0; start < text.length; line++) {
    const lf = text.indexOf('\n', start);
    if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    let end: number;
    let next: number;
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      end = cr;
      next = text.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1;
    } else {
      end = lf === -1 ? text.length : lf;
      next = end + 1;
    }
    let raw = text.slice(start, end);
    start = next;
    if (line === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    chunk.read++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      chunk.reject(line, raw, null, `not valid JSON: ${(err as Error).message}`);
      continue;
    }
    const rec = toObservationRecord(value);
    if (isProblem(rec)) chunk.reject(line, raw, rec.field, rec.reason);
    else chunk.add(line, rec);
  }
  return chunk.finish();
}
