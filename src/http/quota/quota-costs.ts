import type { Config } from '../../shared/config/config.js';

// Costs are counted in millionths of a token, so that 60 records at 0.05 cost exactly 3, where
// floating point would make it 3.0000000000000004 and round it up to 4.
const MICRO = 1_000_000;

/** A cost of `base` per request plus `perRecord` per record returned, rounded up to whole tokens. */
export class OperationCost {
  private readonly baseMicro: number;
  private readonly perRecordMicro: number;

  constructor(base: number, perRecord = 0) {
    this.baseMicro = Math.round(base * MICRO);
    this.perRecordMicro = Math.round(perRecord * MICRO);
  }

  /** Whole tokens for a request that returns `records` records. */
  of(records = 0): number {
    return Math.ceil((this.baseMicro + this.perRecordMicro * records) / MICRO);
  }
}

/** The cost of each v2 operation served here (defaults: compatibility.md). */
export interface QuotaCosts {
  recordsDaily: OperationCost;
  recordChanges: OperationCost;
  exportIndex: OperationCost;
  exportDay: OperationCost;
  allocation: OperationCost;
  timetableCurrent: OperationCost;
  timetableHistory: OperationCost;
  stationTimetable: OperationCost;
  trainHistory: OperationCost;
  emuHistory: OperationCost;
  circulationImageCached: OperationCost;
  circulationImageRendered: OperationCost;
  circulationImageFailed: OperationCost;
  prediction: OperationCost;
  authMe: OperationCost;
  search: OperationCost;
  webhooks: OperationCost;
  subscriptions: OperationCost;
}

export function quotaCostsFromConfig(config: Config): QuotaCosts {
  return {
    recordsDaily: new OperationCost(
      config.QUOTA_COST_RECORDS_DAILY,
      config.QUOTA_COST_RECORDS_DAILY_PER_RECORD,
    ),
    recordChanges: new OperationCost(
      config.QUOTA_COST_RECORD_CHANGES,
      config.QUOTA_COST_RECORD_CHANGES_PER_RECORD,
    ),
    exportIndex: new OperationCost(config.QUOTA_COST_EXPORT_INDEX),
    exportDay: new OperationCost(config.QUOTA_COST_EXPORT_DAY),
    allocation: new OperationCost(config.QUOTA_COST_ALLOCATION),
    timetableCurrent: new OperationCost(config.QUOTA_COST_TIMETABLE_CURRENT),
    timetableHistory: new OperationCost(
      config.QUOTA_COST_TIMETABLE_HISTORY,
      config.QUOTA_COST_TIMETABLE_HISTORY_PER_RECORD,
    ),
    stationTimetable: new OperationCost(0, config.QUOTA_COST_STATION_TIMETABLE_PER_RECORD),
    trainHistory: new OperationCost(0, config.QUOTA_COST_TRAIN_HISTORY_PER_RECORD),
    emuHistory: new OperationCost(0, config.QUOTA_COST_EMU_HISTORY_PER_RECORD),
    circulationImageCached: new OperationCost(config.QUOTA_COST_CIRCULATION_IMAGE_CACHED),
    circulationImageRendered: new OperationCost(config.QUOTA_COST_CIRCULATION_IMAGE_RENDERED),
    circulationImageFailed: new OperationCost(config.QUOTA_COST_CIRCULATION_IMAGE_FAILED),
    prediction: new OperationCost(config.QUOTA_COST_PREDICTION),
    authMe: new OperationCost(config.QUOTA_COST_AUTH_ME),
    search: new OperationCost(config.QUOTA_COST_SEARCH),
    webhooks: new OperationCost(config.QUOTA_COST_WEBHOOKS),
    subscriptions: new OperationCost(config.QUOTA_COST_SUBSCRIPTIONS),
  };
}
