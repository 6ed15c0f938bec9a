import { EARLIEST, LATEST } from './observation-record.js';
import { twoDigits } from './scan-digits.js';

const COLON = 0x3a;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * An ISO time of the form YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM / -HH:MM, at bytes
 * start..end (the string's content), as Unix seconds; NaN for any other form or an impossible
 * or out-of-range time (left to the validator, which says why).
 */
export function isoSeconds(bytes: Uint8Array, start: number, end: number): number {
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
