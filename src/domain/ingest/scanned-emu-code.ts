import { MalformedEmuCodeError, parseEmuCode } from '../emus/normalize-emu-code.js';
import { isKnownFamily } from '../emus/emu-forms.js';
import type { ByteTable } from './byte-table.js';
import { ascii } from './json-line-bytes.js';

const encoder = new TextEncoder();

/**
 * A written EMU code, as validated: its canonical code (in `bytes`, the EMU table's arena) and
 * the written unit the registry resolves.
 */
export interface EmuEntry {
  ok: boolean;
  /** Parsed as a Fuxing or Hexie unit (not kept as it stands). */
  structured: boolean;
  /** Of a known model family (emu-forms.ts): accepted whatever the policy. */
  knownForm: boolean;
  /** The canonical code as a string (looked up in the policy's fleet codes when not knownForm). */
  canonical: string;
  bytes: Uint8Array;
  canonicalStart: number;
  canonicalEnd: number;
  unit: string;
  /**
   * The emu id of `unit` as `idsFrom` gave it (undefined: not there), and where it is as ASCII
   * digits in `bytes`.
   */
  id: number | undefined;
  idStart: number;
  idEnd: number;
  /** The map of known ids last asked for this unit. */
  idsFrom: ReadonlyMap<string, number> | undefined;
  /** The chunk that listed this unit as pending, and its index there. */
  pendingIn: object | undefined;
  pendingIndex: number;
  /** The table that holds the entry, in whose arena its id's digits are written. */
  table: ByteTable<EmuEntry>;
}

/** A new entry for the EMU code at bytes[start..end), its canonical code appended to `emus`. */
export function newEmuEntry(
  emus: ByteTable<EmuEntry>,
  bytes: Uint8Array,
  start: number,
  end: number,
): EmuEntry {
  const e: EmuEntry = {
    ok: false,
    structured: false,
    knownForm: false,
    canonical: '',
    bytes: emus.arena,
    canonicalStart: 0,
    canonicalEnd: 0,
    unit: '',
    id: undefined,
    idStart: 0,
    idEnd: 0,
    idsFrom: undefined,
    pendingIn: undefined,
    pendingIndex: -1,
    table: emus,
  };
  // As checkEmu does (parseEmuCode, a malformed code refused), with whether the code parsed
  // as a Fuxing or Hexie unit (a model) or was kept as it stands.
  try {
    const parsed = parseEmuCode(ascii(bytes, start, end));
    const canonical = encoder.encode(parsed.code);
    e.ok = true;
    e.structured = parsed.model !== '';
    e.knownForm = parsed.family !== '' && isKnownFamily(parsed.family);
    e.canonical = parsed.code;
    e.canonicalStart = emus.append(canonical, 0, canonical.length);
    e.canonicalEnd = e.canonicalStart + canonical.length;
    e.unit = parsed.writtenUnit;
  } catch (err) {
    if (!(err instanceof MalformedEmuCodeError)) throw err;
  }
  e.bytes = emus.arena;
  return e;
}

/**
 * The emu id of an entry's unit in `emuIds`, as ASCII digits in e.bytes[e.idStart..e.idEnd);
 * false when the map lacks it. Asked once per unit and map (a unit's id never changes; a map
 * that gains it later only costs a placeholder, which the writer fills).
 */
export function emuIdOf(e: EmuEntry, emuIds: ReadonlyMap<string, number>): boolean {
  if (e.idsFrom !== emuIds) {
    const id = emuIds.get(e.unit);
    if (id !== e.id) {
      e.id = id;
      if (id !== undefined) {
        const digits = encoder.encode(String(id));
        e.idStart = e.table.append(digits, 0, digits.length);
        e.idEnd = e.idStart + digits.length;
      }
    }
    e.idsFrom = emuIds;
  }
  // The arena may have grown (a new array) since the entry's bytes were written.
  e.bytes = e.table.arena;
  return e.id !== undefined;
}
