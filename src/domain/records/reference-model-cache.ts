import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { readReferenceModels, type ReferenceModel } from './read-reference-models.js';

/** No models: kept too, so that a number without any is not asked for again. */
const NONE: readonly ReferenceModel[] = Object.freeze([]);

/**
 * Trains' reference models (readReferenceModels) kept while train_reference_models does not
 * change: the caller passes the version it read first (data version 'reference_models', moved
 * by a trigger in the refresh's own transaction, migration 028), and a new version drops
 * everything kept. So models are never older than the version the request read, as with the
 * station boards they are served beside (station-board-cache.ts). Bounded: the least recently
 * used numbers go first past `maxCodes` (default 50,000: every number of the network, twice).
 */
export class ReferenceModelCache {
  private version: number | undefined;
  private readonly byCode: Lru<string, readonly ReferenceModel[]>;

  constructor(
    private readonly db: Queryable,
    maxCodes = 50_000,
  ) {
    this.byCode = new Lru({ maxEntries: maxCodes });
  }

  /** The models of the given numbers as readReferenceModels gives them (numbers with none left out). */
  async models(
    trainCodes: readonly string[],
    version: number,
  ): Promise<Map<string, ReferenceModel[]>> {
    if (version !== this.version) {
      this.byCode.clear();
      this.version = version;
    }
    const unknown = [...new Set(trainCodes)].filter((code) => !this.byCode.has(code));
    if (unknown.length > 0) {
      const read = await readReferenceModels(this.db, unknown);
      // A refresh that committed meanwhile may be in what was read; kept only under the
      // version this request read, which a later request reading the new one drops.
      if (this.version === version) {
        for (const code of unknown) this.byCode.set(code, read.get(code) ?? NONE);
      }
      return this.collect(trainCodes, read);
    }
    return this.collect(trainCodes);
  }

  private collect(
    trainCodes: readonly string[],
    read?: ReadonlyMap<string, ReferenceModel[]>,
  ): Map<string, ReferenceModel[]> {
    const out = new Map<string, ReferenceModel[]>();
    for (const code of trainCodes) {
      const models = read?.get(code) ?? this.byCode.get(code);
      if (models && models.length > 0) out.set(code, models as ReferenceModel[]);
    }
    return out;
  }
}
