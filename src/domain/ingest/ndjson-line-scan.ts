import { checkTrain, EARLIEST, LATEST } from './observation-record.js';
import { MalformedEmuCodeError, parseEmuCode } from '../emus/normalize-emu-code.js';
import { isKnownFamily, STRICT_EMU_FORMS, type EmuFormPolicy } from '../emus/emu-forms.js';
import { hash } from 'node:crypto';
import { ByteTable } from './byte-table.js';
import {
  serviceDayFromYmd,
  serviceDayOf,
  InvalidServiceDateError,
} from '../../shared/time/service-day.js';

/**
 * A scanner for the common shape of an NDJSON sighting, working on the line's bytes: one flat
 * object whose keys are observedAt, trainCode, emuCode, source and optionally ref, serviceDate,
 * position (exactly "single", "first" or "second"), fault and spare (the literals true or false)
 * (each once, in any order, ASCII whitespace between tokens), observedAt an integer
 * of Unix seconds or an ISO time of the exact form 2026-08-14T08:30:00+08:00 (or ...Z), every
 * other value a string of printable ASCII without escapes, surrounding spaces or emptiness,
 * and every field valid. Such a line is what toObservationRecord(JSON.parse(line)) accepts,
 * and the scanner gives the same values (tests compare the two on odd and generated lines).
 * Anything else (escapes, non-ASCII bytes, other keys, numbers in other forms, a repeated key,
 * a value the validator refuses, bad JSON) is not scanned: the caller parses that line with
 * JSON.parse and validates it as before, so rejects and their messages stay the same.
 *
 * Nothing is allocated per scanned line: values are byte ranges of the block, the train and EMU
 * codes are looked up in tables keyed by their bytes, and the dedup key is hashed from bytes.
 */
export interface ScannedLine {
  /** Where the next line starts (after its line break). */
  next: number;
  /** observedAt in Unix seconds, and where its digits are when written as an integer (else -1). */
  observedAt: number;
  observedAtStart: number;
  observedAtEnd: number;
  serviceDay: number;
  serviceDateGiven: boolean;
  /**
   * The train code as stored (G4340/G4337) and as an array ({G4340,G4337}): where they are in
   * `trainBytes` (the train table's arena).
   */
  trainBytes: Uint8Array;
  trainCodeStart: number;
  trainCodeEnd: number;
  trainArrayStart: number;
  trainArrayEnd: number;
  emu: EmuEntry | undefined;
  emuStart: number;
  emuEnd: number;
  sourceStart: number;
  sourceEnd: number;
  /** -1 when the line has no ref. */
  refStart: number;
  refEnd: number;
  /** POSITION_NONE (not said), or the index + 1 of FORMATION_POSITIONS: 1 single, 2 first, 3 second. */
  position: number;
  /** FLAG_NONE (-1, not said), 0 false or 1 true. */
  fault: number;
  spare: number;
}

export const POSITION_NONE = 0;
export const FLAG_NONE = -1;

/**
 * A written EMU code, as validated: its canonical code (in `bytes`, the EMU table's arena) and
 * the written unit the registry resolves.
 */
export interface EmuEntry {
  ok: boolean;
  /** Parsed as a Fuxing or Hexie unit (not kept as it stands). */
  structured: boolean;
  /** Of a known model family (emu-forms.ts): accepted whatever the policy. */
  knownForm: boolean;
  /** The canonical code as a string (looked up in the policy's fleet codes when not knownForm). */
  canonical: string;
  bytes: Uint8Array;
  canonicalStart: number;
  canonicalEnd: number;
  unit: string;
  /**
   * The emu id of `unit` as `idsFrom` gave it (undefined: not there), and where it is as ASCII
   * digits in `bytes`.
   */
  id: number | undefined;
  idStart: number;
  idEnd: number;
  /** The map of known ids last asked for this unit. */
  idsFrom: ReadonlyMap<string, number> | undefined;
  /** The chunk that listed this unit as pending, and its index there. */
  pendingIn: object | undefined;
  pendingIndex: number;
}

const encoder = new TextEncoder();
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const D0 = 0x30;
const MAX_SOURCE = 64;
const MAX_REF = 200;
const MAX_TRAIN = 256;
const MAX_CANONICAL_EMU = 256;

