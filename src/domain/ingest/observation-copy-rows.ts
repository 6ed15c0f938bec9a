import { copyTextValue } from '../../shared/db/db.js';
import { RowBytes } from './copy-row-bytes.js';
import { DedupKeys, hexWord } from './dedup-key-set.js';
import { FLAG_NONE, POSITION_NONE, type ScannedLine } from './ndjson-line-scan.js';
import { emuIdOf } from './scanned-emu-code.js';
import { dedupDigest } from './scanned-line-digest.js';
import { writeInt } from './scan-digits.js';
import { FORMATION_POSITIONS, type ObservationRecord } from './observation-record.js';
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
const BACKSLASH = 0x5c;
const HEX = encoder.encode('0123456789abcdef');
const POSITION_BYTES = FORMATION_POSITIONS.map((p) => encoder.encode(p));

/** A boolean or NULL in COPY text. */
function flagText(flag: boolean | null): string {
  return flag === null ? '\\N' : flag ? 't' : 'f';
}

/** A scanned flag (FLAG_NONE, 0 or 1) in COPY text at `at`; returns where it ends. */
/**
 * The end of a row, from the tab before its key: the key as stored (the service day, then the
 * first 224 bits of the digest, in hex), position, fault, spare and the line feed. Returns the
 * offset after it.
 */
function writeRowTail(
  o: Uint8Array,
  at: number,
  key: Int32Array,
  position: number,
  fault: number,
  spare: number,
): number {
  o[at++] = TAB;
  o[at++] = BACKSLASH;
  o[at++] = BACKSLASH;
  o[at++] = 0x78;
  for (let k = 0; k < 8; k++) {
    const word = key[k]!;
    for (let shift = 28; shift >= 0; shift -= 4) o[at++] = HEX[(word >>> shift) & 15]!;
  }
  o[at++] = TAB;
  if (position === POSITION_NONE) {
    o[at++] = BACKSLASH;
    o[at++] = 0x4e;
  } else {
    const name = POSITION_BYTES[position - 1]!;
    for (let j = 0; j < name.length; j++) o[at++] = name[j]!;
  }
  o[at++] = TAB;
  at = writeFlag(o, at, fault);
  o[at++] = TAB;
  at = writeFlag(o, at, spare);
  o[at++] = LF;
  return at;
}

function writeFlag(o: Uint8Array, at: number, flag: number): number {
  if (flag === FLAG_NONE) {
    o[at++] = BACKSLASH;
    o[at++] = 0x4e;
  } else o[at++] = flag === 1 ? 0x74 : 0x66;
  return at;
}

/**
 * One accepted sighting given as its parts, checked and encoded by the caller as
 * toObservationRecord would make them (sources' lean path: v2-page-rows.ts), for addKnown. The
 * caller keeps one and fills it for each row: nothing of a row is allocated but its bytes.
 */
export interface KnownRow {
  line: number;
  observedAt: number;
  serviceDay: number;
  serviceDateGiven: boolean;
  /**
   * The train, one number (as normalizeTrainCode would write it: a prefix in use and a number in
   * its range): its prefix's bytes and its number. Its train_codes is the one-element array.
   */
  trainPrefix: Uint8Array;
  trainNumber: number;
  /** The unit as written, less any seat tail (ObservationRecord.emuUnit). */
  emuUnit: string;
  /** `emu_code<TAB>source<TAB>` in COPY text, escaped. */
  emuSource: Uint8Array;
  /** The ref's digits (a source's record id). */
  ref: number;
  /** The dedup key as 8 words: the service day, then the first 224 bits of its sha256. */
  key: Int32Array;
  /** POSITION_NONE, or 1 + the index of FORMATION_POSITIONS. */
  position: number;
  /** FLAG_NONE, 0 or 1. */
  fault: number;
  spare: number;
}

/** Tables of finished chunks, for the next ones (a thread parses one block at a time). */
const spareKeys: DedupKeys[] = [];

/** A scanned line's digest (one per thread: blocks are parsed one at a time). */
const DIGEST = new Int32Array(8);

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
   * Adds an accepted sighting from its checked parts (KnownRow): the same row add() renders for
   * the record toObservationRecord makes of the same sighting. Hot: one call per record pulled.
   */
  addKnown(r: KnownRow): void {
    this.valid++;
    const key = r.key;
    const emuId = this.emuIds.get(r.emuUnit);
    if (!this.keys.add(key)) {
      if (emuId === undefined) this.pendingIndexOf(r.emuUnit);
      return;
    }
    const out = this.out;
    out.reserve(this.prefixBytes.length + 2 * r.trainPrefix.length + r.emuSource.length + 200);
    out.copy(this.prefixBytes, 0, this.prefixBytes.length);
    const o = out.bytes;
    let at = writeInt(o, out.length, r.line);
    o[at++] = TAB;
    at = writeInt(o, at, r.observedAt);
    o[at++] = TAB;
    at = writeInt(o, at, r.serviceDay);
    o[at++] = TAB;
    o[at++] = r.serviceDateGiven ? 0x74 : 0x66;
    o[at++] = TAB;
    out.length = at;
    out.copy(r.trainPrefix, 0, r.trainPrefix.length);
    at = writeInt(o, out.length, r.trainNumber);
    o[at++] = TAB;
    o[at++] = 0x7b;
    out.length = at;
    out.copy(r.trainPrefix, 0, r.trainPrefix.length);
    at = writeInt(o, out.length, r.trainNumber);
    o[at++] = 0x7d;
    o[at++] = TAB;
    out.length = at;
    if (emuId !== undefined) {
      out.length = writeInt(o, out.length, emuId);
    } else {
      this.pending.offsets.push(out.length);
      this.pending.unitIndexes.push(this.pendingIndexOf(r.emuUnit));
      out.copy(PLACEHOLDER_BYTES, 0, EMU_ID_DIGITS);
    }
    o[out.length++] = TAB;
    out.copy(r.emuSource, 0, r.emuSource.length);
    at = writeInt(o, out.length, r.ref);
    out.length = writeRowTail(o, at, key, r.position, r.fault, r.spare);
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
    out.length = writeRowTail(o, out.length, key, s.position, s.fault, s.spare);
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
