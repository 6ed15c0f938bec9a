import type { Db } from '../../shared/db/db.js';
import {
  readSearchEntries,
  readSearchVersions,
  sameVersions,
  type SearchVersions,
} from './search-entries.js';
import { SearchIndex, type SearchItem } from './search-index.js';

export interface SearchServiceOptions {
  /**
   * How often (ms) a search asks whether the versions moved; between two checks the index is
   * used as it is. 0 = every search. Default 1,000.
   */
  checkEveryMs?: number;
  /** A monotonic clock (ms). Default performance.now (the app's business clock may stand still). */
  now?: () => number;
}

/**
 * The search index of a process, kept while the versions it was built at (search-entries.ts)
 * are the database's. A search whose check is due reads the versions (one small statement, at
 * most once per `checkEveryMs` for all concurrent searches); when they moved, the index is built
 * again and the search waits for it (one build for all the searches waiting). So a search sees
 * every change to timetables and the EMU register that committed more than `checkEveryMs`
 * before it, in this process or any other.
 */
export class SearchService {
  private index?: SearchIndex;
  private versions?: SearchVersions;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending?: Promise<SearchIndex>;
  /** Builds so far (tests, metrics). */
  builds = 0;
  private readonly checkEveryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    options: SearchServiceOptions = {},
  ) {
    this.checkEveryMs = options.checkEveryMs ?? 1_000;
    this.now = options.now ?? (() => performance.now());
  }

  async search(query: string, limit: number): Promise<SearchItem[]> {
    return (await this.current()).search(query, limit);
  }

  /** The index as of the last due check. */
  async current(): Promise<SearchIndex> {
    if (this.index && this.now() - this.checkedAt < this.checkEveryMs) return this.index;
    this.pending ??= this.refresh().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async refresh(): Promise<SearchIndex> {
    const started = this.now();
    if (this.index && this.versions) {
      const versions = await readSearchVersions(this.db);
      if (sameVersions(versions, this.versions)) {
        this.checkedAt = started;
        return this.index;
      }
    }
    const { entries, versions } = await readSearchEntries(this.db);
    this.index = new SearchIndex(entries);
    this.versions = versions;
    this.checkedAt = started;
    this.builds++;
    return this.index;
  }
}
