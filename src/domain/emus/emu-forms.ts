import type { Queryable } from '../../shared/db/db.js';
import { MalformedEmuCodeError, parseEmuCode, type ParsedEmuCode } from './normalize-emu-code.js';

/**
 * Which EMU codes a sighting may name. A code registers a unit the first time it is seen, so a
 * typing error ("banana") would invent one. A code is accepted when
 *   - it parses as a unit of a known model family (parseEmuCode gives its family): Hexie CRH1A
 *     to CRH6F (CRH1, 2, 3, 5, 6 with a series letter A-H) and CRH380A to CRH380D (with one more
 *     letter: CRH380AL, CRH380BG, CRH380CL), Fuxing CR400AF/BF, CR300AF/BF, CR450AF/BF (any
 *     variant: CR400BF-A, CR400AF-BZ) and CR200J, written with or without hyphens, or as a
 *     travel-code QR payload (CR400AF-Z-0216-02-03F); or
 *   - it is a code of a unit the fleet import describes (its canonical code or an alias), or of a
 *     unit merged into another by a correction (its codes are aliases of that unit), whatever its
 *     form; or
 *   - ALLOW_UNKNOWN_EMU_FORMS is set.
 * Anything else is refused with the reason (emuFormProblem), on every ingestion path alike.
 */
const HEXIE_FAMILY = /^CRH(?:[12356][A-H]|380[A-D][A-Z]?)$/;
const FUXING_FAMILY = /^(?:CR(?:400|300|450)[AB]F|CR200J)$/;

/** The families, as the reason for a refusal words them. */
export const KNOWN_FAMILIES_TEXT =
  'CRH1A..CRH6F, CRH380A..CRH380D, CR400AF/BF and their variants, CR300AF/BF, CR450AF/BF, CR200J';

/** Whether a model without its variant (CR400BF, CRH380AL) is of a known family. */
export function isKnownFamily(family: string): boolean {
  return HEXIE_FAMILY.test(family) || FUXING_FAMILY.test(family);
}

/** What an ingestion accepts besides the known families. */
export interface EmuFormPolicy {
  /** ALLOW_UNKNOWN_EMU_FORMS: any code that parses registers a unit. */
  allowUnknownForms: boolean;
  /**
   * Canonical codes (parseEmuCode's `code`) of the fleet's units and aliases, and of units merged
   * into another, that are of no known family: accepted because the fleet (or a merge) names them.
   */
  fleetCodes: ReadonlySet<string>;
}

/** Known families only (the default). */
export const STRICT_EMU_FORMS: EmuFormPolicy = { allowUnknownForms: false, fleetCodes: new Set() };

/**
 * Why a parsed code may not be accepted under `policy`, or undefined when it may. The reason
 * does not name the field (callers add it).
 */
export function emuFormProblem(
  parsed: Pick<ParsedEmuCode, 'code' | 'family'>,
  written: string,
  policy: EmuFormPolicy,
): string | undefined {
  if (parsed.family !== '' && isKnownFamily(parsed.family)) return undefined;
  if (policy.allowUnknownForms || policy.fleetCodes.has(parsed.code)) return undefined;
  const what =
    parsed.family !== ''
      ? `model ${parsed.family} is not a known EMU model`
      : 'not the form of a known EMU model';
  return `${JSON.stringify(written)}: ${what} (${KNOWN_FAMILIES_TEXT}, with the unit's 4-digit number, such as CR400AF-2001) nor a unit of the fleet`;
}

/**
 * The policy of one ingestion: the setting, and the fleet's codes of no known family (read
 * once; a fleet has a few thousand units, nearly all of known families).
 */
export async function readEmuFormPolicy(
  db: Queryable,
  allowUnknownForms: boolean,
): Promise<EmuFormPolicy> {
  if (allowUnknownForms) return { allowUnknownForms, fleetCodes: new Set() };
  // The fleet's codes and aliases, and the codes of units merged into another by a correction
  // (src/domain/corrections: a merged phantom's code is an alias of the unit it was merged into).
  const r = await db.query<{ code: string }>(
    `SELECT e.code FROM emus e WHERE e.registered_by = 'fleet'
     UNION SELECT a.alias FROM emu_aliases a JOIN emus e ON e.id = a.emu_id
      WHERE e.registered_by = 'fleet'
     UNION SELECT a.alias FROM emu_aliases a JOIN emu_merges m ON m.from_emu_id = a.emu_id`,
  );
  const fleetCodes = new Set<string>();
  for (const { code } of r.rows) {
    try {
      const parsed = parseEmuCode(code);
      if (parsed.family === '' || !isKnownFamily(parsed.family)) fleetCodes.add(parsed.code);
    } catch (err) {
      if (!(err instanceof MalformedEmuCodeError)) throw err;
    }
  }
  return { allowUnknownForms, fleetCodes };
}
