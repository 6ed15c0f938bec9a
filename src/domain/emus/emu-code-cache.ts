import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { flatString } from '../../shared/cache/flat-string.js';

interface Entry {
  code: string;
  /** `"<emuId>":"<code>"`, this EMU's member of an emuCodeMappings object. */
  json: string;
}

/**
 * emuId -> canonical code, for the emuCodeMappings of listings. A canonical code never changes
 * once registered (emus.code is unique and only ever inserted), so an entry stays valid for the
 * life of the process; the cache is bounded by a least-recently-used eviction.
 *
 * `load` first touches the entries the call already has, then adds the ones it fetched: the
 * call's entries are the most recently used, so filling the cache evicts other entries, never
 * one the call counted as cached (as long as one call needs at most `maxEntries` EMUs, far more
 * than a page holds).
 */
export class EmuCodeCache {
  private readonly entries: Lru<number, Entry>;

  constructor(
    private readonly db: Queryable,
    /** Entries kept; the least recently used go first. Default 200,000 (all of China's EMUs fit). */
    maxEntries = 200_000,
  ) {
    this.entries = new Lru({ maxEntries });
  }

  /** Makes sure the given EMUs are cached (one query for those that are not). */
  async load(emuIds: Iterable<number>): Promise<void> {
    let missing: number[] | undefined;
    // get() marks an entry as recently used, so that the additions below do not evict it.
    for (const id of emuIds) if (this.entries.get(id) === undefined) (missing ??= []).push(id);
    if (!missing) return;
    const r = await this.db.query<{ id: number; code: string }>(
      'SELECT id, code FROM emus WHERE id = ANY($1::int[])',
      [[...new Set(missing)]],
    );
    for (const row of r.rows) {
      const json = flatString(`"${row.id}":${JSON.stringify(row.code)}`);
      this.entries.set(row.id, { code: row.code, json });
    }
  }

  /** The code of a loaded EMU. */
  code(emuId: number): string | undefined {
    return this.entries.peek(emuId)?.code;
  }

  /** The emuCodeMappings member of a loaded EMU, as JSON text. */
  json(emuId: number): string | undefined {
    return this.entries.peek(emuId)?.json;
  }
}
