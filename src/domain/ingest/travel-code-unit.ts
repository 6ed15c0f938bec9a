import { isDigit } from './scan-digits.js';

const DASH = 0x2d;
const D0 = 0x30;

/**
 * Where the unit ends in a travel-code QR payload written in canonical characters (upper-case
 * letters, digits, single dashes): UNIT-CC or UNIT-CC-SSX (coach, seat), UNIT ending in four
 * digits; -1 for any other code. parseEmuCode strips such a tail (its TRAVEL_CODE_TAIL and
 * WRITTEN_TAIL match the same unit for these characters) when the unit is a Fuxing or Hexie
 * code, and the code then stands for the unit: same canonical code, same written unit.
 */
export function travelUnitEnd(bytes: Uint8Array, start: number, end: number): number {
  let dash = false;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === DASH) {
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
    if (bytes[end - 3] === DASH && isDigit(bytes, end - 2)) coachEnd = end - 3;
    else if (bytes[end - 4] === DASH && isDigit(bytes, end - 3) && isDigit(bytes, end - 2))
      coachEnd = end - 4;
    else return -1;
  }
  const unitEnd = coachEnd - 3;
  if (unitEnd - 4 < start) return -1;
  if (bytes[unitEnd] !== DASH || !isDigit(bytes, coachEnd - 2) || !isDigit(bytes, coachEnd - 1))
    return -1;
  for (let i = unitEnd - 4; i < unitEnd; i++) if (!isDigit(bytes, i)) return -1;
  return unitEnd;
}