/** A train code's bytes: where its stored text and its array are in the train arena (-1: malformed). */
interface TrainEntry {
  codeStart: number;
  codeEnd: number;
  arrayStart: number;
  arrayEnd: number;
}

const trains = new ByteTable<TrainEntry>(100_000);
const emus = new ByteTable<EmuEntry>(100_000);
const serviceDates = new Map<number, number | null>();

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

function trainOf(bytes: Uint8Array, start: number, end: number): TrainEntry {
  // No closure here: its captured variables would be allocated on every call.
  const h = ByteTable.hashOf(bytes, start, end);
  return trains.get(bytes, start, end, h) ?? addTrain(bytes, start, end, h);
}

function addTrain(bytes: Uint8Array, start: number, end: number, h: number): TrainEntry {
  return trains.add(bytes, start, end, h, () => {
    const codes = checkTrain(ascii(bytes, start, end));
    if (!Array.isArray(codes)) return { codeStart: -1, codeEnd: -1, arrayStart: -1, arrayEnd: -1 };
    const code = encoder.encode(codes.join('/'));
    const array = encoder.encode(`{${codes.join(',')}}`);
    const codeStart = trains.append(code, 0, code.length);
    const arrayStart = trains.append(array, 0, array.length);
    return {
      codeStart,
      codeEnd: codeStart + code.length,
      arrayStart,
      arrayEnd: arrayStart + array.length,
    };
  });
}

function newEmuEntry(bytes: Uint8Array, start: number, end: number): EmuEntry {
  const e: EmuEntry = {
    ok: false,
    structured: false,
    knownForm: false,
    canonical: '',
    bytes: emus.arena,
    canonicalStart: 0,
    canonicalEnd: 0,
    unit: '',
    id: undefined,
    idStart: 0,
    idEnd: 0,
    idsFrom: undefined,
    pendingIn: undefined,
    pendingIndex: -1,
  };
  // As checkEmu does (parseEmuCode, a malformed code refused), with whether the code parsed
  // as a Fuxing or Hexie unit (a model) or was kept as it stands.
  try {
    const parsed = parseEmuCode(ascii(bytes, start, end));
    const canonical = encoder.encode(parsed.code);
    e.ok = true;
    e.structured = parsed.model !== '';
    e.knownForm = parsed.family !== '' && isKnownFamily(parsed.family);
    e.canonical = parsed.code;
    e.canonicalStart = emus.append(canonical, 0, canonical.length);
    e.canonicalEnd = e.canonicalStart + canonical.length;
    e.unit = parsed.writtenUnit;
  } catch (err) {
    if (!(err instanceof MalformedEmuCodeError)) throw err;
  }
  e.bytes = emus.arena;
  return e;
}

/**
 * The emu id of an entry's unit in `emuIds`, as ASCII digits in e.bytes[e.idStart..e.idEnd);
 * false when the map lacks it. Asked once per unit and map (a unit's id never changes; a map
 * that gains it later only costs a placeholder, which the writer fills).
 */
export function emuIdOf(e: EmuEntry, emuIds: ReadonlyMap<string, number>): boolean {
  if (e.idsFrom !== emuIds) {
    const id = emuIds.get(e.unit);
    if (id !== e.id) {
      e.id = id;
      if (id !== undefined) {
        const digits = encoder.encode(String(id));
        e.idStart = emus.append(digits, 0, digits.length);
        e.idEnd = e.idStart + digits.length;
      }
    }
    e.idsFrom = emuIds;
  }
  // The arena may have grown (a new array) since the entry's bytes were written.
  e.bytes = emus.arena;
  return e.id !== undefined;
}

function isDigit(bytes: Uint8Array, i: number): boolean {
  return bytes[i]! >= D0 && bytes[i]! <= D0 + 9;
}

/**
 * Where the unit ends in a travel-code QR payload written in canonical characters (upper-case
 * letters, digits, single dashes): UNIT-CC or UNIT-CC-SSX (coach, seat), UNIT ending in four
 * digits; -1 for any other code. parseEmuCode strips such a tail (its TRAVEL_CODE_TAIL and
 * WRITTEN_TAIL match the same unit for these characters) when the unit is a Fuxing or Hexie
 * code, and the code then stands for the unit: same canonical code, same written unit.
 */
