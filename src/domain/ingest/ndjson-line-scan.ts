import { checkTrain, EARLIEST, LATEST } from './observation-record.js';
import { STRICT_EMU_FORMS, type EmuFormPolicy } from '../emus/emu-forms.js';
import { ByteTable } from './byte-table.js';
import {
  serviceDayFromYmd,
  serviceDayOf,
  InvalidServiceDateError,
} from '../../shared/time/service-day.js';
import { isoSeconds } from './iso-time-bytes.js';
import { ascii, bytesAre, plainStringEnd, skipSpace } from './json-line-bytes.js';
import {
  EMU_CODE,
  FALSE,
  FAULT,
  FLAG_NONE,
  keyAt,
  OBSERVED_AT,
  POSITION,
  POSITION_NONE,
  positionAt,
  REF,
  REQUIRED,
  SOURCE,
  SPARE,
  TRAIN_CODE,
  TRUE,
} from './sighting-keys.js';
import { travelUnitEnd } from './travel-code-unit.js';
import { newEmuEntry, type EmuEntry } from './scanned-emu-code.js';

export { FLAG_NONE, POSITION_NONE } from './sighting-keys.js';

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

const encoder = new TextEncoder();
const QUOTE = 0x22;
const SPACE = 0x20;
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
/** Entries a table holds before it is cleared (bounded like the validator's caches). */
const TABLE_LIMIT = 100_000;

/** A train code's bytes: where its stored text and its array are in the train arena (-1: malformed). */
interface TrainEntry {
  codeStart: number;
  codeEnd: number;
  arrayStart: number;
  arrayEnd: number;
}

/**
 * Scans lines with the tables it keeps: the train and EMU codes met so far (keyed by their
 * bytes) and the service days of the dates met. Its owner (a parse worker thread, or one
 * in-process parse) keeps one for as long as the codes are worth remembering; the tables are
 * bounded and only spare work, so two scanners give the same lines the same values.
 */
export class LineScanner {
  private readonly trains = new ByteTable<TrainEntry>(TABLE_LIMIT);
  private readonly emus = new ByteTable<EmuEntry>(TABLE_LIMIT);
  private readonly serviceDates = new Map<number, number | null>();

  /**
   * Scans the line starting at `start` (bytes up to `end`, the block's end). Fills `out` and
   * returns true for a line of the common shape whose fields are all valid (its EMU code one
   * that `emuForms` accepts); false for any other line, which the caller parses the general way.
   */
  scanLine(
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
    const train = this.trainOf(bytes, trainStart, trainEnd);
    // A very long list of paired numbers is left to the general way (the dedup material of a
    // scanned line has a bounded size).
    if (train.codeStart < 0 || train.codeEnd - train.codeStart > MAX_TRAIN) return false;
    const emu = this.emuOf(bytes, out.emuStart, out.emuEnd);
    if (!emu.ok || emu.canonicalEnd - emu.canonicalStart > MAX_CANONICAL_EMU) return false;
    // A code of no known model is left to the validator, which refuses it and says why, unless the
    // policy accepts it (the fleet names it, or unknown forms are allowed).
    if (!emu.knownForm && !emuForms.allowUnknownForms && !emuForms.fleetCodes.has(emu.canonical))
      return false;
    if (ymd >= 0) {
      const day = this.serviceDayOfYmd(ymd);
      if (day === null) return false;
      out.serviceDay = day;
      out.serviceDateGiven = true;
    } else {
      out.serviceDay = serviceDayOf(out.observedAt);
      out.serviceDateGiven = false;
    }
    // Arenas may have grown (new arrays) while entries were added.
    emu.bytes = this.emus.arena;
    out.trainBytes = this.trains.arena;
    out.trainCodeStart = train.codeStart;
    out.trainCodeEnd = train.codeEnd;
    out.trainArrayStart = train.arrayStart;
    out.trainArrayEnd = train.arrayEnd;
    out.emu = emu;
    out.next = i;
    return true;
  }

  private trainOf(bytes: Uint8Array, start: number, end: number): TrainEntry {
    // No closure here: its captured variables would be allocated on every call.
    const h = ByteTable.hashOf(bytes, start, end);
    return this.trains.get(bytes, start, end, h) ?? this.addTrain(bytes, start, end, h);
  }

  private addTrain(bytes: Uint8Array, start: number, end: number, h: number): TrainEntry {
    const trains = this.trains;
    return trains.add(bytes, start, end, h, () => {
      const codes = checkTrain(ascii(bytes, start, end));
      if (!Array.isArray(codes))
        return { codeStart: -1, codeEnd: -1, arrayStart: -1, arrayEnd: -1 };
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

  private emuOf(bytes: Uint8Array, start: number, end: number): EmuEntry {
    // No closure here: its captured variables would be allocated on every call.
    const h = ByteTable.hashOf(bytes, start, end);
    const e = this.emus.get(bytes, start, end, h);
    if (e !== undefined) return e;
    // A travel code names a seat: nearly every one is new. It is looked up by its unit, and not
    // kept.
    const unitEnd = travelUnitEnd(bytes, start, end);
    if (unitEnd > start) {
      const unit = this.emuOf(bytes, start, unitEnd);
      if (unit.ok && unit.structured) return unit;
    }
    return this.addEmu(bytes, start, end, h);
  }

  private addEmu(bytes: Uint8Array, start: number, end: number, h: number): EmuEntry {
    return this.emus.add(bytes, start, end, h, () => newEmuEntry(this.emus, bytes, start, end));
  }

  /** The service day of a YYYYMMDD date given as the number it reads as; null if no such day. */
  private serviceDayOfYmd(ymd: number): number | null {
    const serviceDates = this.serviceDates;
    let day = serviceDates.get(ymd);
    if (day === undefined) {
      try {
        day = serviceDayFromYmd(String(ymd));
      } catch (err) {
        if (!(err instanceof InvalidServiceDateError)) throw err;
        day = null;
      }
      if (serviceDates.size > TABLE_LIMIT) serviceDates.clear();
      serviceDates.set(ymd, day);
    }
    return day;
  }
}

/** Nothing yet: a scanned line's train bytes are set by every scan that accepts it. */
const NO_BYTES = new Uint8Array(0);

export function newScannedLine(): ScannedLine {
  return {
    next: 0,
    observedAt: 0,
    observedAtStart: -1,
    observedAtEnd: -1,
    serviceDay: 0,
    serviceDateGiven: false,
    trainBytes: NO_BYTES,
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
