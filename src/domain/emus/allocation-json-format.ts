import { jsonArrayTooLarge } from '../../shared/io/bounded-json.js';
import { readJsonEntries } from '../../shared/io/json-entries.js';
import { FLEET_COLUMNS } from './fleet-columns.js';
import { FleetFileError } from './fleet-file-error.js';
import type { FleetFormat, FleetRow } from './fleet-format.js';

/**
 * The allocation export the live service reads: a JSON array of units, each shaped as the
 * answer of /api/v2/allocation/emu/{code} (model, bureau, depot, trainDepot, ..., tags, alias:
 * camelCase) or with the fleet CSV's snake_case names. The unit is named by emuCode, emu_code
 * or code, or, in the API's answer, by emuCodeMappings. Lists (tags, alias) are arrays or
 * "|"-joined text. One object, or NDJSON of them, is read too. Parsed whole, so a file over the
 * size limit is refused.
 */
export const allocationJsonFormat: FleetFormat = {
  name: 'allocation-json',
  detect: (head) => head.text.startsWith('[') || head.text.startsWith('{'),
  async *read(file, { name, maxJsonBytes }) {
    const tooLarge = await jsonArrayTooLarge(file, maxJsonBytes);
    if (tooLarge !== undefined) throw new FleetFileError(name, tooLarge);
    for await (const e of readJsonEntries(file)) {
      if (e.error !== undefined) yield { line: e.line, raw: e.raw, field: null, error: e.error };
      else yield allocationRow(e.line, e.raw, e.value);
    }
  },
};

/** Fields that name the unit: read for emu_code, not reported as ignored. */
const CODE_FIELDS = ['emuCode', 'emu_code', 'code', 'emuCodeMappings'];

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function allocationRow(line: number, raw: string, value: unknown): FleetRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { line, raw, field: null, error: 'expected an object with emuCode and its fields' };
  const o = value as Record<string, unknown>;
  const cells: Record<string, string> = {};
  const ignored: string[] = [];
  const code = codeOf(o);
  if (code !== undefined) cells.emu_code = code;
  for (const [key, v] of Object.entries(o)) {
    if (CODE_FIELDS.includes(key)) continue;
    const column = snakeCase(key);
    if (column !== 'alias' && !(column in FLEET_COLUMNS)) {
      ignored.push(key);
      continue;
    }
    const text = cellText(v);
    if (text === undefined)
      return {
        line,
        raw,
        field: column,
        error: `${column}: expected text, a number, true/false or a list of text, got ${typeof v}`,
      };
    cells[column] = text;
  }
  return { line, raw, cells, ignored };
}

/** The unit's code: emuCode, emu_code or code; else the API's emuCodeMappings of its emuId. */
function codeOf(o: Record<string, unknown>): string | undefined {
  for (const key of ['emuCode', 'emu_code', 'code']) {
    if (typeof o[key] === 'string') return o[key];
  }
  const mappings = o.emuCodeMappings;
  if (typeof mappings !== 'object' || mappings === null) return undefined;
  const byId = mappings as Record<string, unknown>;
  const own = o.emuId === undefined ? undefined : byId[String(o.emuId)];
  const only = Object.values(byId).length === 1 ? Object.values(byId)[0] : undefined;
  const code = own ?? only;
  return typeof code === 'string' ? code : undefined;
}

function cellText(v: unknown): string | undefined {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number'))
    return v.join('|');
  return undefined;
}
