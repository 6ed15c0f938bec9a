import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { readEmuModels, type EmuModel } from './emu-models.js';

/**
 * Units' canonical codes and models (readEmuModels) kept while the unit register does not
 * change: the caller passes the version it read first (data version 'emus', moved by the
 * register's writes in their own transactions: a model filled in by an allocation import moves
 * it), and a new version drops everything kept. A fleet is a few thousand units, asked for again
 * and again by every train page that names them, so after the first pages a page names only
 * units already kept. Bounded: the least recently used go first past `maxUnits` (default
 * 200,000: every unit of the network, many times).
 */
export class EmuModelCache {
  private version: string | undefined;
  private readonly byId: Lru<number, EmuModel>;

  constructor(
    private readonly db: Queryable,
    maxUnits = 200_000,
  ) {
    this.byId = new Lru({ maxEntries: maxUnits });
  }

  /** The units of `emuIds` as readEmuModels gives them (unknown ids left out). */
  async models(emuIds: Iterable<number>, version: string): Promise<Map<number, EmuModel>> {
    if (version !== this.version) {
      this.byId.clear();
      this.version = version;
    }
    const out = new Map<number, EmuModel>();
    let missing: number[] | undefined;
    // get() marks what this call has as recently used, so that its additions evict others.
    for (const id of new Set(emuIds)) {
      const kept = this.byId.get(id);
      if (kept) out.set(id, kept);
      else (missing ??= []).push(id);
    }
    if (!missing) return out;
    const read = await readEmuModels(this.db, missing);
    // A write that committed meanwhile may be in what was read: kept only under the version
    // this request read, which a later request reading the new one drops.
    const keep = this.version === version;
    for (const [id, unit] of read) {
      out.set(id, unit);
      if (keep) this.byId.set(id, unit);
    }
    return out;
  }
}
