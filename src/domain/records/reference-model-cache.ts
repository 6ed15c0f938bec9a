import { Lru } from '../../shared/cache/lru.js';
import type { Queryable } from '../../shared/db/db.js';
import { readReferenceModels, type ReferenceModel } from './read-reference-models.js';

/** No models: kept too, so that a number without any is not asked for again. */
const NONE: readonly ReferenceModel[] = Object.freeze([]);

/** Past this many rows the table is not read whole: numbers are read as they are asked for. */
const WHOLE_TABLE_MAX_ROWS = 200_000;

/**
 * Trains' reference models (readReferenceModels) kept while train_reference_models does not
 * change: the caller passes the version it read first (data version 'reference_models', moved
 * by a trigger in the refresh's own transaction, migration 028), and a new version drops
 * everything kept. So models are never older than the version the request read, as with the
 * station boards they are served beside (station-board-cache.ts). Bounded: the least recently
 * used numbers go first past `maxCodes` (default 50,000: every number of the network, twice).
 *
 * The table is read whole once per version (one query of a few thousand rows: every number of
 * the network has a row or two), so that a page of a number never asked for before costs no
 * query; a table larger than WHOLE_TABLE_MAX_ROWS rows or `maxCodes` numbers is read number by
 * number instead.
 */
export class ReferenceModelCache {
  private version: number | undefined;
  private readonly byCode: Lru<string, readonly ReferenceModel[]>;
  /** Every number with models is kept (read whole at `version`): a number not kept has none. */
  private complete = false;
  /** The whole table's read at `version`, shared by the requests that wait for it. */
  private wholeRead: Promise<void> | undefined;
  /** The table was found too large to read whole at this version. */
  private tooLargeAt: number | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly maxCodes = 50_000,
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
      this.complete = false;
      this.wholeRead = undefined;
    }
    if (!this.complete && this.tooLargeAt !== version) {
      if (!this.wholeRead) {
        const reading = this.readWhole(version).catch((err: unknown) => {
          // Not kept: the next request reads again.
          if (this.wholeRead === reading) this.wholeRead = undefined;
          throw err;
        });
        this.wholeRead = reading;
      }
      await this.wholeRead;
    }
    if (this.complete && this.version === version) return this.collect(trainCodes);
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

  private async readWhole(version: number): Promise<void> {
    const r = await this.db.query<{ train_code: string; model: string; weighted_share: number }>(
      `SELECT train_code, model, weighted_share FROM train_reference_models
        ORDER BY train_code, weighted_share DESC, model LIMIT $1`,
      [WHOLE_TABLE_MAX_ROWS + 1],
    );
    const all = new Map<string, ReferenceModel[]>();
    for (const row of r.rows) {
      let models = all.get(row.train_code);
      if (!models) all.set(row.train_code, (models = []));
      models.push({ model: row.model, weightedShare: row.weighted_share });
    }
    if (r.rows.length > WHOLE_TABLE_MAX_ROWS || all.size > this.maxCodes) {
      this.tooLargeAt = version;
      return;
    }
    // Read after the version was: kept under it unless a request meanwhile read a newer one.
    if (this.version !== version) return;
    for (const [code, models] of all) this.byCode.set(code, models);
    this.complete = true;
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
