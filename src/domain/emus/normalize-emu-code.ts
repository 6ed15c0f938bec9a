import { EmutrackError } from '../../shared/errors/emutrack-error.js';
/**
 * Canonical EMU codes. Sightings write the same unit in several ways (compatibility.md):
 * CR400AF-2001, CR400AF2001, cr400af-2001, CR400BF-A-5156, CR400BFA5156, and travel-code QR
 * payloads such as CR400AF-Z-0216-02-03F (unit, coach, seat). The rules:
 *
 * 1. Unicode NFKC (full-width ＣＲ４００ＡＦ－２００１ is CR400AF-2001); trim; upper-case;
 *    spaces, underscores and dash look-alikes (‐ ‑ ‒ – — ― −, U+2010-U+2015 and the minus sign
 *    U+2212) become "-"; repeated dashes collapse.
 * 2. A travel-code tail after the 4-digit unit number, "-CC" or "-CC-SSX" (coach, seat), is
 *    dropped: it names a seat, not a unit.
 * 3. The code is split into family model, optional variant and 4-digit number:
 *    - Fuxing (CR): the model is "CR" + 3 digits + maker letters "AF"/"BF" (or "J" for CR200J);
 *      letters between it and the number are the variant: CR400BFA5156 -> CR400BF-A-5156,
 *      CR400AFBZ2261 -> CR400AF-BZ-2261.
 *    - Hexie (CRH): the model is "CRH" + digits + all letters that follow (CRH380AL, CRH2A,
 *      CRH5G); a variant exists only when written with a dash (CRH6A-A-0201), because
 *      unhyphenated letters cannot be told apart from the model's own.
 * 4. Canonical form: MODEL[-VARIANT]-NNNN.
 * 5. A code that fits none of this but is made of letters, digits and dashes is kept as it
 *    stands after rule 1. Anything else is malformed. Whether a code that parses may register a
 *    unit (a known model family, or a code of the fleet) is decided apart: emu-forms.ts.
 */
export interface ParsedEmuCode {
  /** Canonical code, e.g. CR400BF-A-5156. */
  code: string;
  /** Model with variant, e.g. CR400BF-A; '' when the code did not parse. */
  model: string;
  /** The model without its variant, e.g. CR400BF (what emu-forms.ts judges); '' when the code did not parse. */
  family: string;
  /** The unit's number, e.g. 5156; '' when the code did not parse. */
  trainSetNo: string;
  /**
   * The input as written (in NFKC), trimmed, less any travel-code coach/seat tail: the form kept
   * as an alias (CR400AF-Z-0216-02-03F -> CR400AF-Z-0216; CR400AF2001 stays CR400AF2001; the
   * full-width ＣＲ４００ＡＦ２００１ is CR400AF2001).
   */
  writtenUnit: string;
}

export class MalformedEmuCodeError extends EmutrackError {
  constructor(readonly input: string) {
    super(
      'malformed_emu_code',
      `malformed EMU code ${JSON.stringify(input)}: expected letters, digits and dashes such as CR400AF-2001`,
    );
  }
}

const FUXING = /^(CR\d{3}(?:[AB]F|J))-?(?:([A-Z]{1,3})-?)?(\d{4})$/;
const HEXIE = /^(CRH\d{1,3}[A-Z]*)(?:-([A-Z]{1,3}))?-?(\d{4})$/;
const TRAVEL_CODE_TAIL = /^(.*\d{4})-\d{2}(?:-\d{1,2}[A-F])?$/;
const PLAIN = /^[A-Z0-9][A-Z0-9-]{0,39}$/;
const WRITTEN_TAIL =
  /^(.*\d{4})[\s_\u2010-\u2015\u2212-]+\d{2}(?:[\s_\u2010-\u2015\u2212-]+\d{1,2}[A-Fa-f])?$/;

export function parseEmuCode(input: string): ParsedEmuCode {
  // NFKC also turns the full-width hyphen (U+FF0D) into "-".
  const text = input.normalize('NFKC').trim();
  let s = text
    .toUpperCase()
    .replace(/[\s_\u2010-\u2015\u2212]+/g, '-')
    .replace(/-+/g, '-');
  let writtenUnit = text;
  const tail = TRAVEL_CODE_TAIL.exec(s);
  if (tail && (FUXING.test(tail[1]!) || HEXIE.test(tail[1]!))) {
    s = tail[1]!;
    writtenUnit = WRITTEN_TAIL.exec(writtenUnit)?.[1] ?? s;
  }
  const m = FUXING.exec(s) ?? HEXIE.exec(s);
  if (m) {
    const [, base, variant, number] = m as unknown as [string, string, string | undefined, string];
    const model = variant ? `${base}-${variant}` : base;
    return { code: `${model}-${number}`, model, family: base, trainSetNo: number, writtenUnit };
  }
  if (!PLAIN.test(s) || s.endsWith('-')) throw new MalformedEmuCodeError(input);
  return { code: s, model: '', family: '', trainSetNo: '', writtenUnit };
}