function travelUnitEnd(bytes: Uint8Array, start: number, end: number): number {
  let dash = false;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === 0x2d) {
      if (dash) return -1;
      dash = true;
    } else {
      dash = false;
      if (!((c >= 0x41 && c <= 0x5a) || (c >= D0 && c <= D0 + 9))) return -1;
    }
  }
  let coachEnd = end;
  const last = bytes[end - 1]!;
  if (last >= 0x41 && last <= 0x46) {
    // -S or -SS seat, then the coach.
    if (bytes[end - 3] === 0x2d && isDigit(bytes, end - 2)) coachEnd = end - 3;
    else if (bytes[end - 4] === 0x2d && isDigit(bytes, end - 3) && isDigit(bytes, end - 2))
      coachEnd = end - 4;
    else return -1;
  }
  const unitEnd = coachEnd - 3;
  if (unitEnd - 4 < start) return -1;
  if (bytes[unitEnd] !== 0x2d || !isDigit(bytes, coachEnd - 2) || !isDigit(bytes, coachEnd - 1))
    return -1;
  for (let i = unitEnd - 4; i < unitEnd; i++) if (!isDigit(bytes, i)) return -1;
  return unitEnd;
}

function emuOf(bytes: Uint8Array, start: number, end: number): EmuEntry {
  // No closure here: its captured variables would be allocated on every call.
  const h = ByteTable.hashOf(bytes, start, end);
  const e = emus.get(bytes, start, end, h);
  if (e !== undefined) return e;
  // A travel code names a seat: nearly every one is new. It is looked up by its unit, and not
  // kept.
  const unitEnd = travelUnitEnd(bytes, start, end);
  if (unitEnd > start) {
    const unit = emuOf(bytes, start, unitEnd);
    if (unit.ok && unit.structured) return unit;
  }
  return addEmu(bytes, start, end, h);
}

function addEmu(bytes: Uint8Array, start: number, end: number, h: number): EmuEntry {
  return emus.add(bytes, start, end, h, () => newEmuEntry(bytes, start, end));
}

/** The service day of a YYYYMMDD date given as the number it reads as; null if no such day. */
function serviceDayOfYmd(ymd: number): number | null {
  let day = serviceDates.get(ymd);
  if (day === undefined) {
    try {
      day = serviceDayFromYmd(String(ymd));
    } catch (err) {
      if (!(err instanceof InvalidServiceDateError)) throw err;
      day = null;
    }
    if (serviceDates.size > 100_000) serviceDates.clear();
    serviceDates.set(ymd, day);
  }
  return day;
}

function digit(bytes: Uint8Array, i: number): number {
  const d = bytes[i]! - D0;
  return d >= 0 && d <= 9 ? d : -1000;
}

function twoDigits(bytes: Uint8Array, i: number): number {
  return digit(bytes, i) * 10 + digit(bytes, i + 1);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * An ISO time of the form YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM / -HH:MM, at bytes
 * start..end (the string's content), as Unix seconds; NaN for any other form or an impossible
 * or out-of-range time (left to the validator, which says why).
 */
function isoSeconds(bytes: Uint8Array, start: number, end: number): number {
  const len = end - start;
  if (len !== 20 && len !== 25) return NaN;
  const b = start;
  if (
    bytes[b + 4] !== 0x2d ||
    bytes[b + 7] !== 0x2d ||
    bytes[b + 10] !== 0x54 ||
    bytes[b + 13] !== COLON ||
    bytes[b + 16] !== COLON
  )
    return NaN;
  const y = twoDigits(bytes, b) * 100 + twoDigits(bytes, b + 2);
  const mo = twoDigits(bytes, b + 5);
  const d = twoDigits(bytes, b + 8);
  const h = twoDigits(bytes, b + 11);
  const mi = twoDigits(bytes, b + 14);
  const s = twoDigits(bytes, b + 17);
  if (y < 2007 || y > 2099 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23) return NaN;
  if (mi < 0 || mi > 59 || s < 0 || s > 59) return NaN;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!)) return NaN;
  let offset = 0;
  if (len === 20) {
    if (bytes[b + 19] !== 0x5a) return NaN;
  } else {
    const sign = bytes[b + 19] === 0x2b ? 1 : bytes[b + 19] === 0x2d ? -1 : 0;
    const oh = twoDigits(bytes, b + 20);
    const om = twoDigits(bytes, b + 23);
    if (sign === 0 || bytes[b + 22] !== COLON || oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
    offset = sign * (oh * 3600 + om * 60);
  }
  const n = Date.UTC(y, mo - 1, d, h, mi, s) / 1000 - offset;
  return n >= EARLIEST && n < LATEST ? n : NaN;
}

/** Where a JSON string's content ends (its closing quote), if it is printable ASCII without escapes. */
function plainStringEnd(bytes: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) return i;
    if (c < SPACE || c > 0x7e || c === BACKSLASH) return -1;
  }
  return -1;
}

