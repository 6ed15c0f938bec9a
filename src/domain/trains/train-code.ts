import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { PREFIX_PATTERN, prefixList, trainPrefix } from './train-prefixes.js';
/**
 * Train numbers. A number is an optional prefix of the list in train-prefixes.ts (G, D, C, S,
 * DJ, Z, T, K, Y, L, X) and up to five digits within the prefix's range (G1234, D3125, C5503,
 * S1, DJ8858, X101, 1461); any other letters (XYZ1, Q99) are refused. A paired run, one service carrying two numbers because the number changes
 * on the way, is written G4340/37 (the tail replaces the last digits) or G4340/G4337; it
 * counts for each of its numbers.
 */
export interface TrainCode {
  prefix: string;
  number: number;
}

export class MalformedTrainCodeError extends EmutrackError {
  constructor(
    readonly input: string,
    /** Why, when more can be said than the expected form (an unknown prefix, a number out of range). */
    readonly detail?: string,
  ) {
    super(
      'malformed_train_code',
      `${detail ? `${detail}; ` : ''}expected a train number such as G1234, G4340/37 or G4340/G4337, got ${JSON.stringify(input)}`,
    );
  }
}

const SINGLE = new RegExp(`^(${PREFIX_PATTERN}|)([1-9]\\d{0,4})$`);
const LETTERS_AND_DIGITS = /^([A-Z]+)(\d+)$/;

/** Whether `s` (upper case, no spaces) is one train number: a prefix in use, a number in its range. */
function isSingle(s: string): boolean {
  const m = SINGLE.exec(s);
  return m !== null && Number(m[2]) <= trainPrefix(m[1]!)!.maxNumber;
}

/** Why `s` is not a train number, when more can be said than the expected form. */
function whyNot(s: string): string | undefined {
  const m = LETTERS_AND_DIGITS.exec(s) ?? /^()(\d+)$/.exec(s);
  if (!m) return undefined;
  const prefix = trainPrefix(m[1]!);
  if (!prefix) return `${m[1]} is not a train-number prefix in use (${prefixList()})`;
  const n = Number(m[2]);
  if (!m[2]!.startsWith('0') && m[2]!.length <= 5 && n > prefix.maxNumber)
    return `${m[1]} numbers run from ${m[1]}1 to ${m[1]}${prefix.maxNumber}`;
  return undefined;
}

function malformed(input: string, s: string): MalformedTrainCodeError {
  return new MalformedTrainCodeError(input, whyNot(s));
}

/**
 * The text every train-number rule reads: Unicode NFKC first (full-width Ｇ１２３４ and ／ are
 * G1234 and /, as community tables and phone keyboards write them), then upper case, no spaces.
 */
function codeText(input: string): string {
  return input.normalize('NFKC').toUpperCase().replace(/\s+/g, '');
}

/** Normalises one train number: NFKC, upper case, no spaces (g2492 -> G2492, Ｄ４５９５ -> D4595). */
export function normalizeTrainCode(input: string): string {
  const s = codeText(input);
  if (!isSingle(s)) throw malformed(input, s);
  return s;
}

/** All numbers a written run stands for, in the order written: "G4340/37" -> [G4340, G4337]. */
export function expandTrainCodes(input: string): string[] {
  const parts = codeText(input).split('/');
  const first = SINGLE.exec(parts[0] ?? '');
  if (!first || !isSingle(parts[0]!)) throw malformed(input, parts[0] ?? '');
  const prefix = first[1]!;
  const digits = first[2]!;
  const codes = [`${prefix}${digits}`];
  for (const part of parts.slice(1)) {
    if (/^\d{1,5}$/.test(part)) {
      if (part.length > digits.length) throw new MalformedTrainCodeError(input);
      const full = digits.slice(0, digits.length - part.length) + part;
      if (full.startsWith('0') || !isSingle(`${prefix}${full}`))
        throw malformed(input, `${prefix}${full}`);
      codes.push(`${prefix}${full}`);
    } else if (isSingle(part)) {
      codes.push(part);
    } else if (part === '') {
      throw new MalformedTrainCodeError(input, "a '/' with no number after it");
    } else {
      throw malformed(input, part);
    }
  }
  return [...new Set(codes)];
}

/** A normalised number as the API's TrainCode: DJ5801 -> {prefix: "DJ", number: 5801}. */
export function splitTrainCode(code: string): TrainCode {
  const m = SINGLE.exec(code);
  if (!m) throw malformed(code, code);
  return { prefix: m[1]!, number: Number(m[2]) };
}
