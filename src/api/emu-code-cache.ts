import type { Queryable } from '../db/db.js';
import { flatString } from './flat-string.js';

interface Entry {
  code: string;
  /** `"<emuId>":"<code>"`, this EMU's member of an emuCodeMappings object. */
  json: string;
}

/**
 * emuId -> canonical code, for the emuCodeMappings of listings. A canonical code never changes
 * once registered (emus.code is unique and only ever inserted), so entries are kept for the life
 * of the process; only ids not seen before are looked up.
 */
export class EmuCodeCache {
  private readonly entries = new Map<number, Entry>();

  constructor(
    private readonly db: Queryable,
    /** Entries kept before the cache starts over. Default 200,000 (all of China's EMUs fit). */
    private readonly maxEntries = 200_000,
  ) {}

  /** Makes sure the given EMUs are cached (one query for those that are not). */
  async load(emuIds: readonly number[]): Promise<void> {
    let missing: number[] | undefined;
    for (const id of emuIds) if (!this.entries.has(id)) (missing ??= []).push(id);
    if (!missing) return;
    const r = await this.db.query<{ id: number; code: string }>(
      'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
      [[...new Set(missing)]],
    );
    if (this.entries.size + r.rows.length > this.maxEntries) this.entries.clear();
    for (const row of r.rows) {
      const json = flatString(`"${row.id}":${JSON.stringify(row.code)}`);
      this.entries.set(row.id, { code: row.code, json });
    }
  }

  /** The code of a loaded EMU. */
  code(emuId: number): string | undefined {
    return this.entries.get(emuId)?.code;
  }

  /** The emuCodeMappings member of a loaded EMU, as JSON text. */
  json(emuId: number): string | undefined {
    return this.entries.get(emuId)?.json;
  }

  /** The codes of the given EMUs, as the API's string-keyed mapping. */
  async mappings(emuIds: readonly number[]): Promise<Record<string, string>> {
    await this.load(emuIds);
    const out: Record<string, string> = {};
    for (const id of emuIds) {
      const code = this.code(id);
      if (code !== undefined) out[id] = code;
    }
    return out;
  }
}