function skipSpace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && (bytes[i] === SPACE || bytes[i] === TAB)) i++;
  return i;
}

const OBSERVED_AT = 1;
const TRAIN_CODE = 2;
const EMU_CODE = 4;
const SOURCE = 8;
const REF = 16;
const SERVICE_DATE = 32;
const POSITION = 64;
const FAULT = 128;
const SPARE = 256;
const REQUIRED = OBSERVED_AT | TRAIN_CODE | EMU_CODE | SOURCE;

/** The known keys by length (fault and spare share one), with the bit each stands for. */
const KEYS_BY_LENGTH: { key: Uint8Array; bit: number }[][] = [];
for (const [bit, name] of [
  [OBSERVED_AT, 'observedAt'],
  [TRAIN_CODE, 'trainCode'],
  [EMU_CODE, 'emuCode'],
  [SOURCE, 'source'],
  [REF, 'ref'],
  [SERVICE_DATE, 'serviceDate'],
  [POSITION, 'position'],
  [FAULT, 'fault'],
  [SPARE, 'spare'],
] as const) {
  (KEYS_BY_LENGTH[name.length] ??= []).push({ key: encoder.encode(name), bit });
}

/** The bit of the known key at bytes start..end; 0 for any other key. */
function keyAt(bytes: Uint8Array, start: number, end: number): number {
  const len = end - start;
  const candidates = len < KEYS_BY_LENGTH.length ? KEYS_BY_LENGTH[len] : undefined;
  if (candidates === undefined) return 0;
  next: for (const { key, bit } of candidates) {
    for (let j = 0; j < len; j++) if (key[j] !== bytes[start + j]) continue next;
    return bit;
  }
  return 0;
}

const TRUE = encoder.encode('true');
const FALSE = encoder.encode('false');
const POSITION_NAMES = ['single', 'first', 'second'].map((p) => encoder.encode(p));

function bytesAre(bytes: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (at + word.length > end) return false;
  for (let j = 0; j < word.length; j++) if (bytes[at + j] !== word[j]) return false;
  return true;
}

/** 1 + the index of the position named at bytes start..end (exactly); 0 for anything else. */
function positionAt(bytes: Uint8Array, start: number, end: number): number {
  for (let p = 0; p < POSITION_NAMES.length; p++) {
    const name = POSITION_NAMES[p]!;
    if (end - start === name.length && bytesAre(bytes, start, end, name)) return p + 1;
  }
  return POSITION_NONE;
}

/**
 * Scans the line starting at `start` (bytes up to `end`, the block's end). Fills `out` and
 * returns true for a line of the common shape whose fields are all valid (its EMU code one that
 * `emuForms` accepts); false for any other line, which the caller parses the general way.
 */
