import { EmutrackError } from '../errors/emutrack-error.js';
/**
 * Train numbers. A number is an optional letter prefix and up to five digits (G1234, D3125,
 * C5503, S1, 1461). A paired run, one service carrying two numbers because the number changes
 * on the way, is written G4340/37 (the tail replaces the last digits) or G4340/G4337; it
 * counts for each of its numbers.
 */
export interface TrainCode {
  prefix: string;
  number: number;
}

export class MalformedTrainCodeError extends EmutrackError {
  constructor(readonly input: string) {
    super(
      'malformed_train_code',
      `expected a train number such as G1234, G4340/37 or G4340/G4337, got ${JSON.stringify(input)}`,
    );
  }
}

const SINGLE = /^([A-Z]?)([1-9]\d{0,4})$/;

/** Normalises one train number: upper case, no spaces (g2492 -> G2492). */
export function normalizeTrainCode(input: string): string {
  const s = input.trim().toUpperCase().replace(/\s+/g, '');
  if (!SINGLE.test(s)) throw new MalformedTrainCodeError(input);
  return s;
}

/** All numbers a written run stands for, in the order written: "G4340/37" -> [G4340, G4337]. */
export function expandTrainCodes(input: string): string[] {
  const parts = input.trim().toUpperCase().replace(/\s+/g, '').split('/');
  const first = SINGLE.exec(parts[0] ?? '');
  if (!first) throw new MalformedTrainCodeError(input);
  const prefix = first[1]!;
  const digits = first[2]!;
  const codes = [`${prefix}${digits}`];
  for (const part of parts.slice(1)) {
    if (/^\d{1,5}$/.test(part)) {
      if (part.length > digits.length) throw new MalformedTrainCodeError(input);
      const full = digits.slice(0, digits.length - part.length) + part;
      if (full.startsWith('0')) throw new MalformedTrainCodeError(input);
      codes.push(`${prefix}${full}`);
    } else if (SINGLE.test(part)) {
      codes.push(part);
    } else {
      throw new MalformedTrainCodeError(input);
    }
  }
  return [...new Set(codes)];
}

export function splitTrainCode(code: string): TrainCode {
  const m = SINGLE.exec(code);
  if (!m) throw new MalformedTrainCodeError(code);
  return { prefix: m[1]!, number: Number(m[2]) };
}
