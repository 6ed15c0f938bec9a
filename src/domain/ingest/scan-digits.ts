/** ASCII digits in bytes: reading them one or two at a time, and writing an integer's. */

const D0 = 0x30;

export function isDigit(bytes: Uint8Array, i: number): boolean {
  return bytes[i]! >= D0 && bytes[i]! <= D0 + 9;
}

/** The digit at bytes[i]; -1000 for any other byte (so a sum of digits it is in goes negative). */
export function digit(bytes: Uint8Array, i: number): number {
  const d = bytes[i]! - D0;
  return d >= 0 && d <= 9 ? d : -1000;
}

/** The two digits at bytes[i..i+2) as a number; negative if either is not a digit. */
export function twoDigits(bytes: Uint8Array, i: number): number {
  return digit(bytes, i) * 10 + digit(bytes, i + 1);
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