export function scanLine(
  bytes: Uint8Array,
  start: number,
  end: number,
  out: ScannedLine,
  emuForms: EmuFormPolicy = STRICT_EMU_FORMS,
): boolean {
  let i = skipSpace(bytes, start, end);
  if (bytes[i] !== OPEN) return false;
  let seen = 0;
  let ymd = -1;
  let trainStart = -1;
  let trainEnd = -1;
  out.observedAt = NaN;
  out.observedAtStart = -1;
  out.refStart = -1;
  out.refEnd = -1;
  out.position = POSITION_NONE;
  out.fault = FLAG_NONE;
  out.spare = FLAG_NONE;
  i++;
  for (;;) {
    i = skipSpace(bytes, i, end);
    if (bytes[i] !== QUOTE) return false;
    const keyEnd = plainStringEnd(bytes, i + 1, end);
    if (keyEnd < 0) return false;
    const key = keyAt(bytes, i + 1, keyEnd);
    if (key === 0 || (seen & key) !== 0) return false;
    seen |= key;
    i = skipSpace(bytes, keyEnd + 1, end);
    if (bytes[i] !== COLON) return false;
    i = skipSpace(bytes, i + 1, end);
    if (key === OBSERVED_AT && bytes[i] !== QUOTE) {
      // An integer: 10 digits at most (the latest accepted time has 10), no sign, fraction or
      // exponent (those, and leading zeros, are left to JSON.parse and the validator).
      const s = i;
      let n = 0;
      if (!(bytes[i]! > D0 && bytes[i]! <= D0 + 9)) return false;
      while (i < end && bytes[i]! >= D0 && bytes[i]! <= D0 + 9 && i - s < 11) {
        n = n * 10 + (bytes[i]! - D0);
        i++;
      }
      if (i - s > 10 || n < EARLIEST || n >= LATEST) return false;
      out.observedAt = n;
      out.observedAtStart = s;
      out.observedAtEnd = i;
    } else if (key === FAULT || key === SPARE) {
      // The literals true and false only (a quoted "true" is left to the validator).
      let flag: number;
      if (bytesAre(bytes, i, end, TRUE)) {
        flag = 1;
        i += TRUE.length;
      } else if (bytesAre(bytes, i, end, FALSE)) {
        flag = 0;
        i += FALSE.length;
      } else return false;
      if (key === FAULT) out.fault = flag;
      else out.spare = flag;
    } else {
      if (bytes[i] !== QUOTE) return false;
      const s = i + 1;
      const e = plainStringEnd(bytes, s, end);
      // Empty, or with spaces to trim: left to the validator.
      if (e <= s || bytes[s] === SPACE || bytes[e - 1] === SPACE) return false;
      i = e + 1;
      switch (key) {
        case OBSERVED_AT:
          out.observedAt = isoSeconds(bytes, s, e);
          if (Number.isNaN(out.observedAt)) return false;
          break;
        case TRAIN_CODE:
          trainStart = s;
          trainEnd = e;
          break;
        case EMU_CODE:
          out.emuStart = s;
          out.emuEnd = e;
          break;
        case SOURCE:
          if (e - s > MAX_SOURCE) return false;
          out.sourceStart = s;
          out.sourceEnd = e;
          break;
        case REF:
          if (e - s > MAX_REF) return false;
          out.refStart = s;
          out.refEnd = e;
          break;
        case POSITION:
          // Exactly single, first or second (other spellings are left to the validator).
          out.position = positionAt(bytes, s, e);
          if (out.position === POSITION_NONE) return false;
          break;
        default: {
          // serviceDate: exactly 8 digits, checked below.
          if (e - s !== 8) return false;
          let n = 0;
          for (let k = s; k < e; k++) {
            const d = bytes[k]! - D0;
            if (d < 0 || d > 9) return false;
            n = n * 10 + d;
          }
          ymd = n;
        }
      }
    }
    i = skipSpace(bytes, i, end);
    if (bytes[i] === COMMA) {
      i++;
      continue;
    }
    if (bytes[i] !== CLOSE) return false;
    i = skipSpace(bytes, i + 1, end);
    break;
  }
  // The line must end here.
  if (i < end) {
    if (bytes[i] === LF) i++;
    else if (bytes[i] === CR) i += bytes[i + 1] === LF ? 2 : 1;
    else return false;
  }
  if ((seen & REQUIRED) !== REQUIRED) return false;
  // Validation, in the validator's order (a line failing any check is left to it, so which
  // check fails first does not matter here).
  const train = trainOf(bytes, trainStart, trainEnd);
  // A very long list of paired numbers is left to the general way (the dedup material of a
  // scanned line has a bounded size).
  if (train.codeStart < 0 || train.codeEnd - train.codeStart > MAX_TRAIN) return false;
  const emu = emuOf(bytes, out.emuStart, out.emuEnd);
  if (!emu.ok || emu.canonicalEnd - emu.canonicalStart > MAX_CANONICAL_EMU) return false;
  // A code of no known model is left to the validator, which refuses it and says why, unless the
  // policy accepts it (the fleet names it, or unknown forms are allowed).
  if (!emu.knownForm && !emuForms.allowUnknownForms && !emuForms.fleetCodes.has(emu.canonical))
    return false;
  if (ymd >= 0) {
    const day = serviceDayOfYmd(ymd);
    if (day === null) return false;
    out.serviceDay = day;
    out.serviceDateGiven = true;
  } else {
    out.serviceDay = serviceDayOf(out.observedAt);
    out.serviceDateGiven = false;
  }
  // Arenas may have grown (new arrays) while entries were added.
  emu.bytes = emus.arena;
  out.trainBytes = trains.arena;
  out.trainCodeStart = train.codeStart;
  out.trainCodeEnd = train.codeEnd;
  out.trainArrayStart = train.arrayStart;
  out.trainArrayEnd = train.arrayEnd;
  out.emu = emu;
  out.next = i;
  return true;
}

