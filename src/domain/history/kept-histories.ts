import {
  historyPageRange,
  mergedEmuHistoryPage,
  trainHistoryPage,
  type HistoryPageOptions,
  type HistoryRecord,
} from './read-history.js';
import { JoinedJson } from '../../shared/cache/joined-json.js';
import { KeptReads } from '../../shared/cache/kept-reads.js';
import type { Queryable } from '../../shared/db/db.js';

export interface KeptHistoriesOptions {
  /** Bytes kept, over all histories (1,000 records take about 170 KB). Default 32 MiB. */
  maxBytes?: number;
}

/**
 * A history read whole: the unit it is of (an EMU's, after merges; 0 for a train's), its records
 * newest first, and their items' JSON joined (a page's items are one slice of it).
 */
interface History {
  emuId: number;
  records: HistoryRecord[];
  itemsJson: JoinedJson;
}

type ItemJson = (record: HistoryRecord) => string;

/**
 * The JSON of one item of a train's history and of an EMU's: the reader's writers (the API's
 * are historyItemJson, history-json.ts), given by its owner.
 */
export interface HistoryItemJson {
  train: ItemJson;
  emu: ItemJson;
}

/**
 * A page of a history: its records, whether more follow, and its items' JSON joined by commas
 * (absent for a page queried on its own: its writer makes it from the records; a kept history's
 * pages bring a slice of its own).
 */
export interface HistoryPageJson {
  records: readonly HistoryRecord[];
  more: boolean;
  itemsJson?: string;
}

/**
 * The pages of GetTrainHistory and GetEmuHistory, from the page's own query or cut from the
 * whole history kept in memory (KeptReads: read whole on the second page of it that misses at
 * one version). The version is HISTORIES_VERSION (migration 029), which any build that changes
 * records and any merge move: a kept history is exact until then, and a client paging from
 * random cursors with random limits costs the history's read once instead of a query a page.
 */
export class KeptHistories {
  private readonly histories: KeptReads<string, History>;

  constructor(
    private readonly db: Queryable,
    private readonly itemJson: HistoryItemJson,
    options: KeptHistoriesOptions = {},
  ) {
    this.histories = new KeptReads({ maxBytes: options.maxBytes ?? 32 * 1024 * 1024, sizeOf });
  }

  /** Resolves once the whole histories being read now are kept (or failed). */
  readsSettled(): Promise<void> {
    return this.histories.settled();
  }

  /** One page of the train number's records (the number as stored) at `version`. */
  async trainPage(
    trainCode: string,
    version: string,
    options: HistoryPageOptions,
  ): Promise<HistoryPageJson> {
    const key = `train:${trainCode}`;
    const kept = this.histories.get(key, version);
    if (kept) return pageOf(kept, options);
    this.histories.missed(key, version, async () =>
      historyOf(
        0,
        (await trainHistoryPage(this.db, trainCode, 'whole')).records,
        this.itemJson.train,
      ),
    );
    // Its items' JSON is written from the records (history-json.ts), as for any page queried.
    return trainHistoryPage(this.db, trainCode, options);
  }

  /**
   * Several pages of the train number's records at `version` (a page that shows its newest
   * records, a list page and a month at once): cut from its whole history, read whole now when
   * it is not kept (one query for all of them instead of one each, and every later page cut
   * from memory); a history found too large to keep is queried page by page.
   */
  async trainPages<const Pages extends readonly HistoryPageOptions[]>(
    trainCode: string,
    version: string,
    pages: Pages,
  ): Promise<{ [K in keyof Pages]: HistoryPageJson }> {
    type Out = { [K in keyof Pages]: HistoryPageJson };
    const key = `train:${trainCode}`;
    if (this.histories.isTooLarge(key, version)) {
      return (await Promise.all(
        pages.map((options) => trainHistoryPage(this.db, trainCode, options)),
      )) as Out;
    }
    const whole = await this.histories.read(key, version, async () =>
      historyOf(
        0,
        (await trainHistoryPage(this.db, trainCode, 'whole')).records,
        this.itemJson.train,
      ),
    );
    return pages.map((options) => pageOf(whole, options)) as Out;
  }

  /** One page of the records of the unit `emuId` names (itself or the unit it was merged into). */
  async emuPage(
    emuId: number,
    version: string,
    options: HistoryPageOptions,
  ): Promise<HistoryPageJson & { emuId: number }> {
    const key = `emu:${emuId}`;
    const kept = this.histories.get(key, version);
    if (kept) return { emuId: kept.emuId, ...pageOf(kept, options) };
    this.histories.missed(key, version, async () => {
      const whole = await mergedEmuHistoryPage(this.db, emuId, 'whole');
      return historyOf(whole.emuId, whole.records, this.itemJson.emu);
    });
    return mergedEmuHistoryPage(this.db, emuId, options);
  }
}

function historyOf(emuId: number, records: HistoryRecord[], itemJson: ItemJson): History {
  return { emuId, records, itemsJson: new JoinedJson(records.map(itemJson)) };
}

function pageOf(history: History, options: HistoryPageOptions): HistoryPageJson {
  const { from, to, more } = historyPageRange(history.records, options);
  return {
    records: history.records.slice(from, to),
    more,
    itemsJson: history.itemsJson.slice(from, to),
  };
}

/** About what a kept record costs: the object, its train code, its item's JSON and offset. */
function sizeOf(history: History): number {
  let bytes = 64 + history.itemsJson.byteSize;
  for (const record of history.records) bytes += 100 + record.trainCode.length;
  return bytes;
}
