import { bytesAre } from './json-line-bytes.js';

/** The keys of a sighting and the words of its values, matched on the line's bytes. */

const encoder = new TextEncoder();

export const OBSERVED_AT = 1;
export const TRAIN_CODE = 2;
export const EMU_CODE = 4;
export const SOURCE = 8;
export const REF = 16;
export const SERVICE_DATE = 32;
export const POSITION = 64;
export const FAULT = 128;
export const SPARE = 256;
export const REQUIRED = OBSERVED_AT | TRAIN_CODE | EMU_CODE | SOURCE;

/** A position not said; else the index + 1 of FORMATION_POSITIONS: 1 single, 2 first, 3 second. */
export const POSITION_NONE = 0;
/** A flag (fault, spare) not said; else 0 false or 1 true. */
export const FLAG_NONE = -1;

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
export function keyAt(bytes: Uint8Array, start: number, end: number): number {
  const len = end - start;
  const candidates = len < KEYS_BY_LENGTH.length ? KEYS_BY_LENGTH[len] : undefined;
  if (candidates === undefined) return 0;
  next: for (const { key, bit } of candidates) {
    for (let j = 0; j < len; j++) if (key[j] !== bytes[start + j]) continue next;
    return bit;
  }
  return 0;
}

export const TRUE = encoder.encode('true');
export const FALSE = encoder.encode('false');
const POSITION_NAMES = ['single', 'first', 'second'].map((p) => encoder.encode(p));

/** 1 + the index of the position named at bytes start..end (exactly); 0 for anything else. */
export function positionAt(bytes: Uint8Array, start: number, end: number): number {
  for (let p = 0; p < POSITION_NAMES.length; p++) {
    const name = POSITION_NAMES[p]!;
    if (end - start === name.length && bytesAre(bytes, start, end, name)) return p + 1;
  }
  return POSITION_NONE;
}
