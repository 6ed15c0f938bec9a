/** JSON tokens of a line read from its bytes: plain strings, whitespace, literal words. */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const TAB = 0x09;

/** bytes[start..end) as a string, each byte one character (for bytes known to be ASCII). */
export function ascii(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** Where a JSON string's content ends (its closing quote), if it is printable ASCII without escapes. */
export function plainStringEnd(bytes: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) return i;
    if (c < SPACE || c > 0x7e || c === BACKSLASH) return -1;
  }
  return -1;
}

export function skipSpace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && (bytes[i] === SPACE || bytes[i] === TAB)) i++;
  return i;
}

/** Whether `word` is at bytes[at..], ending by `end`. */
export function bytesAre(bytes: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (at + word.length > end) return false;
  for (let j = 0; j < word.length; j++) if (bytes[at + j] !== word[j]) return false;
  return true;
}