export function newScannedLine(): ScannedLine {
  return {
    next: 0,
    observedAt: 0,
    observedAtStart: -1,
    observedAtEnd: -1,
    serviceDay: 0,
    serviceDateGiven: false,
    trainBytes: trains.arena,
    trainCodeStart: 0,
    trainCodeEnd: 0,
    trainArrayStart: 0,
    trainArrayEnd: 0,
    emu: undefined,
    emuStart: 0,
    emuEnd: 0,
    sourceStart: 0,
    sourceEnd: 0,
    refStart: -1,
    refEnd: -1,
    position: POSITION_NONE,
    fault: FLAG_NONE,
    spare: FLAG_NONE,
  };
}

/**
 * Bytes to hash for a scanned line's dedup key, as dedupKeyOf builds it: ref, source and ref;
 * or content, source, time, train numbers, canonical EMU code and the stated service day. At
 * most about 420 bytes (source, ref, train and EMU codes are bounded above).
 */
const material = Buffer.alloc(1024);
const REF_TAG = encoder.encode('ref\u0000');
const CONTENT_TAG = encoder.encode('content\u0000');

function put(src: Uint8Array, start: number, end: number, at: number): number {
  for (let i = start; i < end; i++) material[at++] = src[i]!;
  return at;
}

/**
 * Writes an integer's decimal digits (as `${n}` writes them) into `target` at `at`; returns
 * where they end.
 */
export function writeInt(target: Uint8Array, at: number, n: number): number {
  if (n < 0) {
    target[at++] = 0x2d;
    n = -n;
  }
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    target[i] = D0 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}

/** The sha256 of a scanned line's dedup material (as dedupKeyOf hashes it), as 8 words. */
export function dedupDigest(bytes: Uint8Array, s: ScannedLine, out: Int32Array): void {
  let at: number;
  if (s.refStart >= 0) {
    at = put(REF_TAG, 0, REF_TAG.length, 0);
    at = put(bytes, s.sourceStart, s.sourceEnd, at);
    material[at++] = 0;
    at = put(bytes, s.refStart, s.refEnd, at);
  } else {
    at = put(CONTENT_TAG, 0, CONTENT_TAG.length, 0);
    at = put(bytes, s.sourceStart, s.sourceEnd, at);
    material[at++] = 0;
    at =
      s.observedAtStart >= 0
        ? put(bytes, s.observedAtStart, s.observedAtEnd, at)
        : writeInt(material, at, s.observedAt);
    material[at++] = 0;
    at = put(s.trainBytes, s.trainCodeStart, s.trainCodeEnd, at);
    material[at++] = 0;
    const emu = s.emu!;
    at = put(emu.bytes, emu.canonicalStart, emu.canonicalEnd, at);
    material[at++] = 0;
    if (s.serviceDateGiven) at = writeInt(material, at, s.serviceDay);
  }
  // node:crypto's one-call hash into a Buffer; its words are read straight out of it.
  const digest = hash('sha256', material.subarray(0, at), 'buffer');
  for (let k = 0; k < 8; k++) out[k] = digest.readInt32BE(k * 4);
}
