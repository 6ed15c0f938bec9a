import type { Queryable } from '../db/db.js';

/**
 * emuId -> canonical code, for the emuCodeMappings of listings. A canonical code never changes
 * once registered (emus.code is unique and only ever inserted), so entries are kept for the life
 * of the process; only ids not seen before are looked up.
 */
export class EmuCodeCache {
  private readonly codes = new Map<number, string>();

  constructor(
    private readonly db: Queryable,
    /** Entries kept before the cache starts over. Default 200,000 (all of China's EMUs fit). */
    private readonly maxEntries = 200_000,
  ) {}

  /** The codes of the given EMUs, as the API's string-keyed mapping. */
  async mappings(emuIds: Iterable<number>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    let missing: number[] | undefined;
    for (const id of emuIds) {
      const code = this.codes.get(id);
      if (code !== undefined) out[id] = code;
      else (missing ??= []).push(id);
    }
    if (missing) {
      const r = await this.db.query<{ id: number; code: string }>(
        'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
        [[...new Set(missing)]],
      );
      if (this.codes.size + r.rows.length > this.maxEntries) this.codes.clear();
      for (const row of r.rows) {
        this.codes.set(row.id, row.code);
        out[row.id] = row.code;
      }
    }
    return out;
  }
}
