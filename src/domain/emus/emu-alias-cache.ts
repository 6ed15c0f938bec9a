import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { findEmuId, followMerge } from './emu-registry.js';

/**
 * Written EMU code (an exact alias, else normalised: findEmuId) -> emuId, for the operations that name an EMU in
 * their path. An alias never changes owner once recorded (emu_aliases keeps its first owner), so
 * a hit stays true for the life of the process; a miss is not kept (the unit may be registered
 * by the next ingestion). A unit merged into another (a correction, which an undo may take back)
 * answers the unit it was merged into: that is asked on every call, not kept.
 */
export class EmuAliasCache {
  private readonly ids: Lru<string, number>;

  constructor(
    private readonly db: Queryable,
    /** Entries kept; the least recently used go first. Default 100,000. */
    maxEntries = 100_000,
  ) {
    this.ids = new Lru({ maxEntries });
  }

  async find(written: string): Promise<number | undefined> {
    const id = await this.findUnmerged(written);
    return id === undefined ? undefined : followMerge(this.db, id);
  }

  /**
   * The unit the code names before any merge is followed: for a query that follows the merge
   * itself (mergedEmuHistoryPage), saving a query per request.
   */
  async findUnmerged(written: string): Promise<number | undefined> {
    let id = this.ids.get(written);
    if (id === undefined) {
      id = await findEmuId(this.db, written);
      if (id === undefined) return undefined;
      this.ids.set(written, id);
    }
    return id;
  }
}
