/**
 * The one list of train-number prefixes this service accepts (compatibility.md; the letters
 * China Railway assigns). Everything that reads a train number (sightings, timetables, official
 * circulation tables, API paths) checks it through train-code.ts, which reads this list: a
 * number is one of these prefixes, or none, then 1 to 5 digits without a leading zero, within
 * the prefix's range. `emu`: whether the prefix is run by EMUs (an official table naming any
 * other is a locomotive-hauled circulation, kept but not checked).
 */
export interface TrainPrefix {
  prefix: string;
  /** What the prefix stands for. */
  meaning: string;
  /** Whether EMUs run trains of this prefix. */
  emu: boolean;
  /** The highest number in use with it. */
  maxNumber: number;
}

const ANY = 99_999;

export const TRAIN_PREFIXES: readonly TrainPrefix[] = [
  { prefix: 'G', meaning: 'high-speed EMU (高速动车组)', emu: true, maxNumber: ANY },
  { prefix: 'D', meaning: 'EMU (动车组)', emu: true, maxNumber: ANY },
  { prefix: 'C', meaning: 'intercity EMU (城际动车组)', emu: true, maxNumber: ANY },
  { prefix: 'S', meaning: 'suburban (市郊)', emu: true, maxNumber: ANY },
  { prefix: 'DJ', meaning: 'EMU inspection run (动检)', emu: true, maxNumber: ANY },
  { prefix: 'Z', meaning: 'direct express (直达特快)', emu: false, maxNumber: ANY },
  { prefix: 'T', meaning: 'express (特快)', emu: false, maxNumber: ANY },
  { prefix: 'K', meaning: 'fast (快速)', emu: false, maxNumber: ANY },
  { prefix: 'Y', meaning: 'tourist (旅游)', emu: false, maxNumber: ANY },
  { prefix: 'L', meaning: 'temporary (临客)', emu: false, maxNumber: ANY },
  { prefix: 'X', meaning: 'parcel train (行包专列), X1-X299', emu: false, maxNumber: 299 },
  {
    prefix: '',
    meaning: 'ordinary passenger train (普快、普客), plain digits',
    emu: false,
    maxNumber: ANY,
  },
];

const BY_PREFIX = new Map(TRAIN_PREFIXES.map((p) => [p.prefix, p]));

/** The prefixes as a regular-expression alternation, longest first (DJ before D). */
export const PREFIX_PATTERN = TRAIN_PREFIXES.map((p) => p.prefix)
  .filter((p) => p !== '')
  .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
  .join('|');

/** The entry of a prefix ('' for plain digits), or undefined for one not in use. */
export function trainPrefix(prefix: string): TrainPrefix | undefined {
  return BY_PREFIX.get(prefix);
}

/** Whether EMUs run trains of this prefix (G, D, C, S, DJ). */
export function isEmuPrefix(prefix: string): boolean {
  return BY_PREFIX.get(prefix)?.emu === true;
}

/** The prefixes in use, for messages: "G, D, C, S, DJ, Z, T, K, Y, L, X or none". */
export function prefixList(): string {
  return `${TRAIN_PREFIXES.filter((p) => p.prefix !== '')
    .map((p) => p.prefix)
    .join(', ')} or none`;
}
